#include "format/ftiff/ftiff_file.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "common/error.hpp"
#include "expect_error.hpp"
#include "format/ftiff/ftiff_chunk_hash.hpp"
#include "hash/crc32.hpp"
#include "hash/md5.hpp"
#include "temp_dir.hpp"

namespace mlckpt::core::ftiff {
namespace {

// Variables 1..5 of the specification's example, 1000 times smaller.
struct Program {
    std::map<int, std::vector<std::int32_t>> arrays;
    std::vector<int> order;

    void protect(int id, std::size_t count, int seed) {
        if (!arrays.count(id)) order.push_back(id);
        auto& a = arrays[id];
        a.resize(count);
        for (std::size_t i = 0; i < count; ++i) a[i] = static_cast<std::int32_t>(seed * 100003 + id * 7919 + i);
    }
    std::vector<VariableExtent> extents() const {
        std::vector<VariableExtent> out;
        for (int id : order) out.push_back({id, static_cast<std::int64_t>(arrays.at(id).size() * 4)});
        return out;
    }
    std::vector<VariableData> data() const {
        std::vector<VariableData> out;
        for (int id : order) out.push_back({id, std::as_bytes(std::span(arrays.at(id)))});
        return out;
    }
};

const std::vector<std::vector<std::pair<int, std::size_t>>> kSteps = {
    {{1, 1000}, {2, 2000}, {3, 3000}},
    {{4, 4000}},
    {{2, 6000}, {3, 7000}},
    {{5, 5000}},
    {{2, 5000}, {3, 6000}},
    {{2, 8000}, {3, 9000}},
    {{2, 1000}, {3, 2000}},
};

TEST(FtiffFile, EveryCheckpointOfTheExampleReadsBackBitForBit) {
    test::TempDir dir;
    Program p;
    Layout layout;
    for (std::size_t step = 0; step < kSteps.size(); ++step) {
        for (auto [id, count] : kSteps[step]) p.protect(id, count, static_cast<int>(step));
        layout.update(p.extents());
        fs::path path = dir.path() / ("Ckpt" + std::to_string(step + 1) + ".fti");
        FileBlock fb = write_file(path, layout, p.data(), 0, 0, 42);
        EXPECT_EQ(fs::file_size(path), static_cast<std::uintmax_t>(layout.file_size()));
        EXPECT_EQ(fb.ckpt_size, layout.data_size());

        File file = File::open_read(path);
        FileStructure s = read_structure(file);  // from the file alone
        EXPECT_EQ(dump(s.layout), dump(layout)) << "step " << step + 1;
        EXPECT_EQ(s.fb.timestamp, 42);
        for (int id : p.order) {
            const auto& expected = p.arrays.at(id);
            ASSERT_EQ(stored_bytes(s.layout, id), static_cast<std::int64_t>(expected.size() * 4));
            std::vector<std::int32_t> back(expected.size());
            read_variable(file, s.layout, id, std::as_writable_bytes(std::span(back)));
            EXPECT_EQ(back, expected) << "variable " << id << " after step " << step + 1;
        }
    }
}

TEST(FtiffFile, LayoutRebuiltFromTheFileContinuesTheContainerModel) {
    test::TempDir dir;
    Program p;
    Layout layout;
    for (std::size_t step = 0; step < 4; ++step) {
        for (auto [id, count] : kSteps[step]) p.protect(id, count, 0);
        layout.update(p.extents());
    }
    fs::path path = dir.path() / "Ckpt4.fti";
    write_file(path, layout, p.data(), 0, 0, 0);
    Layout restarted = read_structure(File::open_read(path)).layout;
    for (std::size_t step = 4; step < kSteps.size(); ++step) {
        for (auto [id, count] : kSteps[step]) p.protect(id, count, 0);
        layout.update(p.extents());
        restarted.update(p.extents());
        // Hashes differ only where data was not written yet: compare the records.
        ASSERT_EQ(restarted.blocks().size(), layout.blocks().size());
        for (std::size_t b = 0; b < layout.blocks().size(); ++b) {
            EXPECT_EQ(restarted.blocks()[b].dbsize, layout.blocks()[b].dbsize);
            for (std::size_t j = 0; j < layout.blocks()[b].chunks.size(); ++j) {
                const Chunk& x = restarted.blocks()[b].chunks[j];
                const Chunk& y = layout.blocks()[b].chunks[j];
                EXPECT_EQ(x.fptr, y.fptr);
                EXPECT_EQ(x.chunk_size, y.chunk_size);
                EXPECT_EQ(x.container_size, y.container_size);
            }
        }
    }
}

std::string damage_reason(const fs::path& path, int id, std::size_t bytes) {
    return test::error_message(ErrorKind::corrupt, [&] {
        File file = File::open_read(path);
        FileStructure s = read_structure(file);
        std::vector<std::byte> out(bytes);
        read_variable(file, s.layout, id, out);
    });
}

void flip_byte(const fs::path& path, std::int64_t offset) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(offset);
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(~c);
    f.seekp(offset);
    f.write(&c, 1);
}

TEST(FtiffFile, DamageIsNamed) {
    test::TempDir dir;
    Program p;
    p.protect(1, 1000, 1);
    p.protect(2, 500, 1);
    Layout layout;
    layout.update(p.extents());
    fs::path path = dir.path() / "f.fti";
    auto write = [&] { write_file(path, layout, p.data(), 0, 0, 0); };

    write();
    const Chunk* second = layout.chunks_of(2).front();
    flip_byte(path, second->fptr + 10);  // inside variable 2's data
    std::string why = damage_reason(path, 2, 2000);
    EXPECT_NE(why.find("variable 2: the chunk at file offset " + std::to_string(second->fptr)), std::string::npos)
        << why;

    write();
    flip_byte(path, kFileBlockBytes + kBlockMetaBytes + 5);  // inside the first chunk record
    EXPECT_NE(damage_reason(path, 1, 4000).find("fail the file block's checksum"), std::string::npos);

    write();
    flip_byte(path, 60);  // inside the file block
    EXPECT_NE(damage_reason(path, 1, 4000).find("fails its hash (myHash)"), std::string::npos);

    write();
    ASSERT_EQ(::truncate(path.c_str(), 3000), 0);
    EXPECT_NE(damage_reason(path, 1, 4000).find("(truncated)"), std::string::npos);
    ASSERT_EQ(::truncate(path.c_str(), 50), 0);
    EXPECT_NE(damage_reason(path, 1, 4000).find("shorter than the 96-byte file block"), std::string::npos);
}

// The unused tail of a container (here variable 1, grown then shrunk) is
// covered by no hash: it reads as zero, and damage there is named.
TEST(FtiffFile, DamageInUnusedContainerSpaceIsNamed) {
    test::TempDir dir;
    Program p;
    p.protect(1, 1000, 1);
    Layout layout;
    layout.update(p.extents());
    fs::path path = dir.path() / "f.fti";
    write_file(path, layout, p.data(), 0, 0, 0);
    p.protect(1, 400, 2);
    layout.update(p.extents());
    write_file(path, layout, p.data(), 0, 0, 0);
    const Chunk* c = layout.chunks_of(1).front();
    ASSERT_LT(c->chunk_size, c->container_size);
    {
        File file = File::open_read(path);
        EXPECT_EQ(verify_chunks(file, read_structure(file).layout, 512), 1u) << "a fresh file's tail is zero";
    }
    flip_byte(path, c->fptr + c->chunk_size + 100);
    std::string why = test::error_message(ErrorKind::corrupt, [&] {
        File file = File::open_read(path);
        verify_chunks(file, read_structure(file).layout, 512);
    });
    EXPECT_NE(why.find("variable 1: the unused space of its container at file offset " + std::to_string(c->fptr) +
                       " is not zero (byte " + std::to_string(c->fptr + c->chunk_size + 100) + ")"),
              std::string::npos)
        << why;
}

// Version 2 (L4 differential files): chunk hashes from block CRCs, for a
// variable whose second chunk starts mid-block. Hashing the data and
// handing over the block CRCs give the same file; the reader checks it, and
// a changed byte fails the chunk's block hash.
TEST(FtiffFile, BlockHashedFileReadsBackAndNamesDamage) {
    test::TempDir dir;
    constexpr std::uint32_t kHashBlock = 1000;
    Program p;
    p.protect(1, 1000, 1);
    Layout layout;
    layout.update(p.extents());
    p.protect(1, 1777, 2);  // grows: a second chunk at dptr 4000 of 7108 bytes
    p.protect(2, 300, 2);
    layout.update(p.extents());
    const fs::path hashed = dir.path() / "hashed.fti";
    const fs::path from_crcs = dir.path() / "from_crcs.fti";
    {
        Writer w(File::create(hashed), layout, kHashBlock);
        for (const VariableData& v : p.data()) w.add(v.id, v.bytes);
        w.finish(0, 0, 42);
    }
    {
        Writer w(File::create(from_crcs), layout, kHashBlock);
        for (const VariableData& v : p.data()) {
            for (const Chunk* c : layout.chunks_of(v.id)) {
                w.file().write_all_at(
                    v.bytes.subspan(static_cast<std::size_t>(c->dptr), static_cast<std::size_t>(c->chunk_size)),
                    static_cast<std::uint64_t>(c->fptr));
            }
            w.add_block_crcs(v.id, v.bytes.size(), [&](const Chunk& c) {
                std::vector<std::uint32_t> crcs;
                for (std::int64_t at = 0; at < c.chunk_size; at += kHashBlock) {
                    auto n = std::min<std::int64_t>(kHashBlock, c.chunk_size - at);
                    crcs.push_back(
                        crc32_of(v.bytes.subspan(static_cast<std::size_t>(c.dptr + at), static_cast<std::size_t>(n))));
                }
                return crcs;
            });
        }
        w.finish(0, 0, 42);
    }
    auto bytes_of = [](const fs::path& f) {
        std::ifstream in(f, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    EXPECT_EQ(bytes_of(hashed), bytes_of(from_crcs));

    File file = File::open_read(hashed);
    FileStructure s = read_structure(file);
    EXPECT_EQ(s.fb.hash_block, kHashBlock);
    ASSERT_EQ(s.layout.chunks_of(1).size(), 2u);
    const Chunk* grown = s.layout.chunks_of(1)[1];
    EXPECT_EQ(grown->dptr, 4000);
    EXPECT_EQ(grown->hash, hash_of_block_crcs(std::vector<std::uint32_t>{
                               crc32_of(std::as_bytes(std::span(p.arrays[1])).subspan(4000, 1000)),
                               crc32_of(std::as_bytes(std::span(p.arrays[1])).subspan(5000, 1000)),
                               crc32_of(std::as_bytes(std::span(p.arrays[1])).subspan(6000, 1000)),
                               crc32_of(std::as_bytes(std::span(p.arrays[1])).subspan(7000, 108))}));
    EXPECT_NE(grown->hash, md5_of(std::as_bytes(std::span(p.arrays[1])).subspan(4000, 3108))) << "not version 1";
    for (int id : {1, 2}) {
        std::vector<std::int32_t> back(p.arrays[id].size());
        read_variable(file, s.layout, id, std::as_writable_bytes(std::span(back)));
        EXPECT_EQ(back, p.arrays[id]);
    }
    EXPECT_EQ(verify_chunks(file, s.layout, 333), 3u);

    flip_byte(hashed, grown->fptr + 2500);
    std::string why = damage_reason(hashed, 1, 7108);
    EXPECT_NE(why.find("variable 1: the chunk at file offset " + std::to_string(grown->fptr) +
                       " (3108 bytes) fails its block hash"),
              std::string::npos)
        << why;
}

TEST(FtiffChunkHash, PiecesOfAnySizeGiveTheSameHash) {
    std::vector<std::byte> data(10007);
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i * 37 + (i >> 7));
    for (std::uint32_t block : {0u, 1u, 64u, 4096u, 65536u}) {
        const Md5 whole = chunk_hash(data, block);
        for (std::size_t piece : {1u, 63u, 4096u, 5000u}) {
            ChunkHasher h(block);
            for (std::size_t at = 0; at < data.size(); at += piece) {
                h.update(std::span(data).subspan(at, std::min(piece, data.size() - at)));
            }
            EXPECT_EQ(h.finish(), whole) << block << " " << piece;
        }
    }
    EXPECT_EQ(chunk_hash(data, 0), md5_of(data)) << "version 1 is the MD5 of the bytes";
    EXPECT_EQ(chunk_hash({}, 4096), md5_of({})) << "an empty chunk hashes alike in both versions";
}

// Records that a damaged or crafted file could carry are refused before any
// byte is read into the caller's buffer.
TEST(FtiffFile, ImpossibleChunkPlacementsAreRefused) {
    test::TempDir dir;
    Program p;
    p.protect(1, 100, 1);
    Layout layout;
    layout.update(p.extents());
    fs::path path = dir.path() / "f.fti";
    write_file(path, layout, p.data(), 0, 0, 0);
    File file = File::open_read(path);
    Block block = layout.blocks()[0];
    std::vector<std::byte> out(400);
    for (std::int64_t bad_dptr : {std::int64_t{-8}, std::int64_t{8}, std::int64_t{1} << 62}) {
        Block crafted = block;
        crafted.chunks[0].dptr = bad_dptr;
        Layout l({crafted});
        EXPECT_THROW(read_variable(file, l, 1, out), Error) << bad_dptr;
    }
    ChunkMetaBytes cm = encode_chunk_meta(block.chunks[0]);
    cm[16 + 7] = std::byte{0x80};  // dptr negative
    EXPECT_THROW(decode_chunk_meta(cm, "f"), Error);
    ChunkMetaBytes empty_but_content = encode_chunk_meta(block.chunks[0]);
    empty_but_content[12] = std::byte{0};  // hascontent false with a chunk size
    EXPECT_THROW(decode_chunk_meta(empty_but_content, "f"), Error);
}

// Files whose records are intact (every hash matches) but describe an
// impossible file: the reader still refuses them.
TEST(FtiffFile, ConsistentButImpossibleRecordsAreRefused) {
    test::TempDir dir;
    Program p;
    p.protect(1, 100, 1);
    p.protect(2, 50, 1);
    Layout layout;
    layout.update(p.extents());
    fs::path path = dir.path() / "f.fti";

    Block overlapping = layout.blocks()[0];
    overlapping.chunks[1].fptr -= 4;  // the second container starts inside the first
    Layout crafted({overlapping});
    write_file(path, crafted, p.data(), 0, 0, 0);
    std::string message = test::error_message(ErrorKind::corrupt, [&] { read_structure(File::open_read(path)); });
    EXPECT_NE(message.find("container 0 of variable 2 starts at"), std::string::npos) << message;
    EXPECT_NE(message.find("(containers overlap or leave a gap)"), std::string::npos) << message;

    write_file(path, layout, p.data(), 0, 0, 0);
    FileBlockBytes fbb;
    File::open_read(path).read_exact_at(fbb, 0);
    FileBlock fb = decode_file_block(fbb, "f");
    fb.ckpt_size += 4;
    fbb = encode_file_block(fb);  // with a matching myHash
    File rewrite = File::open_update(path);
    rewrite.write_all_at(fbb, 0);
    rewrite.close();
    message = test::error_message(ErrorKind::corrupt, [&] { read_structure(File::open_read(path)); });
    EXPECT_NE(message.find("its file block says 604 bytes of data, its chunks hold 600"), std::string::npos) << message;
}

}  // namespace
}  // namespace mlckpt::core::ftiff
