// A copy of a rank's POSIX file stored another way: when a checkpoint moves
// to a level that compresses otherwise (an L4 copy of an L1 file, made by
// the node's head or the rank's worker), its variables are packed or
// unpacked on the way, a piece at a time.
#pragma once

#include <filesystem>

#include "format/checkpoint_meta.hpp"
#include "format/posix/posix_format.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

// Copies `source` (a POSIX file described by `record`) into `dir` under
// its own name, each variable stored as `packing` says (its element size
// from the record's ELEM), reading `buffer_bytes` at a time. Every
// variable's CRC-32 is checked on the way; the copy is written under a
// temporary name, synced and renamed. Returns the copy's record: rank,
// holder and node as in `record`. Throws a corrupt Error naming the source
// for a defect, an io Error for a failed write; no copy is left then.
FileRecord repack_posix_file(const fs::path& source, const FileRecord& record, const Directory& dir, Packing packing,
                             std::size_t buffer_bytes);

}  // namespace mlckpt::core
