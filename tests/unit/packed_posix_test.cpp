// POSIX files whose variables are packed ([compression]): what the writer
// records, the reader and verifier on them, damage named down to the
// block, and the metadata lines that describe them.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "expect_error.hpp"
#include "format/checkpoint_meta.hpp"
#include "format/data_extents.hpp"
#include "format/packed_var.hpp"
#include "format/posix/posix_format.hpp"
#include "format/posix/posix_repack.hpp"
#include "hash/crc32.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

using test::error_message;

struct Vars {
    std::vector<double> field = std::vector<double>(60000);
    std::vector<std::uint64_t> noise = std::vector<std::uint64_t>(20000);
    std::vector<int> small = std::vector<int>(10, 7);

    Vars() {
        for (std::size_t i = 0; i < field.size(); ++i) field[i] = 1.0 + std::exp(-static_cast<double>(i) * 1e-4);
        std::mt19937_64 g(3);
        for (auto& v : noise) v = g();
    }
};

FileRecord write_packed(const fs::path& path, const Vars& v, Codec codec) {
    Packing packing;
    packing.codec = codec;
    packing.block_bytes = 64 << 10;
    packing.element_sizes = {{1, sizeof(double)}, {2, sizeof(std::uint64_t)}, {3, sizeof(int)}};
    PosixWriter w(File::create(path), WritePath::page_cache, packing);
    w.add(1, std::as_bytes(std::span(v.field)), "field");
    w.add(2, std::as_bytes(std::span(v.noise)), "");
    w.add(3, std::as_bytes(std::span(v.small)), "");
    return w.finish();
}

// Overwrites one byte of the file at `offset`, in place.
void damage_byte(const fs::path& path, std::uint64_t offset) {
    File f = File::open_update(path);
    const std::byte bad[1] = {std::byte{0x5a}};
    f.write_all_at(bad, offset);
    f.close();
}

template <typename T>
std::vector<T> read_back(const fs::path& path, const VarRecord& var) {
    std::vector<T> out(var.size / sizeof(T));
    read_posix_var(File::open_read(path), var, std::as_writable_bytes(std::span(out)));
    return out;
}

TEST(PackedPosix, RecordsAndReadsBackBitForBit) {
    const Vars v;
    for (Codec codec : {Codec::lz4, Codec::zstd}) {
        test::TempDir dir;
        const fs::path path = dir.path() / "f.fti";
        const FileRecord rec = write_packed(path, v, codec);
        ASSERT_EQ(rec.vars.size(), 3u);
        const VarRecord& field = rec.vars[0];
        EXPECT_TRUE(field.packed());
        EXPECT_EQ(field.size, v.field.size() * sizeof(double));
        EXPECT_LT(field.stored * 10, field.size * 8) << "a smooth field shrinks (its exponent and high mantissa bytes)";
        EXPECT_EQ(field.crc32, crc32_of(std::as_bytes(std::span(v.field)))) << "the CRC of the variable's own bytes";
        EXPECT_EQ(field.elem, sizeof(double));
        EXPECT_TRUE(rec.vars[1].packed());
        EXPECT_LE(rec.vars[1].stored, rec.vars[1].size * 103 / 100) << "random data costs at most 3 %";
        EXPECT_FALSE(rec.vars[2].packed()) << "variables under kMinPackedBytes are stored as they are";
        EXPECT_EQ(rec.vars[1].offset, field.stored);
        EXPECT_EQ(rec.vars[2].offset, field.stored + rec.vars[1].stored);
        EXPECT_EQ(rec.size, fs::file_size(path));
        verify_posix_file(path, rec, 4096);
        EXPECT_EQ(read_back<double>(path, field), v.field);
        EXPECT_EQ(read_back<std::uint64_t>(path, rec.vars[1]), v.noise);
        EXPECT_EQ(read_back<int>(path, rec.vars[2]), v.small);
    }
}

