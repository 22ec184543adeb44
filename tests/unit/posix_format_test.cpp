#include "format/posix/posix_format.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <numeric>

#include "common/error.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

TEST(PosixFormat, WriteVerifyReadBack) {
    test::TempDir dir;
    fs::path path = dir.path() / "f.fti";
    std::vector<int> a(1000);
    std::iota(a.begin(), a.end(), 0);
    std::vector<double> b(7, 3.5);
    PosixWriter w(path);
    w.add(1, std::as_bytes(std::span(a)), "a");
    w.add(2, std::as_bytes(std::span(b)), "");
    w.add(3, {}, "");
    FileRecord rec = w.finish();
    EXPECT_EQ(rec.size, a.size() * sizeof(int) + b.size() * sizeof(double));
    EXPECT_TRUE(rec.complete);
    EXPECT_EQ(rec.vars[1].offset, a.size() * sizeof(int));
    Crc32 whole;  // the file CRC covers every variable's bytes in order
    whole.update(std::as_bytes(std::span(a)));
    whole.update(std::as_bytes(std::span(b)));
    EXPECT_EQ(rec.crc32, whole.value());
    EXPECT_EQ(rec.vars[0].crc32, crc32_of(std::as_bytes(std::span(a))));
    verify_posix_file(path, rec, 100);

    std::vector<double> back(7);
    File f = File::open_read(path);
    read_posix_var(f, rec.vars[1], std::as_writable_bytes(std::span(back)));
    EXPECT_EQ(back, b);
}

TEST(PosixFormat, CorruptionTruncationAreNamed) {
    test::TempDir dir;
    fs::path path = dir.path() / "f.fti";
    std::vector<char> data(5000, 'x');
    PosixWriter w(path);
    w.add(0, std::as_bytes(std::span(data)), "");
    FileRecord rec = w.finish();

    // Overwrite one byte in place: same size, wrong CRC.
    FILE* f = std::fopen(path.c_str(), "r+");
    std::fseek(f, 2500, SEEK_SET);
    std::fputc('y', f);
    std::fclose(f);
    try {
        verify_posix_file(path, rec, 1024);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::corrupt);
        EXPECT_NE(std::string(e.what()).find("fails its checksum"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos);
    }
    std::vector<char> back(5000);
    File in = File::open_read(path);
    try {
        read_posix_var(in, rec.vars[0], std::as_writable_bytes(std::span(back)));
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("variable 0"), std::string::npos);
    }

    ASSERT_EQ(::truncate(path.c_str(), 100), 0);
    try {
        verify_posix_file(path, rec, 1024);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("has 100 bytes, its metadata says 5000 (truncated)"), std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace mlckpt::core
