// Reading a rank's data through extents (format/data_extents): pieces of a
// stream spread over a file, as in a container task's chunks or an MPI-IO
// slice; and the memory stream the shared files are written from.
#include "format/data_extents.hpp"

#include <gtest/gtest.h>

#include "expect_error.hpp"
#include "format/shared/shared_file.hpp"
#include "hash/crc32.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

using mlckpt::test::error_message;
using mlckpt::test::TempDir;

TEST(DataExtents, SubExtentsCrossPieceBoundaries) {
    Extents e = {{100, 10}, {500, 5}, {1000, 20}};
    EXPECT_EQ(total_length(e), 35u);
    Extents s = sub_extents(e, 8, 10);  // 2 bytes of the first, all 5 of the second, 3 of the third
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].offset, 108u);
    EXPECT_EQ(s[0].length, 2u);
    EXPECT_EQ(s[1].offset, 500u);
    EXPECT_EQ(s[1].length, 5u);
    EXPECT_EQ(s[2].offset, 1000u);
    EXPECT_EQ(s[2].length, 3u);
    EXPECT_TRUE(sub_extents(e, 35, 0).empty());
    std::string message = error_message(ErrorKind::corrupt, [&] { sub_extents(e, 30, 6); });
    EXPECT_NE(message.find("the data holds 35 bytes, fewer than 36"), std::string::npos) << message;
}

TEST(DataExtents, VariablesAreReadAndCheckedThroughTheExtents) {
    TempDir dir;
    fs::path path = dir.path() / "f";
    std::vector<std::byte> bytes(4096);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>(i * 13);
    File out = File::create(path);
    out.write_all(bytes);
    out.close();
    File file = File::open_read(path);
    Extents e = {{1000, 100}, {3000, 100}};  // a 200-byte stream in two pieces
    std::vector<std::byte> expected(bytes.begin() + 1090, bytes.begin() + 1100);
    expected.insert(expected.end(), bytes.begin() + 3000, bytes.begin() + 3020);
    VarRecord var{7, 90, 30, crc32_of(expected), "", ""};
    std::vector<std::byte> got(30);
    read_checked_var(file, e, var, got);
    EXPECT_EQ(got, expected);
    std::vector<std::byte> stream(bytes.begin() + 1000, bytes.begin() + 1100);
    stream.insert(stream.end(), bytes.begin() + 3000, bytes.begin() + 3100);
    EXPECT_EQ(crc32_of_extents(file, e, 64), crc32_of(stream));
    var.crc32 ^= 1;
    std::string message = error_message(ErrorKind::corrupt, [&] { read_checked_var(file, e, var, got); });
    EXPECT_NE(
        message.find("variable 7 in '" + path.string() + "' (bytes 90..120 of its rank's data) fails its checksum"),
        std::string::npos)
        << message;
}

TEST(SpanStream, GivesEveryBufferInPiecesWithoutEmptyOnes) {
    std::vector<std::byte> a(10), b(0), c(7);
    SpanStream s;
    s.append(a);
    s.append(b);
    s.append(c);
    std::vector<std::size_t> sizes;
    for (auto piece = s.next(4); !piece.empty(); piece = s.next(4)) sizes.push_back(piece.size());
    EXPECT_EQ(sizes, (std::vector<std::size_t>{4, 4, 2, 4, 3}));
}

}  // namespace
}  // namespace mlckpt::core
