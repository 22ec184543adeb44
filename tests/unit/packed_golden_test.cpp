// The packed (compressed) variable format against a reader and a writer
// that the library did not write: packed_format.py, the test's own, written
// from docs/formats.md with Python's standard library.
// - data/packed_golden.fti is what packed_format.py writes (its
//   check-golden test keeps it so): the library's readers decode it to
//   the bytes this test computes by its own formulas, the same as the
//   script's.
// - PackedGolden.LibraryWritesAFileForThePythonReader writes a file with
//   the library, which packed_format.py check-library reads and checks
//   field by field (with MLCKPT_PACKED_GOLDEN_OUT, the directory it writes
//   into).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

#include "compress/packed_frame.hpp"
#include "format/checkpoint_meta.hpp"
#include "format/data_extents.hpp"
#include "format/packed_var.hpp"
#include "format/posix/posix_format.hpp"
#include "hash/crc32.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core {
namespace {

void put_le(std::vector<std::byte>& out, std::uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::byte>(value >> (8 * i)));
}

// 875 u32: xorshift32 noise for elements 256 to 511, else 0x3f800000 + 977 i.
std::vector<std::byte> variable_1() {
    std::vector<std::byte> out;
    std::uint32_t state = 0x9e3779b9;
    for (std::uint32_t i = 0; i < 875; ++i) {
        std::uint32_t value = 0x3f800000 + 977 * i;
        if (i >= 256 && i < 512) {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            value = state;
        }
        put_le(out, value, 4);
    }
    return out;
}

// 40 bytes: (37 k + 11) mod 256.
std::vector<std::byte> variable_2() {
    std::vector<std::byte> out;
    for (unsigned k = 0; k < 40; ++k) out.push_back(static_cast<std::byte>((37 * k + 11) % 256));
    return out;
}

// 137 u64: j * 0x0101010101010101 xor 0x0123456789abcdef.
std::vector<std::byte> variable_3() {
    std::vector<std::byte> out;
    for (std::uint64_t j = 0; j < 137; ++j) put_le(out, j * 0x0101010101010101ULL ^ 0x0123456789abcdefULL, 8);
    return out;
}

VarRecord record(int id, std::uint64_t offset, std::uint64_t size, std::uint64_t stored, std::uint32_t crc) {
    VarRecord v;
    v.id = id;
    v.offset = offset;
    v.size = size;
    v.stored = stored;
    v.crc32 = crc;
    return v;
}

std::vector<std::byte> read_bytes(const File& file, std::uint64_t offset, std::size_t n) {
    std::vector<std::byte> out(n);
    file.read_exact_at(out, offset);
    return out;
}

// The blocks of the frame of `var`, through the library's parsers.
std::pair<PackedTrailer, std::vector<PackedBlock>> frame_of(const File& file, const VarRecord& var) {
    const auto trailer_bytes = read_bytes(file, var.offset + var.stored - kPackedTrailerBytes, kPackedTrailerBytes);
    const PackedTrailer trailer = parse_packed_trailer(trailer_bytes, var.stored, "golden");
    const auto table = read_bytes(file, var.offset + var.stored - kPackedTrailerBytes - trailer.table_bytes(),
                                  static_cast<std::size_t>(trailer.table_bytes()));
    return {trailer, parse_packed_table(trailer, table, var.stored, "golden")};
}

std::vector<bool> as_is(const std::vector<PackedBlock>& blocks) {
    std::vector<bool> out;
    for (const PackedBlock& b : blocks) out.push_back(b.as_is());
    return out;
}

