// How much of a write survives when the power is cut while it is in flight:
// a prefix of its 4 KiB pages, at least one and, when it spans several,
// fewer than all, the number chosen by a seed (the same seed, the same tear).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace powerloss {

inline constexpr off_t torn_page_size = 4096;

// The number of bytes of the write of `length` bytes at `offset` that reach
// the disk.
std::size_t torn_prefix_length(off_t offset, std::size_t length, std::uint64_t seed);

}  // namespace powerloss
