#include "inspect.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "format/checkpoint_meta.hpp"
#include "format/ftiff/ftiff_file.hpp"
#include "format/posix/posix_format.hpp"
#include "json.hpp"
#include "temp_dir.hpp"

namespace mlckpt::tools {
namespace {

using namespace mlckpt::core::ftiff;

// Checkpoint 1 of the specification's example, with its exact sizes.
std::string write_example(const mlckpt::test::TempDir& dir, std::vector<std::vector<std::int32_t>>& arrays) {
    arrays = {std::vector<std::int32_t>(1000000, 1), std::vector<std::int32_t>(2000000, 2),
              std::vector<std::int32_t>(3000000, 3)};
    Layout layout;
    std::vector<VariableExtent> extents;
    std::vector<VariableData> data;
    for (int id = 1; id <= 3; ++id) {
        const auto& a = arrays[static_cast<std::size_t>(id - 1)];
        extents.push_back({id, static_cast<std::int64_t>(a.size() * 4)});
        data.push_back({id, std::as_bytes(std::span(a))});
    }
    layout.update(extents);
    std::string path = (dir.path() / "Ckpt1-Rank0.fti").string();
    write_file(path, layout, data, 0, 0, 7);
    return path;
}

TEST(Inspect, PrintsTheFileAndVerifiesIt) {
    mlckpt::test::TempDir dir;
    std::vector<std::vector<std::int32_t>> arrays;
    std::string path = write_example(dir, arrays);
    std::ostringstream out, err;
    ASSERT_EQ(inspect({path}, out, err), 0) << err.str();
    std::string text = out.str();
    for (const char* expected : {"DATASTRUCTURE BEGIN", "dbsize: 24000204", "[size metadata: 204]", "fptr: 300",
                                 "fptr: 4000300", "fptr: 12000300", "containersize: 12000000", "fs:        24000300",
                                 "version:   1 (chunk hash: MD5 of the chunk)",
                                 "verified: file block hash, block records checksum, 3 chunk MD5s"}) {
        EXPECT_NE(text.find(expected), std::string::npos) << expected;
    }
    std::ostringstream json, err2;
    ASSERT_EQ(inspect({"--json", path}, json, err2), 0);
    EXPECT_NE(json.str().find("\"fptr\": 12000300, \"chunksize\": 12000000"), std::string::npos) << json.str();
    EXPECT_NE(json.str().find("\"verified\": {\"chunks\": 3}"), std::string::npos);
    EXPECT_NE(json.str().find("\"version\": 1, \"hashBlock\": 0"), std::string::npos);
}

// An L4 differential file (version 2) says how its chunks are hashed.
TEST(Inspect, ShowsTheBlockHashOfVersion2) {
    mlckpt::test::TempDir dir;
    std::vector<std::int32_t> values(5000, 7);
    Layout layout;
    layout.update({{1, static_cast<std::int64_t>(values.size() * 4)}});
    std::string path = (dir.path() / "dCP-Rank0.fti").string();
    {
        Writer w(mlckpt::core::File::create(path), layout, 4096);
        w.add(1, std::as_bytes(std::span(values)));
        w.finish(0, 0, 1);
    }
    std::ostringstream out, err;
    ASSERT_EQ(inspect({path}, out, err), 0) << err.str();
    EXPECT_NE(out.str().find("version:   2 (chunk hash: MD5 of the CRC-32s of 4096-byte blocks)"), std::string::npos)
        << out.str();
    EXPECT_NE(out.str().find("1 chunk block hashes (4096-byte blocks)"), std::string::npos) << out.str();
    std::ostringstream json, err2;
    ASSERT_EQ(inspect({"--json", path}, json, err2), 0);
    EXPECT_NE(json.str().find("\"version\": 2, \"hashBlock\": 4096"), std::string::npos) << json.str();
}

TEST(Inspect, DamagedFileExitsOneNamingTheChunk) {
    mlckpt::test::TempDir dir;
    std::vector<std::vector<std::int32_t>> arrays;
    std::string path = write_example(dir, arrays);
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(12000300 + 123);
        f.put('\x7f');
    }
    std::ostringstream out, err;
    EXPECT_EQ(inspect({path}, out, err), 1);
    EXPECT_NE(err.str().find("variable 3: the chunk at file offset 12000300"), std::string::npos) << err.str();
    std::ostringstream out2, err2;
    EXPECT_EQ(inspect({(dir.path() / "missing.fti").string()}, out2, err2), 1);
    EXPECT_NE(err2.str().find("cannot open"), std::string::npos);
}

// A POSIX checkpoint file has no header: inspect says what it is and names
// the metadata file that describes it.
TEST(Inspect, PosixFileNamesItsMetadata) {
    mlckpt::test::TempDir dir;
    const auto ckpt = dir.path() / "ckpt" / "node0" / "exec-1" / "l1" / "ckpt3";
    std::filesystem::create_directories(ckpt);
    const std::string path = (ckpt / "Ckpt2-Rank1.fti").string();
    std::ofstream(path) << std::string(200, 'x');
    std::ostringstream out, err;
    EXPECT_EQ(inspect({path}, out, err), 1);
    EXPECT_EQ(out.str(), "");
    for (const char* expected : {"neither an FTI-FF file (no 'MLFF' magic in a 96-byte file block) nor a container",
                                 "the data file of rank 1 in checkpoint 2", "POSIX (ckpt_io = 1) checkpoint file",
                                 "no description of its own", "<meta_dir>/exec-1/ckpt3.l1.meta"}) {
        EXPECT_NE(err.str().find(expected), std::string::npos) << expected << "\n" << err.str();
    }
    // Elsewhere and under another name, only what it is not.
    const std::string other = (dir.path() / "data.bin").string();
    std::ofstream(other) << "short";
    std::ostringstream out2, err2;
    EXPECT_EQ(inspect({other}, out2, err2), 1);
    EXPECT_NE(err2.str().find("is neither an FTI-FF file"), std::string::npos) << err2.str();
    EXPECT_EQ(err2.str().find("POSIX"), std::string::npos) << err2.str();
}

// An HDF5 checkpoint file (FTI's name, ".h5") is named as one, with its metadata.
TEST(Inspect, Hdf5FileNamesItsMetadata) {
    mlckpt::test::TempDir dir;
    const auto ckpt = dir.path() / "ckpt" / "node0" / "exec-1" / "l2" / "ckpt4";
    std::filesystem::create_directories(ckpt);
    const std::string path = (ckpt / "Ckpt2-Pcof3.h5").string();
    std::ofstream(path) << std::string(200, 'x');
    std::ostringstream out, err;
    EXPECT_EQ(inspect({path}, out, err), 1);
    for (const char* expected : {"the partner copy that rank 3 keeps of its left neighbour's data file in checkpoint 2",
                                 "HDF5 (ckpt_io = 5) checkpoint file", "<meta_dir>/exec-1/ckpt4.l2.meta"}) {
        EXPECT_NE(err.str().find(expected), std::string::npos) << expected << "\n" << err.str();
    }
    EXPECT_EQ(err.str().find("POSIX"), std::string::npos) << err.str();
    // In the level's directory, as FTI keeps it, the metadata is the one with its id.
    const std::string flat = (ckpt.parent_path() / "Ckpt2-Rank3.fti").string();
    std::ofstream(flat) << std::string(200, 'x');
    std::ostringstream out2, err2;
    EXPECT_EQ(inspect({flat}, out2, err2), 1);
    EXPECT_NE(err2.str().find("<meta_dir>/exec-1/ckpt<seq>.l2.meta, the one whose CKPT is 2"), std::string::npos)
        << err2.str();
}

// Whatever bytes a file holds, the tool prints no control byte and its
// --json output is ASCII (valid UTF-8) JSON.
TEST(Inspect, HostileBytesAreEscaped) {
    mlckpt::test::TempDir dir;
    std::vector<std::vector<std::int32_t>> arrays;
    std::string path = write_example(dir, arrays);
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(0);
        const char hostile[] = "\x1b[2J\xff\xfe\x80\"\\";
        f.write(hostile, sizeof hostile - 1);  // over the file block's checksum
    }
    for (const char* flag : {"", "--json"}) {
        std::ostringstream out, err;
        std::vector<std::string> args = {path};
        if (*flag != '\0') args.insert(args.begin(), flag);
        inspect(args, out, err);
        for (const std::string& text : {out.str(), err.str()}) {
            for (char c : text) {
                const auto byte = static_cast<unsigned char>(c);
                EXPECT_TRUE(c == '\n' || (byte >= 0x20 && byte < 0x7f))
                    << "byte " << static_cast<int>(byte) << " in " << flag << " output";
            }
        }
    }
    EXPECT_EQ(json_string("a\x1b\xff\""), "\"a\\u001b\\u00ff\\\"\"");
    EXPECT_EQ(shown("a\x1b\xff\\"), "a\\x1b\\xff\\\\");
}