TEST(PackedGolden, ReadsTheFileOfTheTestsOwnWriter) {
    const fs::path path = fs::path(MLCKPT_TEST_DATA_DIR) / "packed_golden.fti";
    // What packed_format.py write prints; the CRCs are zlib's, of the
    // variables' bytes.
    const VarRecord vars[] = {record(1, 0, 3500, 2518, 0x55f5d492), record(2, 2518, 40, 0, 0x837e7e78),
                              record(3, 2558, 1096, 1152, 0xcee97701)};
    const std::vector<std::byte> expected[] = {variable_1(), variable_2(), variable_3()};
    const File file = File::open_read(path);
    ASSERT_EQ(file.size(), 3710u);
    EXPECT_EQ(crc32_of(read_bytes(file, 0, 3710)), 0x0e3cbd3eu) << "the golden file is not the committed one";

    for (std::size_t i = 0; i < 3; ++i) {
        const VarRecord& var = vars[i];
        SCOPED_TRACE("variable " + std::to_string(var.id));
        ASSERT_EQ(expected[i].size(), var.size);
        ASSERT_EQ(crc32_of(expected[i]), var.crc32) << "the formulas differ from packed_format.py's";
        std::vector<std::byte> out(var.size);
        read_posix_var(file, var, out);
        EXPECT_TRUE(out == expected[i]);
        if (!var.packed()) continue;
        std::vector<std::byte> streamed;
        stream_packed_var(file, Extents{{0, file.size()}}, var, [&](std::span<const std::byte> piece) {
            streamed.insert(streamed.end(), piece.begin(), piece.end());
        });
        EXPECT_TRUE(streamed == expected[i]);
    }

    // The frames hold what the script says it wrote: variable 1 LZ4 blocks
    // of 1024 bytes, the noise stored as it is; variable 3 Zstandard
    // blocks of 512 bytes, all stored as they are.
    const auto [t1, b1] = frame_of(file, vars[0]);
    EXPECT_EQ(t1.codec, Codec::lz4);
    EXPECT_EQ(t1.unit, 4);
    EXPECT_EQ(t1.block_bytes, 1024u);
    EXPECT_EQ(as_is(b1), (std::vector<bool>{false, true, false, false}));
    const auto [t3, b3] = frame_of(file, vars[2]);
    EXPECT_EQ(t3.codec, Codec::zstd);
    EXPECT_EQ(t3.unit, 8);
    EXPECT_EQ(t3.block_bytes, 512u);
    EXPECT_EQ(as_is(b3), (std::vector<bool>{true, true, true}));
}

// Writes library.fti (the three variables above, LZ4 blocks of 1024 bytes)
// and library.rec (its record: 'FILE size crc' and 'VAR id offset size
// stored crc elem' lines) for packed_format.py check-library.
TEST(PackedGolden, LibraryWritesAFileForThePythonReader) {
    test::TempDir scratch;
    const char* out_dir = std::getenv("MLCKPT_PACKED_GOLDEN_OUT");
    const fs::path dir = out_dir != nullptr && *out_dir != '\0' ? fs::path(out_dir) : scratch.path();
    const std::vector<std::byte> vars[] = {variable_1(), variable_2(), variable_3()};
    Packing packing;
    packing.codec = Codec::lz4;
    packing.block_bytes = 1024;
    packing.element_sizes = {{1, 4}, {2, 1}, {3, 8}};
    PosixWriter writer(File::create(dir / "library.fti"), WritePath::page_cache, packing);
    for (int id = 1; id <= 3; ++id) writer.add(id, vars[id - 1], "");
    const FileRecord rec = writer.finish();

    std::ofstream out(dir / "library.rec");
    out << "FILE " << rec.size << " " << crc32_hex(rec.crc32) << "\n";
    for (const VarRecord& v : rec.vars) {
        out << "VAR " << v.id << " " << v.offset << " " << v.size << " " << v.stored << " " << crc32_hex(v.crc32) << " "
            << v.elem << "\n";
    }
    out.close();
    ASSERT_TRUE(out.good());

    // The library reads it back, and it is what the script expects to read.
    ASSERT_EQ(rec.vars.size(), 3u);
    EXPECT_TRUE(rec.vars[0].packed());
    EXPECT_FALSE(rec.vars[1].packed());
    EXPECT_TRUE(rec.vars[2].packed());
    const File file = File::open_read(dir / "library.fti");
    for (std::size_t i = 0; i < 3; ++i) {
        std::vector<std::byte> back(rec.vars[i].size);
        read_posix_var(file, rec.vars[i], back);
        EXPECT_TRUE(back == vars[i]) << "variable " << rec.vars[i].id;
    }
}

}  // namespace
}  // namespace mlckpt::core
