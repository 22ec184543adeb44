#include "format/ftiff/ftiff_codec.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "common/error.hpp"
#include "expect_error.hpp"
#include "hash/md5.hpp"

namespace mlckpt::core::ftiff {
namespace {

TEST(Md5, KnownVectors) {
    std::string abc = "abc";
    EXPECT_EQ(hex(md5_of(std::as_bytes(std::span(abc.data(), abc.size())))), "900150983cd24fb0d6963f7d28e17f72");
    EXPECT_EQ(hex(md5_of({})), "d41d8cd98f00b204e9800998ecf8427e");
    Md5Hasher h;  // incremental == one shot, and reusable
    h.update(std::as_bytes(std::span(abc.data(), 1)));
    h.update(std::as_bytes(std::span(abc.data() + 1, 2)));
    EXPECT_EQ(hex(h.finish()), "900150983cd24fb0d6963f7d28e17f72");
    EXPECT_EQ(hex(h.finish()), "d41d8cd98f00b204e9800998ecf8427e");
}

FileBlock sample_fb() {
    FileBlock fb;
    fb.checksum = "0123456789abcdef0123456789abcdef";
    fb.ckpt_size = 24000000;
    fb.fs = 24000300;
    fb.max_fs = 30000000;
    fb.pt_fs = 24000301;
    fb.timestamp = 0x0102030405060708;
    return fb;
}

TEST(FtiffCodec, FileBlockBytesAndRoundTrip) {
    FileBlockBytes b = encode_file_block(sample_fb());
    EXPECT_EQ(std::memcmp(b.data(), "0123456789abcdef0123456789abcdef", 32), 0);
    EXPECT_EQ(b[32], std::byte{0});
    EXPECT_EQ(std::memcmp(b.data() + 49, "MLFF", 4), 0);
    EXPECT_EQ(b[53], std::byte{kFormatVersion});
    EXPECT_EQ(b[54], std::byte{0});
    EXPECT_EQ(b[55], std::byte{0});
    EXPECT_EQ(b[88], std::byte{0x08});  // little-endian timestamp
    EXPECT_EQ(b[95], std::byte{0x01});
    FileBlock back = decode_file_block(b, "f");
    EXPECT_EQ(back.checksum, sample_fb().checksum);
    EXPECT_EQ(back.ckpt_size, 24000000);
    EXPECT_EQ(back.fs, 24000300);
    EXPECT_EQ(back.max_fs, 30000000);
    EXPECT_EQ(back.pt_fs, 24000301);
    EXPECT_EQ(back.timestamp, 0x0102030405060708);
}

TEST(FtiffCodec, Version2CarriesTheHashBlock) {
    for (std::uint32_t block : {1u, 4096u, 16384u, 65536u}) {
        FileBlock fb = sample_fb();
        fb.hash_block = block;
        FileBlockBytes b = encode_file_block(fb);
        EXPECT_EQ(b[53], std::byte{kBlockHashedVersion});
        EXPECT_EQ(std::to_integer<unsigned>(b[54]) | std::to_integer<unsigned>(b[55]) << 8, block - 1);
        EXPECT_EQ(decode_file_block(b, "f").hash_block, block);
    }
    EXPECT_EQ(decode_file_block(encode_file_block(sample_fb()), "f").hash_block, 0u) << "version 1";
    FileBlock too_big = sample_fb();
    too_big.hash_block = 65537;
    EXPECT_THROW(encode_file_block(too_big), Error);
}

std::string corrupt_reason(FileBlockBytes b) {
    return test::error_message(ErrorKind::corrupt, [&] { decode_file_block(b, "file.fti"); });
}

TEST(FtiffCodec, DamagedFileBlockIsNamed) {
    FileBlockBytes good = encode_file_block(sample_fb());
    FileBlockBytes flipped = good;
    flipped[70] ^= std::byte{0x10};  // inside maxFs
    EXPECT_NE(corrupt_reason(flipped).find("'file.fti': the file block fails its hash"), std::string::npos);
    FileBlockBytes no_magic = good;
    no_magic[49] = std::byte{'X'};
    EXPECT_NE(corrupt_reason(no_magic).find("magic 'MLFF' missing"), std::string::npos);
    FileBlockBytes newer = good;
    newer[53] = std::byte{9};
    EXPECT_NE(corrupt_reason(newer).find("format version 9, this library reads versions 1 and 2"), std::string::npos);
    FileBlockBytes other_block = encode_file_block([] {
        FileBlock fb = sample_fb();
        fb.hash_block = 4096;
        return fb;
    }());
    other_block[54] ^= std::byte{1};  // the hash block is covered by myHash
    EXPECT_NE(corrupt_reason(other_block).find("fails its hash"), std::string::npos);
}

TEST(FtiffCodec, BlockAndChunkRecords) {
    Block block;
    block.dbsize = 24000204;
    block.chunks.resize(3);
    BlockMetaBytes bm = encode_block_meta(block);
    int numvars = 0;
    std::int64_t dbsize = 0;
    decode_block_meta(bm, numvars, dbsize);
    EXPECT_EQ(numvars, 3);
    EXPECT_EQ(dbsize, 24000204);
    EXPECT_EQ(bm[0], std::byte{3});

    Chunk c{2, 1, 1, true, 8000000, 40000516, 12000000, 16000000, {}};
    c.hash[0] = 0xab;
    c.hash[15] = 0xcd;
    ChunkMetaBytes cm = encode_chunk_meta(c);
    EXPECT_EQ(cm[12], std::byte{1});
    EXPECT_EQ(cm[13], std::byte{0});
    EXPECT_EQ(cm[48], std::byte{0xab});
    EXPECT_EQ(cm[63], std::byte{0xcd});
    Chunk back = decode_chunk_meta(cm, "f");
    EXPECT_EQ(back.id, 2);
    EXPECT_EQ(back.idx, 1);
    EXPECT_EQ(back.container_id, 1);
    EXPECT_TRUE(back.has_content);
    EXPECT_EQ(back.dptr, 8000000);
    EXPECT_EQ(back.fptr, 40000516);
    EXPECT_EQ(back.chunk_size, 12000000);
    EXPECT_EQ(back.container_size, 16000000);
    EXPECT_EQ(back.hash, c.hash);

    ChunkMetaBytes impossible = cm;
    impossible[32] = std::byte{0xff};  // chunk larger than its container
    impossible[33] = std::byte{0xff};
    impossible[34] = std::byte{0xff};
    EXPECT_THROW(decode_chunk_meta(impossible, "f"), Error);
}

}  // namespace
}  // namespace mlckpt::core::ftiff
