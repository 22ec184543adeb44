// `mlckpt inspect --meta META FILE`: a checkpoint file that describes
// nothing itself (POSIX, HDF5, a partner copy or a parity file), shown and
// checked through its checkpoint's metadata: each variable's place, size
// and CRC-32, and for a packed (compressed) variable its codec, blocks and
// ratio. Every byte is checked: the file's size and CRC-32, each variable's
// CRC-32, and every block of a packed variable before it is decompressed.
#pragma once

#include <ostream>
#include <string>

namespace mlckpt::tools {

// Returns 0 when the file verifies, 1 (a message on `err`) when it does not
// or the metadata does not describe it.
int inspect_described_file(const std::string& path, const std::string& meta_path, bool json, std::ostream& out,
                           std::ostream& err);

}  // namespace mlckpt::tools
