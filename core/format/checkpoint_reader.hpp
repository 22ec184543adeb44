// Reading and verifying one rank's checkpoint file in the format it was
// written in: POSIX files are checked by size and CRC-32 from the metadata,
// FTI-FF files by their own hashes (file block, block records, every chunk's
// MD5), so a damaged chunk is named by variable and file offset.
#pragma once

#include <optional>
#include <span>

#include "config/config.hpp"
#include "format/ftiff_layout.hpp"
#include "io/file.hpp"
#include "meta/checkpoint_meta.hpp"

namespace mlckpt::core {

class CheckpointReader {
  public:
    // Opens the file; for FTI-FF, reads and checks its structure.
    CheckpointReader(const fs::path& path, IoMode io);

    // Reads variable `var` into `out` (sizes must match), checking it.
    void read(const VarRecord& var, std::span<std::byte> out) const;
    // FTI-FF: the file's container layout; nullptr for POSIX.
    const ftiff::Layout* layout() const { return layout_ ? &*layout_ : nullptr; }

  private:
    File file_;
    std::optional<ftiff::Layout> layout_;
};

// Verifies a whole file against its record: size always; then CRC-32 for
// POSIX data and for parity, the file's own hashes for FTI-FF data and
// partner copies. Reads in pieces of `buffer_bytes`. Throws a corrupt Error
// naming the file and the defect.
void verify_checkpoint_file(const fs::path& path, const FileRecord& record, IoMode io, std::size_t buffer_bytes);

// Whether checkpoints written with `io` can be read back by this version.
bool readable_io_mode(IoMode io);

}  // namespace mlckpt::core
