// What the machine does without mlckpt, for the same bytes, ranks and
// directory as a checkpoint: the yardsticks the bench divides by.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <filesystem>
#include <span>

namespace mlckpt::bench {

// Collective: every rank write()s `data` to its own new file in `dir` and
// fsync()s it; returns the seconds until the last rank is done. The files
// are removed afterwards.
double raw_durable_write(MPI_Comm comm, const std::filesystem::path& dir, std::span<const std::byte> data);

}  // namespace mlckpt::bench
