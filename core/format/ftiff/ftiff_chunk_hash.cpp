#include "format/ftiff/ftiff_chunk_hash.hpp"

#include <algorithm>
#include <array>

#include "common/byte_order.hpp"

namespace mlckpt::core::ftiff {

namespace {

void append_crc(Md5Hasher& md5, std::uint32_t crc) {
    std::array<std::byte, 4> le;
    store_le<std::uint32_t>(le.data(), crc);
    md5.update(le);
}

}  // namespace

ChunkHasher::ChunkHasher(std::uint32_t hash_block) : hash_block_(hash_block) {}

void ChunkHasher::update(std::span<const std::byte> piece) {
    if (hash_block_ == 0) {
        md5_.update(piece);
        return;
    }
    while (!piece.empty()) {
        auto n = static_cast<std::size_t>(std::min<std::uint64_t>(piece.size(), hash_block_ - in_block_));
        block_crc_.update(piece.first(n));
        piece = piece.subspan(n);
        in_block_ += n;
        if (in_block_ == hash_block_) {
            append_crc(md5_, block_crc_.value());
            block_crc_ = Crc32{};
            in_block_ = 0;
        }
    }
}

Md5 ChunkHasher::finish() {
    if (hash_block_ != 0 && in_block_ > 0) {
        append_crc(md5_, block_crc_.value());
        block_crc_ = Crc32{};
        in_block_ = 0;
    }
    return md5_.finish();
}

Md5 hash_of_block_crcs(std::span<const std::uint32_t> crcs) {
    Md5Hasher md5;
    for (std::uint32_t crc : crcs) append_crc(md5, crc);
    return md5.finish();
}

Md5 chunk_hash(std::span<const std::byte> chunk, std::uint32_t hash_block) {
    ChunkHasher h(hash_block);
    h.update(chunk);
    return h.finish();
}

}  // namespace mlckpt::core::ftiff