// A POSIX file of a compressed level (a smooth field, random words, a
// small variable), and the metadata of its checkpoint, which --meta reads.
struct DescribedFile {
    mlckpt::test::TempDir dir;
    std::string path = (dir.path() / "Ckpt5-Rank0.fti").string();
    std::string meta = (dir.path() / "ckpt7.l4.meta").string();
    core::FileRecord record;

    DescribedFile() {
        std::vector<double> field(60000);
        for (std::size_t i = 0; i < field.size(); ++i) field[i] = 1.0 + std::exp(-static_cast<double>(i) * 1e-4);
        std::vector<std::uint64_t> noise(20000);
        std::mt19937_64 g(3);
        for (auto& v : noise) v = g();
        const std::vector<int> small(10, 7);
        core::Packing packing;
        packing.codec = core::Codec::lz4;
        packing.block_bytes = 64 << 10;
        packing.element_sizes = {{1, sizeof(double)}, {2, sizeof(std::uint64_t)}, {3, sizeof(int)}};
        core::PosixWriter w(core::File::create(path), core::WritePath::page_cache, packing);
        w.add(1, std::as_bytes(std::span(field)), "field");
        w.add(2, std::as_bytes(std::span(noise)), "");
        w.add(3, std::as_bytes(std::span(small)), "");
        record = w.finish();
        write_meta();
    }
    void write_meta() const {
        core::CheckpointMeta m;
        m.exec_id = "exec-1";
        m.ckpt_id = 5;
        m.seq = 7;
        m.level = 4;
        m.ranks = 1;
        m.complete = true;
        m.files = {record};
        std::ofstream(meta) << core::serialize_meta(m);
    }
};

