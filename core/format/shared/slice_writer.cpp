#include "format/shared/slice_writer.hpp"

#include "format/posix/posix_format.hpp"

namespace mlckpt::core {

SliceWriter::SliceWriter(std::unique_ptr<SharedFile> file, bool deferred)
    : file_(std::move(file)), deferred_(deferred) {}

void SliceWriter::add(int id, std::span<const std::byte> data, const std::string& name) {
    VarRecord var = describe_var(id, record_.size, data.size(), crc32_of(data), name);
    if (deferred_) {
        pending_.append(data);
    } else {
        file_->write(0, record_.size, data);
    }
    slice_crc_ = crc32_combine(slice_crc_, var.crc32, data.size());  // no second pass over the data
    record_.size += data.size();
    record_.vars.push_back(std::move(var));
}

FileRecord SliceWriter::finish() {
    if (deferred_) file_->write_streams({&pending_});
    file_->commit();
    record_.file = file_->file_name(0);
    record_.offset = file_->offset(0);
    record_.crc32 = slice_crc_;
    record_.complete = true;
    return record_;
}

}  // namespace mlckpt::core
