#include "hash/crc32.hpp"

#include <isa-l/crc.h>

#include <array>
#include <cinttypes>
#include <cstdio>

namespace mlckpt::core {

std::string crc32_hex(std::uint32_t crc) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08" PRIx32, crc);
    return buf;
}

void Crc32::update(std::span<const std::byte> data) {
    crc_ = crc32_gzip_refl(crc_, reinterpret_cast<const unsigned char*>(data.data()), data.size());
}

namespace {

// Arithmetic on polynomials over GF(2) modulo the CRC polynomial, in the
// reflected bit order of the CRC (bit 31 is x^0).
constexpr std::uint32_t kReflectedPoly = 0xedb88320u;
constexpr std::uint32_t kOne = 1u << 31;

std::uint32_t multiply_mod(std::uint32_t a, std::uint32_t b) {
    std::uint32_t product = 0;
    for (std::uint32_t bit = kOne; bit != 0; bit >>= 1) {
        if (a & bit) product ^= b;
        b = (b & 1u) ? (b >> 1) ^ kReflectedPoly : b >> 1;
    }
    return product;
}

// powers[k] = x^(2^k) mod P.
const std::array<std::uint32_t, 64>& square_powers() {
    static const std::array<std::uint32_t, 64> powers = [] {
        std::array<std::uint32_t, 64> p{};
        p[0] = kOne >> 1;  // x^1
        for (std::size_t k = 1; k < p.size(); ++k) p[k] = multiply_mod(p[k - 1], p[k - 1]);
        return p;
    }();
    return powers;
}

// x^(8 * bytes) mod P: the effect of appending `bytes` zero bytes.
std::uint32_t shift_by_bytes(std::uint64_t bytes) {
    std::uint32_t result = kOne;
    std::size_t k = 3;  // 8 bits per byte
    for (; bytes != 0 && k < 64; bytes >>= 1, ++k) {
        if (bytes & 1u) result = multiply_mod(square_powers()[k], result);
    }
    return result;
}

}  // namespace

std::uint32_t crc32_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t length_b) {
    return multiply_mod(shift_by_bytes(length_b), crc_a) ^ crc_b;
}

std::uint32_t crc32_of_blocks(std::span<const std::uint32_t> crcs, std::uint64_t block, std::uint64_t last_length) {
    if (crcs.empty()) return crc32_of({});
    const std::uint32_t shift = shift_by_bytes(block);
    std::uint32_t crc = crcs[0];
    for (std::size_t k = 1; k + 1 < crcs.size(); ++k) crc = multiply_mod(shift, crc) ^ crcs[k];
    if (crcs.size() > 1) crc = crc32_combine(crc, crcs.back(), last_length);
    return crc;
}

std::uint32_t crc32_of_zeros(std::uint64_t length) {
    // The register starts at all ones, zeros only shift it, the result is inverted.
    return multiply_mod(shift_by_bytes(length), 0xffffffffu) ^ 0xffffffffu;
}

std::uint32_t crc32_of(std::span<const std::byte> data) {
    Crc32 crc;
    crc.update(data);
    return crc.value();
}

}  // namespace mlckpt::core