// --meta: each variable of a POSIX file, and of a packed one its codec,
// blocks and the blocks stored as they are; every byte checked.
TEST(Inspect, PackedVariablesThroughTheMetadata) {
    const DescribedFile f;
    std::ostringstream out, err;
    ASSERT_EQ(inspect({"--meta", f.meta, f.path}, out, err), 0) << err.str();
    const std::string text = out.str();
    for (const char* expected :
         {"POSIX checkpoint file: ", "checkpoint: 5 (sequence 7, L4, execution exec-1)", "FULL data of rank 0",
          "  1  0  480000  ", "  lz4  8x65536  0  ", "field\n", "  lz4  3x65536  3  ", "  3  ", "  none  -  -  ",
          "verified: size and CRC-32 of the file, every variable's CRC-32 (packed ones: every "
          "block's, then the decompressed bytes)"}) {
        EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
    }
    std::ostringstream jout, jerr;
    ASSERT_EQ(inspect({"--json", "--meta", f.meta, f.path}, jout, jerr), 0) << jerr.str();
    for (const char* expected : {"\"format\": \"POSIX\"",
                                 "\"codec\": \"lz4\", \"blockSize\": 65536, \"blocks\": 8, "
                                 "\"blocksAsIs\": 0",
                                 "\"blocksAsIs\": 3",
                                 "\"verified\": {\"file\": true, "
                                 "\"variables\": true}"}) {
        EXPECT_NE(jout.str().find(expected), std::string::npos) << expected << "\n" << jout.str();
    }
}

// A damaged block is named (the file's own CRC-32 made to agree, so that
// the block's check is the one that finds it); a file the metadata does not
// list, and damage the file's CRC-32 finds, are refused with a message.
TEST(Inspect, DamageThroughTheMetadataIsNamed) {
    DescribedFile f;
    std::ostringstream out, err;
    EXPECT_EQ(inspect({"--meta", f.meta, (f.dir.path() / "Ckpt5-Rank1.fti").string()}, out, err), 1);
    EXPECT_NE(err.str().find("has no file named 'Ckpt5-Rank1.fti'"), std::string::npos) << err.str();
    {
        std::fstream file(f.path, std::ios::in | std::ios::out | std::ios::binary);
        file.seekp(static_cast<std::streamoff>(f.record.vars[1].offset + 100000));
        file.put('\x5a');
    }
    std::ostringstream out2, err2;
    EXPECT_EQ(inspect({"--meta", f.meta, f.path}, out2, err2), 1);
    EXPECT_NE(err2.str().find("fails its checksum"), std::string::npos) << err2.str();
    f.record.crc32 = core::crc32_of_file(f.path, 4096);
    f.write_meta();
    std::ostringstream out3, err3;
    EXPECT_EQ(inspect({"--meta", f.meta, f.path}, out3, err3), 1);
    EXPECT_NE(err3.str().find("variable 2 in '" + f.path + "': block 1 of 3"), std::string::npos) << err3.str();
}

TEST(Inspect, Usage) {
    std::ostringstream out, err;
    EXPECT_EQ(inspect({}, out, err), 2);
    EXPECT_EQ(inspect({"--bogus", "f"}, out, err), 2);
    EXPECT_NE(err.str().find("usage: mlckpt inspect [--json] [--] FILE"), std::string::npos);
    EXPECT_NE(err.str().find("mlckpt inspect [--json] --meta META [--] FILE"), std::string::npos);
    EXPECT_EQ(inspect({"--meta"}, out, err), 2) << "--meta needs its file";
    EXPECT_EQ(inspect({"--json", "--json", "f"}, out, err), 2);
    EXPECT_NE(err.str().find("unexpected argument '--json'"), std::string::npos);
    EXPECT_EQ(inspect({"f", "g"}, out, err), 2);
    // After "--", a name that starts with '-' is the FILE.
    std::ostringstream err2;
    EXPECT_EQ(inspect({"--json", "--", "-missing.fti"}, out, err2), 1);
    EXPECT_NE(err2.str().find("cannot open '-missing.fti'"), std::string::npos) << err2.str();
}

}  // namespace
}  // namespace mlckpt::tools