// A variable whose blocks alternate between compressed (smooth) and stored
// as they are (random): the runs of blocks stored as they are are read
// straight into the output, the others decompressed; both readers return
// every byte, and damage in a block read in place is still named.
TEST(PackedPosix, MixedBlocksReadBackBitForBit) {
    constexpr std::size_t kBlock = 64 << 10, kPerBlock = kBlock / sizeof(double);
    std::vector<double> mixed(7 * kPerBlock + 100);
    std::mt19937_64 g(5);
    for (std::size_t i = 0; i < mixed.size(); ++i) {
        const bool random = (i / kPerBlock) % 3 == 1;  // blocks 1, 4 and the short last one, 7
        const std::uint64_t bits = g();                // random bits: incompressible, shuffled or not
        if (random) std::memcpy(&mixed[i], &bits, sizeof bits);
        if (!random) mixed[i] = 2.0 + std::sin(static_cast<double>(i) * 1e-3);
    }
    auto same = [&](const std::vector<double>& back) {
        return back.size() == mixed.size() && std::memcmp(back.data(), mixed.data(), back.size() * sizeof(double)) == 0;
    };
    test::TempDir dir;
    const fs::path path = dir.path() / "f.fti";
    Packing packing;
    packing.codec = Codec::lz4;
    packing.block_bytes = kBlock;
    packing.element_sizes = {{1, sizeof(double)}};
    PosixWriter w(File::create(path), WritePath::page_cache, packing);
    w.add(1, std::as_bytes(std::span(mixed)), "");
    const FileRecord rec = w.finish();
    ASSERT_TRUE(rec.vars[0].packed());
    EXPECT_TRUE(same(read_back<double>(path, rec.vars[0])));
    std::vector<std::byte> streamed;
    stream_packed_var(File::open_read(path), {{0, rec.size}}, rec.vars[0], [&](std::span<const std::byte> piece) {
        streamed.insert(streamed.end(), piece.begin(), piece.end());
    });
    EXPECT_EQ(std::memcmp(streamed.data(), mixed.data(), streamed.size()), 0);
    EXPECT_EQ(streamed.size(), mixed.size() * sizeof(double));

    // Block 4 is stored as it is, after blocks 0, 2 and 3 compressed and 1 as it is.
    std::uint64_t at = 0;
    {
        File in = File::open_read(path);
        std::vector<std::byte> frame(rec.vars[0].stored);
        in.read_exact_at(frame, 0);
        // The raw bytes of block 4 appear in the file as they are.
        const auto* raw = reinterpret_cast<const std::byte*>(mixed.data() + 4 * kPerBlock);
        const auto found = std::search(frame.begin(), frame.end(), raw, raw + 256);
        ASSERT_NE(found, frame.end()) << "block 4 stored as it is";
        at = static_cast<std::uint64_t>(found - frame.begin()) + 1000;  // inside block 4
    }
    damage_byte(path, at);
    const std::string msg = error_message(ErrorKind::corrupt, [&] { read_back<double>(path, rec.vars[0]); });
    EXPECT_NE(msg.find("block 4 of 8"), std::string::npos) << msg;
}

// A rank's data inside a shared file (ckpt_io 2 and 4 carry packed L1
// files into their L4 file as they are): read through the stream's extents.
TEST(PackedPosix, ReadsThroughAStreamOfExtents) {
    const Vars v;
    test::TempDir dir;
    const fs::path path = dir.path() / "f.fti";
    const FileRecord rec = write_packed(path, v, Codec::lz4);
    // The same bytes after a 1000-byte header, in two pieces of a larger file.
    std::vector<char> bytes(rec.size);
    {
        File in = File::open_read(path);
        in.read_exact_at(std::as_writable_bytes(std::span(bytes)), 0);
    }
    const fs::path shared = dir.path() / "shared";
    File out = File::create(shared);
    std::vector<char> header(1000, 'h');
    const std::uint64_t cut = rec.vars[0].stored / 2;
    out.write_all(std::as_bytes(std::span(header)));
    out.write_all(std::as_bytes(std::span(bytes).first(cut)));
    out.write_all(std::as_bytes(std::span(header)));
    out.write_all(std::as_bytes(std::span(bytes).subspan(cut)));
    out.close();
    const Extents extents{{1000, cut}, {2000 + cut, rec.size - cut}};
    std::vector<double> field(v.field.size());
    read_checked_var(File::open_read(shared), extents, rec.vars[0], std::as_writable_bytes(std::span(field)));
    EXPECT_EQ(field, v.field);
}

