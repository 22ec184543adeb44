#include "format/ftiff/ftiff_reader.hpp"

#include "format/ftiff/ftiff_file.hpp"
#include "format/posix/posix_format.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

namespace {

class FtiffReader final : public CheckpointReader {
  public:
    FtiffReader(File file, DataWhere where)
        : file_(std::move(file)), layout_(ftiff::read_structure(file_).layout), where_(where) {}

    void read(const VarRecord& var, std::span<std::byte> out) const override {
        ftiff::read_variable(file_, layout_, var.id, out, where_ == DataWhere::just_verified);
    }
    const ftiff::Layout* layout() const override { return &layout_; }

  private:
    File file_;
    ftiff::Layout layout_;
    DataWhere where_;
};

}  // namespace

std::unique_ptr<CheckpointReader> open_ftiff_reader(const fs::path& path, const FileRecord&, DataWhere where) {
    return std::make_unique<FtiffReader>(File::open_read(path), where);
}

void verify_ftiff_data(const fs::path& path, const FileRecord& record, std::size_t buffer_bytes) {
    File file = File::open_read(path);
    check_recorded_size(path, file.size(), record);
    ftiff::verify_chunks(file, ftiff::read_structure(file).layout, buffer_bytes);
}

}  // namespace mlckpt::core
