#include "format/ftiff/ftiff_codec.hpp"

#include <cstring>

#include "common/byte_order.hpp"
#include "common/error.hpp"
#include "hash/md5.hpp"

namespace mlckpt::core::ftiff {

namespace {

constexpr char kFtiffMagic[4] = {'M', 'L', 'F', 'F'};

Md5 hash_without_my_hash(const std::byte* fb) {
    Md5Hasher h;
    h.update({fb, 33});
    h.update({fb + 49, static_cast<std::size_t>(kFileBlockBytes - 49)});
    return h.finish();
}

}  // namespace

FileBlockBytes encode_file_block(const FileBlock& fb) {
    FileBlockBytes out{};
    if (fb.checksum.size() != 32) fail(ErrorKind::usage, "FTI-FF checksum must have 32 hex digits");
    std::memcpy(out.data(), fb.checksum.data(), 32);  // byte 32 stays NUL
    std::memcpy(out.data() + 49, kFtiffMagic, 4);
    if (fb.hash_block > kMaxHashBlock) fail(ErrorKind::usage, "FTI-FF hash block above 65536 bytes");
    if (fb.hash_block == 0) {
        out[53] = static_cast<std::byte>(kFormatVersion);
    } else {
        out[53] = static_cast<std::byte>(kBlockHashedVersion);
        store_le<std::uint16_t>(out.data() + 54, static_cast<std::uint16_t>(fb.hash_block - 1));
    }
    store_le<std::int64_t>(out.data() + 56, fb.ckpt_size);
    store_le<std::int64_t>(out.data() + 64, fb.fs);
    store_le<std::int64_t>(out.data() + 72, fb.max_fs);
    store_le<std::int64_t>(out.data() + 80, fb.pt_fs);
    store_le<std::int64_t>(out.data() + 88, fb.timestamp);
    Md5 h = hash_without_my_hash(out.data());
    std::memcpy(out.data() + 33, h.data(), 16);
    return out;
}

bool has_file_block_magic(std::span<const std::byte, kFileBlockBytes> b) {
    return std::memcmp(b.data() + 49, kFtiffMagic, 4) == 0;
}

FileBlock decode_file_block(std::span<const std::byte, kFileBlockBytes> b, const std::string& source) {
    auto bad = [&](const std::string& what) { fail(ErrorKind::corrupt, "FTI-FF file '" + source + "': " + what); };
    if (!has_file_block_magic(b)) bad("no FTI-FF file block (magic 'MLFF' missing)");
    const auto version = static_cast<std::uint8_t>(b[53]);
    if (version != kFormatVersion && version != kBlockHashedVersion) {
        bad("format version " + std::to_string(static_cast<int>(version)) + ", this library reads versions " +
            std::to_string(kFormatVersion) + " and " + std::to_string(kBlockHashedVersion));
    }
    FileBlock fb;
    if (version == kBlockHashedVersion) fb.hash_block = std::uint32_t{load_le<std::uint16_t>(b.data() + 54)} + 1;
    std::memcpy(fb.my_hash.data(), b.data() + 33, 16);
    if (hash_without_my_hash(b.data()) != fb.my_hash) bad("the file block fails its hash (myHash)");
    fb.checksum.assign(reinterpret_cast<const char*>(b.data()), 32);
    fb.ckpt_size = load_le<std::int64_t>(b.data() + 56);
    fb.fs = load_le<std::int64_t>(b.data() + 64);
    fb.max_fs = load_le<std::int64_t>(b.data() + 72);
    fb.pt_fs = load_le<std::int64_t>(b.data() + 80);
    fb.timestamp = load_le<std::int64_t>(b.data() + 88);
    return fb;
}

BlockMetaBytes encode_block_meta(const Block& block) {
    BlockMetaBytes out{};
    store_le<std::int32_t>(out.data(), block.numvars());
    store_le<std::int64_t>(out.data() + 4, block.dbsize);
    return out;
}

void decode_block_meta(std::span<const std::byte, kBlockMetaBytes> b, int& numvars, std::int64_t& dbsize) {
    numvars = load_le<std::int32_t>(b.data());
    dbsize = load_le<std::int64_t>(b.data() + 4);
}

ChunkMetaBytes encode_chunk_meta(const Chunk& c) {
    ChunkMetaBytes out{};
    store_le<std::int32_t>(out.data(), c.id);
    store_le<std::int32_t>(out.data() + 4, c.idx);
    store_le<std::int32_t>(out.data() + 8, c.container_id);
    out[12] = static_cast<std::byte>(c.has_content ? 1 : 0);
    store_le<std::int64_t>(out.data() + 16, c.dptr);
    store_le<std::int64_t>(out.data() + 24, c.fptr);
    store_le<std::int64_t>(out.data() + 32, c.chunk_size);
    store_le<std::int64_t>(out.data() + 40, c.container_size);
    std::memcpy(out.data() + 48, c.hash.data(), 16);
    return out;
}

Chunk decode_chunk_meta(std::span<const std::byte, kChunkMetaBytes> b, const std::string& source) {
    Chunk c;
    c.id = load_le<std::int32_t>(b.data());
    c.idx = load_le<std::int32_t>(b.data() + 4);
    c.container_id = load_le<std::int32_t>(b.data() + 8);
    auto flag = static_cast<std::uint8_t>(b[12]);
    if (flag > 1) fail(ErrorKind::corrupt, "FTI-FF file '" + source + "': invalid hascontent byte");
    c.has_content = flag == 1;
    c.dptr = load_le<std::int64_t>(b.data() + 16);
    c.fptr = load_le<std::int64_t>(b.data() + 24);
    c.chunk_size = load_le<std::int64_t>(b.data() + 32);
    c.container_size = load_le<std::int64_t>(b.data() + 40);
    std::memcpy(c.hash.data(), b.data() + 48, 16);
    if (c.chunk_size < 0 || c.container_size < 0 || c.chunk_size > c.container_size || c.fptr < 0 || c.dptr < 0 ||
        c.container_id < 0 || c.idx < 0 || c.has_content != (c.chunk_size > 0)) {
        fail(ErrorKind::corrupt, "FTI-FF file '" + source + "': chunk record of variable " + std::to_string(c.id) +
                                     " has impossible sizes");
    }
    return c;
}

}  // namespace mlckpt::core::ftiff
