// L4 checkpoints in one shared file (ckpt_io = 2 or 4): the parameters of
// the file from the configuration, and the copy of per-rank files into it
// (keep_last_ckpt at FTI_Finalize, and the L4 flush done by head ranks).
#pragma once

#include <utility>
#include <vector>

#include "format/checkpoint_meta.hpp"
#include "format/shared/shared_file.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

// The shared L4 file of checkpoint `ref` (chunk alignment, number of files
// and MPI-IO transfer size); the caller opens its directory,
// ctx.layout.ckpt_dir(ref, 0), into `dir`.
SharedFileSpec shared_file_spec(const Context& ctx, const CheckpointRef& ref);

// The most bytes a rank moves per collective MPI-IO call: [advanced]
// transfer_size, capped at 1 GiB (an MPI count is an int).
std::size_t mpiio_piece_bytes(const Config& config);

// Collective over `comm`: copies the per-rank POSIX files `sources` (this
// process's ranks: each file's record and path) into the shared L4 file of
// `target`, checking each file's size and CRC-32 on the way. Returns, for
// each source, the record of its bytes in the shared file.
std::vector<FileRecord> flush_into_shared_file(const Context& ctx, MPI_Comm comm, const CheckpointRef& target,
                                               const std::vector<std::pair<FileRecord, fs::path>>& sources);

// The preferred I/O block size of the file system holding `dir`, as a power
// of two from 512 bytes to 1 GiB (4096 if it cannot be read).
std::int32_t file_system_block_size(const fs::path& dir);

}  // namespace mlckpt::core
