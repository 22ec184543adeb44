#include "format/checkpoint_reader.hpp"

#include "common/error.hpp"
#include "format/ftiff_file.hpp"
#include "format/posix_format.hpp"

namespace mlckpt::core {

CheckpointReader::CheckpointReader(const fs::path& path, IoMode io) : file_(File::open_read(path)) {
    if (io == IoMode::ftiff) layout_ = ftiff::read_structure(file_).layout;
}

void CheckpointReader::read(const VarRecord& var, std::span<std::byte> out) const {
    if (layout_) {
        ftiff::read_variable(file_, *layout_, var.id, out);
    } else {
        read_posix_var(file_, var, out);
    }
}

void verify_checkpoint_file(const fs::path& path, const FileRecord& record, IoMode io, std::size_t buffer_bytes) {
    if (io != IoMode::ftiff || record.type == "PARITY") {
        verify_posix_file(path, record, buffer_bytes);
        return;
    }
    File file = File::open_read(path);
    check_recorded_size(path, file.size(), record);
    ftiff::verify_chunks(file, ftiff::read_structure(file).layout, buffer_bytes);
}

bool readable_io_mode(IoMode io) {
    return io == IoMode::posix || io == IoMode::ftiff;
}

}  // namespace mlckpt::core
