// Error-bounded lossy compression of floating-point blocks, for variables
// whose application asked for it (FTI_SetErrorBound): ZFP's fixed-accuracy
// mode on the block as a one-dimensional array of floats or doubles. A
// block is compressed only when every element comes back within the bound
// (checked on the way, by decompressing it) and all are finite; otherwise
// the caller stores it as it is.
//
// A lossy block: i32 ZFP minimum exponent (little-endian), then the ZFP
// stream, coded with at most kMaxBitsPerBlock(unit) bits per ZFP block of
// four values, so that a decoder never reads past a bounded buffer
// whatever the stream says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace mlckpt::core {

// Compresses `raw` (floats when unit is 4, doubles when 8) into `out`
// (at least raw.size() bytes) so that no element moves by more than
// `bound`, and writes the values a decompression gives into
// `reconstructed` (raw.size() bytes). Returns the compressed size, or 0
// when the block does not shrink, holds a value that is not finite, or
// would not stay within the bound: the caller stores it as it is.
std::size_t compress_lossy_block(std::uint8_t unit, double bound, std::span<const std::byte> raw,
                                 std::span<std::byte> out, std::span<std::byte> reconstructed);

// Decompresses a lossy block into `out` (whole elements of `unit` bytes).
// A stream that is not one (a bad exponent, a unit other than 4 or 8)
// throws a corrupt Error that says `what`; nothing is read or written
// outside the buffers.
void decompress_lossy_block(std::uint8_t unit, std::span<const std::byte> stored, std::span<std::byte> out,
                            const std::string& what);

}  // namespace mlckpt::core
