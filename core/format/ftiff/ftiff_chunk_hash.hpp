// The 16-byte hash an FTI-FF chunk record carries for its chunk.
//
// Version 1 files: the MD5 of the chunk's bytes. Version 2 files (L4
// differential checkpoints): the chunk is cut into consecutive hash blocks of
// `hash_block` bytes from its first byte (the last may be shorter), and the
// hash is the MD5 of their CRC-32s, each as 4 little-endian bytes. A dCP
// update already knows the CRC of every block, because that is how it finds
// the changed ones, so it re-hashes a chunk without a second pass over the
// data at MD5 speed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "format/ftiff/ftiff_layout.hpp"
#include "hash/crc32.hpp"
#include "hash/md5.hpp"

namespace mlckpt::core::ftiff {

// Hashes one chunk from pieces of any size, under either rule.
class ChunkHasher {
  public:
    explicit ChunkHasher(std::uint32_t hash_block);  // 0: version 1
    void update(std::span<const std::byte> piece);
    Md5 finish();

  private:
    std::uint32_t hash_block_;
    Md5Hasher md5_;
    Crc32 block_crc_;
    std::uint64_t in_block_ = 0;  // bytes of the current hash block so far
};

// Version 2 hash of a chunk from the CRC-32s of its hash blocks.
Md5 hash_of_block_crcs(std::span<const std::uint32_t> crcs);

Md5 chunk_hash(std::span<const std::byte> chunk, std::uint32_t hash_block);

}  // namespace mlckpt::core::ftiff
