// CRC-32 (IEEE 802.3, the zlib/gzip polynomial), computed with ISA-L.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace mlckpt::core {

class Crc32 {
  public:
    void update(std::span<const std::byte> data);
    std::uint32_t value() const { return crc_; }

  private:
    std::uint32_t crc_ = 0;
};

std::uint32_t crc32_of(std::span<const std::byte> data);
// "0x" and eight hex digits, as the metadata and messages show a CRC.
std::string crc32_hex(std::uint32_t crc);

// CRC of A followed by B from crc(A), crc(B) and B's length: lets a file
// written out of order (records after data) still get its CRC from memory.
std::uint32_t crc32_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t length_b);
// CRC of consecutive pieces from their CRCs: every piece but the last has
// `block` bytes, the last `last_length` (1..block). One shift for all pieces,
// so a long list costs one multiplication per piece.
std::uint32_t crc32_of_blocks(std::span<const std::uint32_t> crcs, std::uint64_t block, std::uint64_t last_length);
// CRC of `length` zero bytes, without touching them.
std::uint32_t crc32_of_zeros(std::uint64_t length);

}  // namespace mlckpt::core
