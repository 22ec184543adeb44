// Reads and writes with hashing on a worker thread: every piece reaches the
// hash once and in order, a read piece is hashed only once it is read, and
// a failure on either side stops both and reaches the caller (no hang, no
// thread left behind).
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "expect_error.hpp"
#include "hash/crc32.hpp"
#include "io/file.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

std::vector<std::byte> pattern(std::size_t n) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131) >> 3);
    return v;
}

constexpr std::size_t kBytes = (40u << 20) + 12345;  // five pieces and a partial one

TEST(OverlappedIo, ReadHashesEveryPieceInOrderOnceItIsRead) {
    test::TempDir dir;
    const auto data = pattern(kBytes);
    {
        File f = File::create(dir.path() / "f");
        f.write_all_at(data, 0);
    }
    File f = File::open_read(dir.path() / "f");
    std::vector<std::byte> out(kBytes, std::byte{0});
    Crc32 seen;
    bool all_read = true;
    read_overlapped(f, 0, out, [&](std::span<const std::byte> piece) {
        // The piece is whole in memory when the hash gets it.
        std::size_t at = static_cast<std::size_t>(piece.data() - out.data());
        all_read = all_read && std::equal(piece.begin(), piece.end(), data.begin() + static_cast<std::ptrdiff_t>(at));
        seen.update(piece);
    });
    EXPECT_TRUE(all_read);
    EXPECT_TRUE(out == data);
    EXPECT_EQ(seen.value(), crc32_of(data));
}

TEST(OverlappedIo, WriteHashesEveryPieceInOrder) {
    test::TempDir dir;
    const auto data = pattern(kBytes);
    File f = File::create(dir.path() / "f");
    Crc32 seen;
    write_overlapped(f, 100, data, [&](std::span<const std::byte> piece) { seen.update(piece); });
    f.close();
    EXPECT_EQ(seen.value(), crc32_of(data));
    File back = File::open_read(dir.path() / "f");
    std::vector<std::byte> out(kBytes);
    back.read_exact_at(out, 100);
    EXPECT_TRUE(out == data);
}

TEST(OverlappedIo, TruncatedReadFailsAndNothingUnreadIsHashed) {
    test::TempDir dir;
    const auto data = pattern(kBytes);
    const std::size_t present = (20u << 20) + 7;  // the file ends inside the third piece
    {
        File f = File::create(dir.path() / "f");
        f.write_all_at(std::span(data).first(present), 0);
    }
    File f = File::open_read(dir.path() / "f");
    std::vector<std::byte> out(kBytes);
    std::atomic<std::size_t> hashed{0};
    std::string message = test::error_message(ErrorKind::corrupt, [&] {
        read_overlapped(f, 0, out, [&](std::span<const std::byte> piece) { hashed += piece.size(); });
    });
    EXPECT_NE(message.find("is truncated"), std::string::npos) << message;
    EXPECT_LE(hashed.load(), present) << "only bytes that were read reach the hash";
}

TEST(OverlappedIo, FailingHashStopsTheWritesAndIsRethrown) {
    test::TempDir dir;
    const auto data = pattern(kBytes);
    File f = File::create(dir.path() / "f");
    int calls = 0;
    EXPECT_THROW(write_overlapped(f, 0, data,
                                  [&](std::span<const std::byte>) {
                                      if (++calls == 2) throw std::runtime_error("hash failed");
                                  }),
                 std::runtime_error);
    EXPECT_EQ(calls, 2) << "no piece is hashed after the failure";
}

TEST(OverlappedIo, FailingWriteIsRethrownWithItsReason) {
    test::TempDir dir;
    const auto data = pattern(kBytes);
    { File created = File::create(dir.path() / "f"); }
    File read_only = File::open_read(dir.path() / "f");  // writes fail with EBADF
    std::string message = test::error_message(
        ErrorKind::io, [&] { write_overlapped(read_only, 0, data, [](std::span<const std::byte>) {}); });
    EXPECT_NE(message.find(dir.path().string()), std::string::npos) << message;
}

}  // namespace
}  // namespace mlckpt::core
