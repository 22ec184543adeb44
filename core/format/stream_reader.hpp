// Readers of the formats whose rank data is a byte stream checked by the
// CRC-32s of the metadata (the rank's bytes and each variable): a POSIX
// file (the whole file), an MPI-IO slice of the shared L4 file and a
// container task (its chunks, found through the
// container's metadata blocks).
#pragma once

#include <memory>

#include "format/checkpoint_reader.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

std::unique_ptr<CheckpointReader> open_posix_reader(const fs::path& path, const FileRecord& record, DataWhere where);
std::unique_ptr<CheckpointReader> open_mpiio_reader(const fs::path& path, const FileRecord& record, DataWhere where);
std::unique_ptr<CheckpointReader> open_container_reader(const fs::path& path, const FileRecord& record,
                                                        DataWhere where);

// Checks the CRC-32 of a rank's slice of an MPI-IO file, or of its task in a
// container, against its record.
void verify_mpiio_data(const fs::path& path, const FileRecord& record, std::size_t buffer_bytes);
void verify_container_data(const fs::path& path, const FileRecord& record, std::size_t buffer_bytes);

}  // namespace mlckpt::core