TEST(PackedPosix, DamageAndTruncationAreNamed) {
    const Vars v;
    test::TempDir dir;
    const fs::path path = dir.path() / "f.fti";
    const FileRecord rec = write_packed(path, v, Codec::zstd);
    damage_byte(path, rec.vars[1].offset + 100000);  // a block of the random variable
    std::string msg = error_message(ErrorKind::corrupt, [&] { read_back<std::uint64_t>(path, rec.vars[1]); });
    EXPECT_NE(msg.find("variable 2 in '" + path.string() + "': block 1 of 3"), std::string::npos) << msg;
    msg = error_message(ErrorKind::corrupt, [&] { verify_posix_file(path, rec, 4096); });
    EXPECT_NE(msg.find("fails its checksum"), std::string::npos) << msg;
    EXPECT_EQ(read_back<double>(path, rec.vars[0]), v.field) << "the other variables still read";

    ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(rec.vars[0].stored - 10)), 0);
    msg = error_message(ErrorKind::corrupt, [&] { verify_posix_file(path, rec, 4096); });
    EXPECT_NE(msg.find("(truncated)"), std::string::npos) << msg;
    msg = error_message(ErrorKind::corrupt, [&] { read_back<double>(path, rec.vars[0]); });
    EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
}

// Metadata that says a variable is packed where its bytes are not, or of
// another size than its frame holds, is refused by the frame's checks.
TEST(PackedPosix, MetadataThatDisagreesWithTheFrameIsRefused) {
    const Vars v;
    test::TempDir dir;
    const fs::path path = dir.path() / "f.fti";
    const FileRecord rec = write_packed(path, v, Codec::lz4);
    VarRecord lie = rec.vars[0];
    lie.stored -= 8;  // the frame's end moves into its table
    EXPECT_NE(error_message(ErrorKind::corrupt, [&] { read_back<double>(path, lie); }).find("not a valid compressed"),
              std::string::npos);
    lie = rec.vars[0];
    lie.size -= 8;
    std::vector<double> out(lie.size / sizeof(double));
    const std::string msg = error_message(ErrorKind::corrupt, [&] {
        read_posix_var(File::open_read(path), lie, std::as_writable_bytes(std::span(out)));
    });
    EXPECT_NE(msg.find("its metadata says " + std::to_string(lie.size)), std::string::npos) << msg;
    lie = rec.vars[2];
    lie.stored = lie.size;  // stored as it is, but said packed
    EXPECT_NE(error_message(ErrorKind::corrupt, [&] { read_back<int>(path, lie); }).find("variable 3"),
              std::string::npos);
}

