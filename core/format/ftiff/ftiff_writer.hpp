// ckpt_io = 3: the engine's view of an FTI-FF file. Wraps ftiff::Writer and
// keeps the variable table (sizes and names) for the checkpoint metadata; the
// file itself needs no metadata to be read back.
#pragma once

#include "format/file_writer.hpp"
#include "format/ftiff/ftiff_file.hpp"

namespace mlckpt::core {

class FtiffWriter final : public FileWriter {
  public:
    struct Sizes {
        std::int64_t max_fs = 0;  // largest file of the group
        std::int64_t pt_fs = 0;   // file of the partner
    };
    FtiffWriter(File file, ftiff::Layout layout, Sizes sizes);
    FtiffWriter(const fs::path& path, ftiff::Layout layout, Sizes sizes)
        : FtiffWriter(File::create(path), std::move(layout), sizes) {}

    void add(int id, std::span<const std::byte> data, const std::string& name) override;
    bool has(int id) const override { return writer_.has(id); }
    FileRecord finish() override;

    const ftiff::Layout* ftiff_layout() const override { return &writer_.layout(); }

  private:
    ftiff::Writer writer_;
    Sizes sizes_;
    FileRecord record_;
};

}  // namespace mlckpt::core
