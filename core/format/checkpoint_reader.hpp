// Reading and verifying one rank's checkpoint data in the format it was
// written in. POSIX files, MPI-IO slices and container tasks are a byte
// stream checked by the CRC-32s of the metadata (the rank's bytes and each
// variable); FTI-FF files by their own hashes (file block, block records,
// every chunk's MD5), so a damaged chunk is named by variable and offset.
#pragma once

#include <mpi.h>

#include <optional>
#include <span>

#include "format/checkpoint_meta.hpp"
#include "format/data_extents.hpp"
#include "format/ftiff_layout.hpp"
#include "format/io_mode.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

class CheckpointReader {
  public:
    // Opens the file and locates the rank's data (`record`, from the
    // metadata); for FTI-FF and containers, reads and checks the structure.
    CheckpointReader(const fs::path& path, IoMode io, const FileRecord& record);

    // Reads variable `var` into `out` (sizes must match), checking it.
    void read(const VarRecord& var, std::span<std::byte> out) const;

    struct Target {
        const VarRecord* var;
        std::span<std::byte> out;
    };
    // Reads every target. From an MPI-IO file, the file is opened and closed
    // collectively over `comm` and read with independent calls of at most
    // `piece_bytes`; otherwise the targets are read one by one. Throws after
    // the collective close if anything failed.
    void read_all(const std::vector<Target>& targets, MPI_Comm comm, std::size_t piece_bytes) const;

    // FTI-FF: the file's container layout; nullptr for other formats.
    const ftiff::Layout* layout() const { return layout_ ? &*layout_ : nullptr; }

  private:
    File file_;
    IoMode io_;
    std::optional<ftiff::Layout> layout_;
    Extents extents_;  // the rank's bytes, for every format but FTI-FF
};

// Where the rank of `record` has its bytes in a file of format `io`: the
// whole file (POSIX), its slice (MPI-IO, checking the file is long enough)
// or its chunks (container, through its metadata blocks, checking they hold
// as many bytes as the record). Throws a corrupt Error naming the file.
Extents rank_extents(const File& file, IoMode io, const FileRecord& record);

// Verifies a rank's data against its record: size always; then CRC-32 for
// POSIX data, parity, MPI-IO slices and container tasks, the file's own
// hashes for FTI-FF data and partner copies. Reads in pieces of
// `buffer_bytes`. Throws a corrupt Error naming the file and the defect.
void verify_checkpoint_file(const fs::path& path, const FileRecord& record, IoMode io, std::size_t buffer_bytes);

}  // namespace mlckpt::core
