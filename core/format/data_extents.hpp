// A rank's checkpoint data as a byte stream laid out in pieces of a file:
// the whole file (POSIX), a slice of a shared file (MPI-IO) or a container
// task's chunks. Variables are read and checked through the stream's
// offsets, whatever the file around them.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "format/checkpoint_meta.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

struct Extent {
    std::uint64_t offset = 0;  // in the file
    std::uint64_t length = 0;

    bool operator==(const Extent&) const = default;
};
using Extents = std::vector<Extent>;

std::uint64_t total_length(const Extents& extents);
// The pieces of the file that hold bytes [pos, pos + length) of the stream.
// Throws a corrupt Error if the stream is shorter.
Extents sub_extents(const Extents& extents, std::uint64_t pos, std::uint64_t length);

// Reads the stream bytes of variable `var` into `out` (sizes must match) and
// checks its CRC-32; errors name `file` and the variable.
void read_checked_var(const File& file, const Extents& extents, const VarRecord& var, std::span<std::byte> out);
// Throws a corrupt Error naming the variable if `data` fails its CRC-32.
void check_var_crc(const File& file, const VarRecord& var, std::span<const std::byte> data);

// Reads the stream in order, in pieces of at most `buffer_bytes`, handing
// each piece to `use`.
void for_each_piece(const File& file, const Extents& extents, std::size_t buffer_bytes,
                    const std::function<void(std::span<const std::byte>)>& use);

// CRC-32 of the stream, read in pieces of `buffer_bytes`.
std::uint32_t crc32_of_extents(const File& file, const Extents& extents, std::size_t buffer_bytes);

}  // namespace mlckpt::core
