#include <gtest/gtest.h>

#include <vector>

#include "hash/crc32.hpp"

namespace mlckpt::core {
namespace {

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + seed * 7 + (i >> 9)) & 0xff);
    return v;
}

TEST(Crc32, KnownValueOfTheCheckString) {
    const char* text = "123456789";
    EXPECT_EQ(crc32_of(std::as_bytes(std::span(text, 9))), 0xcbf43926u);
}

TEST(Crc32, CombineEqualsTheCrcOfTheConcatenation) {
    for (std::size_t a_len : {0u, 1u, 7u, 4096u, 100001u}) {
        for (std::size_t b_len : {0u, 1u, 13u, 65536u, 300007u}) {
            std::vector<std::byte> a = pattern(a_len, 1);
            std::vector<std::byte> b = pattern(b_len, 2);
            std::vector<std::byte> ab = a;
            ab.insert(ab.end(), b.begin(), b.end());
            EXPECT_EQ(crc32_combine(crc32_of(a), crc32_of(b), b.size()), crc32_of(ab))
                << "lengths " << a_len << " and " << b_len;
        }
    }
}

TEST(Crc32, BlocksCombineIntoTheCrcOfTheWhole) {
    for (std::size_t block : {1u, 512u, 16384u}) {
        for (std::size_t total : {0u, 1u, 511u, 512u, 16384u, 100001u}) {
            std::vector<std::byte> data = pattern(total, 3);
            std::vector<std::uint32_t> crcs;
            for (std::size_t pos = 0; pos < total; pos += block) {
                crcs.push_back(crc32_of(std::span(data).subspan(pos, std::min(block, total - pos))));
            }
            const std::size_t last = total == 0 ? 0 : total - (crcs.size() - 1) * block;
            EXPECT_EQ(crc32_of_blocks(crcs, block, last), crc32_of(data)) << block << " " << total;
        }
    }
}

TEST(Crc32, ZerosWithoutTouchingThem) {
    for (std::size_t n : {0u, 1u, 3u, 512u, 1000003u}) {
        std::vector<std::byte> zeros(n);
        EXPECT_EQ(crc32_of_zeros(n), crc32_of(zeros)) << n << " zero bytes";
    }
}

TEST(Crc32, LengthsBeyondFourGigabytes) {
    // Appending 2^33 zero bytes in two halves equals appending them at once.
    const std::uint64_t half = std::uint64_t{1} << 32;
    std::uint32_t once = crc32_of_zeros(2 * half);
    EXPECT_EQ(crc32_combine(crc32_of_zeros(half), crc32_of_zeros(half), half), once);
}

}  // namespace
}  // namespace mlckpt::core
