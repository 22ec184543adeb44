#include "format/checkpoint_reader.hpp"

#include "format/dcp/dcp_layers.hpp"
#include "format/file_formats.hpp"
#include "format/posix/posix_format.hpp"

namespace mlckpt::core {

std::unique_ptr<CheckpointReader> open_checkpoint_reader(const fs::path& path, IoMode io, const FileRecord& record,
                                                         DataWhere where) {
    // A layered L4 differential file is known by its layers, whatever the IO.
    if (!record.layers.empty()) return open_dcp_layers_reader(path, record);
    return file_format_of(io).open_reader(path, record, where);
}

void verify_checkpoint_file(const fs::path& path, const FileRecord& record, IoMode io, std::size_t buffer_bytes) {
    if (record.type == "PARITY") {  // raw bytes, whatever the data's format
        verify_posix_file(path, record, buffer_bytes);
        return;
    }
    if (!record.layers.empty()) {
        verify_dcp_layers(path, record, buffer_bytes);
        return;
    }
    file_format_of(io).verify(path, record, buffer_bytes);
}

}  // namespace mlckpt::core
