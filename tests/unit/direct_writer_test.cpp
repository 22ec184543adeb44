// Writes around the page cache must land exactly where buffered writes
// would: unaligned offsets, unaligned memory, edges shared with bytes
// written through the cache, and ranges longer than the staging buffer.
#include "io/direct_writer.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "hash/crc32.hpp"
#include "io/file.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

std::vector<std::byte> pattern(std::size_t n, unsigned seed) {
    std::vector<std::byte> v(n);
    std::uint32_t x = seed;
    for (auto& b : v) {
        x = x * 1664525u + 1013904223u;
        b = static_cast<std::byte>(x >> 24);
    }
    return v;
}

std::vector<std::byte> read_all(const fs::path& path) {
    File f = File::open_read(path);
    std::vector<std::byte> v(f.size());
    f.read_exact_at(v, 0);
    return v;
}

// A header written through the cache, then `data` at `offset` by the given
// path, then a trailer: the file must hold exactly those bytes.
void check_round_trip(std::size_t offset, std::size_t size, std::size_t misalign, WritePath path) {
    test::TempDir dir;
    const fs::path file_path = dir.path() / "f";
    const auto header = pattern(offset, 1);
    auto storage = pattern(size + misalign, 2);
    std::span<const std::byte> data = std::span(storage).subspan(misalign);
    const auto trailer = pattern(100, 3);

    File f = File::create(file_path);
    f.write_all_at(header, 0);
    Crc32 seen;
    std::size_t pieces = 0;
    write_overlapped(
        f, offset, data,
        [&](std::span<const std::byte> piece) {
            seen.update(piece);
            ++pieces;
        },
        path);
    f.write_all_at(trailer, offset + size);
    f.sync();
    f.close();

    EXPECT_EQ(seen.value(), crc32_of(data)) << "the pieces reach the hash in order, each once";
    EXPECT_GE(pieces, 1u);
    std::vector<std::byte> expected(header);
    expected.insert(expected.end(), data.begin(), data.end());
    expected.insert(expected.end(), trailer.begin(), trailer.end());
    EXPECT_TRUE(read_all(file_path) == expected) << "offset " << offset << ", size " << size;
}

TEST(DirectWriter, UnalignedOffsetAndMemoryLandExactly) {
    check_round_trip(4097, (20u << 20) + 777, 3, WritePath::direct);
}

TEST(DirectWriter, AlignedRangeFromAlignedMemory) {
    // glibc's large vectors start 16 bytes past a page; 4096 - 16 of
    // misalignment then puts the data on a page boundary: no staging copy.
    check_round_trip(8192, 9u << 20, 4096 - 16, WritePath::direct);
}

TEST(DirectWriter, SmallRangesAndRangesStartingBeforeABlockEdge) {
    check_round_trip(100, 2000, 1, WritePath::direct);        // below the direct minimum
    check_round_trip(4095, (1u << 20) + 1, 0, WritePath::direct);
}

TEST(DirectWriter, PageCachePathIsTheSame) {
    check_round_trip(4097, (20u << 20) + 777, 3, WritePath::page_cache);
}

TEST(DirectWriter, WritesAtAnyOffsetThroughTheWriter) {
    test::TempDir dir;
    const fs::path file_path = dir.path() / "f";
    const auto data = pattern((3u << 20) + 5, 4);
    File f = File::create(file_path);
    {
        DirectWriter w(f, 1u << 20);  // staging smaller than the range: several direct writes
        w.write_at(std::span(data).subspan(0, 10), 0);
        w.write_at(std::span(data).subspan(10), 10);
    }
    f.sync();
    f.close();
    EXPECT_TRUE(read_all(file_path) == data);
}

}  // namespace
}  // namespace mlckpt::core
