// A packed variable: one variable's bytes compressed in independent blocks,
// stored where its metadata record says (VarRecord: `stored` bytes from
// `offset` of its rank's data):
//
//   block 0 | block 1 | ... | block n-1 | table | trailer
//
// - block i holds raw bytes [i * B, min((i + 1) * B, raw size)), compressed
//   (block_codec.hpp) or, when that would not shrink them, as they are:
//   a block whose stored length equals its raw length is stored as it is;
// - table: per block, u32 stored length and u32 CRC-32 of the stored bytes;
// - trailer (32 bytes): u64 raw size, u32 B, u32 n, u8 codec, u8 shuffle
//   unit, u16 version (1), u32 zero, u32 CRC-32 of the table and of the
//   trailer's first 24 bytes, u32 magic "MLCZ" (0x5a434c4d).
// With codec zfp (lossy, lossy_codec.hpp) the unit is 4 (floats) or 8
// (doubles) and the variable's CRC-32 is that of the values decompressed.
//
// All integers are little-endian. The trailer comes last so that a
// variable is written in one pass, whatever its size, and is found from the
// frame's end; the block offsets are the prefix sums of the stored lengths.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "compress/block_codec.hpp"

namespace mlckpt::core {

inline constexpr std::size_t kPackedTrailerBytes = 32;
inline constexpr std::size_t kPackedTableEntryBytes = 8;

struct PackedTrailer {
    std::uint64_t raw_size = 0;
    std::uint32_t block_bytes = 0;
    std::uint32_t blocks = 0;
    Codec codec = Codec::none;
    std::uint8_t unit = 1;
    std::uint32_t table_crc = 0;

    std::uint64_t table_bytes() const { return std::uint64_t{blocks} * kPackedTableEntryBytes; }
};

struct PackedBlock {
    std::uint64_t offset = 0;  // of its stored bytes in the frame
    std::uint32_t stored = 0;
    std::uint32_t crc32 = 0;  // of the stored bytes
    std::uint64_t raw_offset = 0;
    std::uint32_t raw_length = 0;

    bool as_is() const { return stored == raw_length; }
};

// The trailer of a frame of `frame_bytes`, from its last kPackedTrailerBytes.
// Throws a corrupt Error that says `what` and the defect for anything that
// is not a consistent trailer (magic, version, codec, sizes that do not fit
// the frame): nothing is sized by an unchecked field.
PackedTrailer parse_packed_trailer(std::span<const std::byte> trailer, std::uint64_t frame_bytes,
                                   const std::string& what);
// The blocks, from the table (trailer.table_bytes() bytes before the
// trailer): checks the table's CRC and that the stored lengths fill the
// frame exactly.
std::vector<PackedBlock> parse_packed_table(const PackedTrailer& trailer, std::span<const std::byte> table,
                                            std::uint64_t frame_bytes, const std::string& what);

// Decodes `blocks` (consecutive ones), whose stored bytes are `stored`
// (consecutive as in the frame), into `out` (their raw bytes), on up to
// `threads` threads. Every block's CRC is checked before it is
// decompressed; a damaged one is named by its number and raw byte range.
// `stored` may be `out` itself when every block is stored as it is (read
// in place). Returns the CRC-32 of `out`.
std::uint32_t decode_packed_blocks(const PackedTrailer& trailer, std::span<const PackedBlock> blocks,
                                   std::span<const std::byte> stored, std::span<std::byte> out, std::size_t threads,
                                   const std::string& what);

// Writes a packed frame to `sink` (the caller's thread, in order) from the
// variable's bytes fed in pieces of any size. Whole blocks are compressed
// in batches, each batch on up to `threads` threads.
class PackedEncoder {
  public:
    using Sink = std::function<void(std::span<const std::byte>)>;

    // `block_bytes` is rounded down to a multiple of the shuffle unit.
    // Codec::zfp: lossy within `bound` (unit 4, floats, or 8, doubles);
    // raw_crc() is then that of the values a restart gets back.
    PackedEncoder(Codec codec, std::uint8_t unit, std::size_t block_bytes, std::size_t threads, Sink sink,
                  double bound = 0);

    void feed(std::span<const std::byte> raw);
    // The last block, the table and the trailer.
    void finish();

    std::uint64_t raw_size() const { return raw_size_; }
    std::uint32_t raw_crc() const { return raw_crc_; }
    std::uint64_t frame_bytes() const { return frame_bytes_; }
    std::uint32_t frame_crc() const { return frame_crc_; }  // of the bytes handed to the sink

  private:
    void encode(std::span<const std::byte> raw);                     // whole blocks, the last may be short
    void emit(std::span<const std::byte> bytes, std::uint32_t crc);  // `crc`: of `bytes`

    Codec codec_;
    double bound_;
    std::uint8_t unit_;
    std::size_t block_bytes_;
    std::size_t threads_;
    std::size_t batch_blocks_;
    Sink sink_;
    std::vector<std::byte> pending_;  // the start of a block not yet whole
    std::vector<std::vector<std::byte>> out_;
    std::vector<std::vector<std::byte>> reconstructed_;  // lossy blocks as decompressed
    std::vector<std::byte> table_;
    std::uint64_t raw_size_ = 0;
    std::uint32_t raw_crc_ = 0;
    std::uint64_t frame_bytes_ = 0;
    std::uint32_t frame_crc_ = 0;
    std::uint32_t blocks_ = 0;
};

}  // namespace mlckpt::core