// A copy for a level that stores files otherwise: none -> lz4 -> zstd ->
// none, each read back bit for bit; the element sizes carry over.
TEST(PackedPosix, RepackedCopiesReadBackBitForBit) {
    const Vars v;
    test::TempDir dir;
    fs::path source = dir.path() / "a" / "f.fti";
    fs::create_directories(source.parent_path());
    Packing plain;
    plain.element_sizes = {{1, sizeof(double)}, {2, sizeof(std::uint64_t)}, {3, sizeof(int)}};
    FileRecord rec;
    {
        PosixWriter w(File::create(source), WritePath::page_cache, plain);
        w.add(1, std::as_bytes(std::span(v.field)), "field");
        w.add(2, std::as_bytes(std::span(v.noise)), "");
        w.add(3, std::as_bytes(std::span(v.small)), "");
        rec = w.finish();
        rec.file = "f.fti";
        rec.rank = 5;
    }
    int step = 0;
    for (Codec codec : {Codec::lz4, Codec::zstd, Codec::none}) {
        const fs::path target_dir = dir.path() / ("c" + std::to_string(step++));
        fs::create_directories(target_dir);
        Packing packing;
        packing.codec = codec;
        packing.block_bytes = 16 << 10;
        const FileRecord copy = repack_posix_file(source, rec, Directory::open(target_dir), packing, 5000);
        const fs::path path = target_dir / "f.fti";
        EXPECT_EQ(copy.file, "f.fti");
        EXPECT_EQ(copy.rank, 5);
        EXPECT_EQ(copy.vars[0].packed(), codec != Codec::none);
        EXPECT_EQ(copy.vars[0].elem, sizeof(double));
        EXPECT_EQ(copy.vars[0].crc32, rec.vars[0].crc32);
        EXPECT_FALSE(fs::exists(target_dir / "f.fti.tmp"));
        verify_posix_file(path, copy, 4096);
        EXPECT_EQ(read_back<double>(path, copy.vars[0]), v.field);
        EXPECT_EQ(read_back<std::uint64_t>(path, copy.vars[1]), v.noise);
        EXPECT_EQ(read_back<int>(path, copy.vars[2]), v.small);
        source = path;
        rec = copy;
    }
}

// A damaged source is named, and no copy is left.
TEST(PackedPosix, RepackOfADamagedFileLeavesNoCopy) {
    const Vars v;
    test::TempDir dir;
    const fs::path source = dir.path() / "f.fti";
    const FileRecord rec = write_packed(source, v, Codec::lz4);
    damage_byte(source, rec.vars[0].offset + 10);
    const fs::path target = dir.path() / "copy";
    fs::create_directories(target);
    const std::string msg = error_message(
        ErrorKind::corrupt, [&] { repack_posix_file(source, rec, Directory::open(target), Packing{}, 4096); });
    EXPECT_NE(msg.find("variable 1 in '" + source.string() + "': block 0 of"), std::string::npos) << msg;
    EXPECT_TRUE(fs::is_empty(target));
}

TEST(PackedPosix, MetadataLinesRoundTrip) {
    const Vars v;
    test::TempDir dir;
    FileRecord rec = write_packed(dir.path() / "f.fti", v, Codec::lz4);
    rec.file = "f.fti";
    const std::string text = serialize_file_record(rec);
    EXPECT_NE(text.find("\nELEM 8\nPACKED " + std::to_string(rec.vars[0].stored) + "\n"), std::string::npos) << text;
    const FileRecord back = parse_file_record(text, "test");
    ASSERT_EQ(back.vars.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(back.vars[i].stored, rec.vars[i].stored);
        EXPECT_EQ(back.vars[i].elem, rec.vars[i].elem);
    }
    auto refused = [](const std::string& lines) {
        const std::string t =
            "FILE f\nRANK 0\nHOLDER 0\nNODE 0\nTYPE FULL\nCOMPLETE 1\nSIZE 8\nCRC 0x00000000\n" + lines + "END_FILE\n";
        return error_message(ErrorKind::corrupt, [&] { parse_file_record(t, "test"); });
    };
    EXPECT_NE(refused("PACKED 5\n").find("PACKED without its VAR record"), std::string::npos);
    EXPECT_NE(refused("VAR 1 OFFSET 0 SIZE 8 CRC 0x00000000\nPACKED 0\n").find("PACKED 0"), std::string::npos);
    EXPECT_NE(refused("VAR 1 OFFSET 0 SIZE 8 CRC 0x00000000\nPACKED 5\nPACKED 5\n").find("given twice"),
              std::string::npos);
    EXPECT_NE(refused("VAR 1 OFFSET 0 SIZE 8 CRC 0x00000000\nELEM x\n").find("invalid number"), std::string::npos);
}

}  // namespace
}  // namespace mlckpt::core
