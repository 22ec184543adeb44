// A file written front to back from pieces that arrive one after another
// (a partner's file from the network, parity from the encoder) must hold
// exactly those bytes whatever the pieces' sizes and the batch boundaries,
// and a failed write must be reported with the file's name.
#include "io/sequential_writer.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "expect_error.hpp"
#include "hash/crc32.hpp"
#include "io/file.hpp"
#include "levels/memory_content.hpp"
#include "temp_dir.hpp"
#include "test_bytes.hpp"

namespace mlckpt::core {
namespace {

constexpr std::size_t kBatch = 64 * 1024;

using test::pattern;
using test::read_all;

// Appends `data` in pieces of the given sizes, cycling through them.
void write_in_pieces(const fs::path& path, std::span<const std::byte> data, const std::vector<std::size_t>& sizes) {
    SequentialWriter w(File::create(path), kBatch);
    std::size_t pos = 0;
    for (std::size_t i = 0; pos < data.size(); ++i) {
        const std::size_t n = std::min(sizes[i % sizes.size()], data.size() - pos);
        w.append(data.subspan(pos, n));
        pos += n;
        EXPECT_EQ(w.size(), pos);
    }
    w.finish();
}

TEST(SequentialWriter, PiecesAcrossBatchesLandExactly) {
    test::TempDir dir;
    // Several batches, pieces smaller than, equal to and larger than a
    // batch, and a tail that ends off the direct I/O alignment.
    const auto data = pattern(5 * kBatch + 4097, 1);
    write_in_pieces(dir.path() / "f", data, {1, 4095, kBatch, 3 * kBatch + 7, 100});
    EXPECT_TRUE(read_all(dir.path() / "f") == data);
}

TEST(SequentialWriter, WholeBatchesLeaveNoTail) {
    test::TempDir dir;
    const auto data = pattern(4 * kBatch, 2);
    write_in_pieces(dir.path() / "f", data, {kBatch / 2});
    EXPECT_TRUE(read_all(dir.path() / "f") == data);
}

TEST(SequentialWriter, NothingAppendedIsAnEmptyFile) {
    test::TempDir dir;
    SequentialWriter w(File::create(dir.path() / "f"), kBatch);
    w.finish();
    EXPECT_EQ(File::open_read(dir.path() / "f").size(), 0u);
}

TEST(SequentialWriter, AFullDeviceIsNamed) {
    // /dev/full refuses every write with ENOSPC, as a full disk does.
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    const auto data = pattern(3 * kBatch, 3);
    std::string message = test::error_message(ErrorKind::io, [&] {
        SequentialWriter w(File::create("/dev/full"), kBatch);
        w.append(data);
        w.finish();
    });
    EXPECT_NE(message.find("/dev/full"), std::string::npos) << message;
    EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
}

TEST(SequentialWriter, AMissingDirectoryIsNamed) {
    test::TempDir dir;
    std::string message = test::error_message(
        ErrorKind::io, [&] { SequentialWriter w(File::create(dir.path() / "missing" / "f"), kBatch); });
    EXPECT_NE(message.find("missing"), std::string::npos) << message;
}

TEST(SequentialWriter, BatchOffTheAlignmentIsRefused) {
    test::TempDir dir;
    std::string message =
        test::error_message(ErrorKind::usage, [&] { SequentialWriter w(File::create(dir.path() / "f"), kBatch + 1); });
    EXPECT_NE(message.find("multiple of 4096"), std::string::npos) << message;
}

TEST(MemoryContent, CopiesAcrossPartsInFileOrder) {
    const auto a = pattern(1000, 4);
    const auto b = pattern(10, 5);
    const auto c = pattern(3000, 6);
    MemoryContent content;
    content.append(a);
    content.append({});  // an empty variable adds nothing
    content.append(b);
    content.append(c);
    EXPECT_EQ(content.size(), 4010u);
    std::vector<std::byte> whole(a);
    whole.insert(whole.end(), b.begin(), b.end());
    whole.insert(whole.end(), c.begin(), c.end());
    EXPECT_EQ(content.crc32(), crc32_of(whole)) << "the CRC of the file written from it";
    for (std::uint64_t offset : {0u, 999u, 1000u, 1005u, 2000u}) {
        std::vector<std::byte> out(2010);
        content.copy_out(offset, out);
        EXPECT_TRUE(std::equal(out.begin(), out.end(), whole.begin() + static_cast<std::ptrdiff_t>(offset)))
            << "offset " << offset;
    }
}

TEST(MemoryContent, ARangePastTheEndIsRefused) {
    const auto a = pattern(100, 7);
    MemoryContent content;
    content.append(a);
    std::vector<std::byte> out(10);
    std::string message = test::error_message(ErrorKind::usage, [&] { content.copy_out(95, out); });
    EXPECT_NE(message.find("of a content of 100 bytes"), std::string::npos) << message;
}

}  // namespace
}  // namespace mlckpt::core
