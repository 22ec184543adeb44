// Reading and verifying one rank's checkpoint data in the format it was
// written in. Each format implements CheckpointReader and registers its
// reader and its verifier in format/file_formats.cpp; the engine finds them
// by the IoMode the metadata records.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "format/checkpoint_meta.hpp"
#include "format/io_mode.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

namespace ftiff {
class Layout;
}

class CheckpointReader {
  public:
    virtual ~CheckpointReader() = default;

    // Reads variable `var` into `out` (sizes must match), checking it. Each
    // rank reads alone (no MPI), so that ranks may recover in any order and
    // by any of FTI's calls.
    virtual void read(const VarRecord& var, std::span<std::byte> out) const = 0;

    // FTI-FF: the file's container layout; nullptr for other formats.
    virtual const ftiff::Layout* layout() const { return nullptr; }
};

// Where a reader will most likely find the data: only on storage, or also in
// the page cache because the restart's verification has just read the file
// whole. A format that reads around the page cache from storage (FTI-FF
// under MD5) reads through it in the second case instead of reading the
// bytes from storage twice.
enum class DataWhere { storage, just_verified };

// Opens the file of `record` in format `io` and checks what can be checked
// without reading the data (presence, size, structure). Throws a corrupt or
// io Error naming the file.
std::unique_ptr<CheckpointReader> open_checkpoint_reader(const fs::path& path, IoMode io, const FileRecord& record,
                                                         DataWhere where = DataWhere::storage);

// Verifies a rank's data against its record: size always; then CRC-32 for
// POSIX data, parity, MPI-IO slices and container tasks, the file's own
// hashes for FTI-FF data and partner copies. Reads in pieces of
// `buffer_bytes`. Throws a corrupt Error naming the file and the defect.
void verify_checkpoint_file(const fs::path& path, const FileRecord& record, IoMode io, std::size_t buffer_bytes);

}  // namespace mlckpt::core
