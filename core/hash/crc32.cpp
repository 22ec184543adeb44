#include "hash/crc32.hpp"

#include <isa-l/crc.h>

namespace mlckpt::core {

void Crc32::update(std::span<const std::byte> data) {
    crc_ = crc32_gzip_refl(crc_, reinterpret_cast<const unsigned char*>(data.data()), data.size());
}

std::uint32_t crc32_of(std::span<const std::byte> data) {
    Crc32 crc;
    crc.update(data);
    return crc.value();
}

}  // namespace mlckpt::core
