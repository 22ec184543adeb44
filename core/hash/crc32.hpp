// CRC-32 (IEEE 802.3, the zlib/gzip polynomial), computed with ISA-L.
#pragma once

#include <cstdint>
#include <span>

namespace mlckpt::core {

class Crc32 {
public:
    void update(std::span<const std::byte> data);
    std::uint32_t value() const { return crc_; }

private:
    std::uint32_t crc_ = 0;
};

std::uint32_t crc32_of(std::span<const std::byte> data);

}  // namespace mlckpt::core
