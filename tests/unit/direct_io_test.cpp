// Writes around the page cache must land exactly where buffered writes
// would, and reads around it must return exactly what buffered reads would:
// unaligned offsets, unaligned memory, edges shared with bytes written
// through the cache, ranges longer than the staging buffer, and a file that
// ends too soon.
#include "io/direct_reader.hpp"
#include "io/direct_writer.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "expect_error.hpp"
#include "hash/crc32.hpp"
#include "io/file.hpp"
#include "temp_dir.hpp"
#include "test_bytes.hpp"

namespace mlckpt::core {
namespace {

using test::pattern;
using test::read_all;

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
    check_round_trip(100, 2000, 1, WritePath::direct);  // below the direct minimum
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

// A file of `bytes` pattern bytes; the reads below must return exactly
// `size` of them from `offset` into memory `misalign` bytes past an
// allocation, through DirectReader and through read_overlapped.
void check_read(std::size_t offset, std::size_t size, std::size_t misalign, std::size_t staging) {
    test::TempDir dir;
    const auto content = pattern(offset + size + 100, 5);
    {
        File f = File::create(dir.path() / "f");
        f.write_all_at(content, 0);
        f.sync();
    }
    const std::vector<std::byte> expected(content.begin() + static_cast<std::ptrdiff_t>(offset),
                                          content.begin() + static_cast<std::ptrdiff_t>(offset + size));
    File f = File::open_read(dir.path() / "f");
    std::vector<std::byte> storage(size + misalign);
    std::span<std::byte> out = std::span(storage).subspan(misalign);
    DirectReader reader(f, staging);
    EXPECT_TRUE(reader.direct()) << "this file system takes direct I/O";
    reader.read_at(out, offset);
    EXPECT_TRUE(std::equal(out.begin(), out.end(), expected.begin())) << "offset " << offset << ", size " << size;

    std::fill(storage.begin(), storage.end(), std::byte{0});
    Crc32 seen;
    read_overlapped(
        f, offset, out, [&](std::span<const std::byte> piece) { seen.update(piece); }, ReadPath::direct);
    EXPECT_TRUE(std::equal(out.begin(), out.end(), expected.begin()));
    EXPECT_EQ(seen.value(), crc32_of(expected));
}

TEST(DirectReader, UnalignedOffsetAndMemoryReadExactly) {
    check_read(4097, (20u << 20) + 777, 3, 8u << 20);
}

TEST(DirectReader, AlignedRangeIntoAlignedMemory) {
    check_read(8192, 9u << 20, 4096 - 16, 8u << 20);  // no staging copy (see AlignedRangeFromAlignedMemory)
}

TEST(DirectReader, SmallRangesAndStagingSmallerThanTheRange) {
    check_read(100, 2000, 1, 1u << 20);
    check_read(4095, (3u << 20) + 1, 0, 1u << 20);
}

TEST(DirectReader, FileEndingTooSoonIsNamed) {
    test::TempDir dir;
    const auto content = pattern((5u << 20) + 10, 6);  // ends inside a block
    {
        File f = File::create(dir.path() / "f");
        f.write_all_at(content, 0);
    }
    File f = File::open_read(dir.path() / "f");
    std::vector<std::byte> out(8u << 20);
    DirectReader reader(f, 1u << 20);
    std::string message = test::error_message(ErrorKind::corrupt, [&] { reader.read_at(out, 0); });
    EXPECT_NE(message.find("is truncated: expected 8388608 bytes, it ends at 5242890"), std::string::npos) << message;
    EXPECT_TRUE(std::equal(content.begin(), content.end(), out.begin())) << "what the file holds is read";
}

}  // namespace
}  // namespace mlckpt::core
