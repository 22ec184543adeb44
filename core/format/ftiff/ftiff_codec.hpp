// FTI-FF records as bytes: explicit little-endian, fixed widths, every
// padding byte defined. Byte map:
//
//   FB (96): checksum  0..32  32 hex digits of the MD5 of the VB metadata + NUL
//            myHash   33..48  MD5 of the FB without these 16 bytes
//            magic    49..52  "MLFF";  version 53 (1 or 2);
//            54..55   version 1: zero; version 2: uint16 hash block - 1
//            ckptSize 56, fs 64, maxFs 72, ptFs 80, timestamp 88 (int64 each)
//   BMD (12): numvars int32 0, dbsize int64 4
//   VMD (64): id int32 0, idx int32 4, containerid int32 8, hascontent 12
//             (0 or 1), 13..15 zero, dptr 16, fptr 24, chunksize 32,
//             containersize 40 (int64 each), hash 48..63
//
// The FB checksum covers every BMD and VMD in file order; each VMD carries
// the hash of its chunk, so it covers the data as well. Version 1: the MD5
// of the chunk's bytes. Version 2 (L4 differential files): the MD5 of the
// CRC-32s of the chunk's hash blocks (ftiff_chunk_hash.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "format/ftiff/ftiff_layout.hpp"

namespace mlckpt::core::ftiff {

constexpr std::uint8_t kFormatVersion = 1;       // chunk hash: MD5 of the bytes
constexpr std::uint8_t kBlockHashedVersion = 2;  // chunk hash: MD5 of block CRC-32s
constexpr std::uint32_t kMaxHashBlock = 65536;   // fits bytes 54..55 as block - 1

struct FileBlock {         // FB
    std::string checksum;  // 32 lowercase hex digits
    Md5 my_hash{};
    std::int64_t ckpt_size = 0;    // bytes of data (chunks) in the file
    std::int64_t fs = 0;           // FB + VB
    std::int64_t max_fs = 0;       // largest fs of the group
    std::int64_t pt_fs = 0;        // fs of the partner's file
    std::int64_t timestamp = 0;    // ns since the epoch
    std::uint32_t hash_block = 0;  // 0: version 1; else version 2 with this hash block (1..65536)
};

using FileBlockBytes = std::array<std::byte, kFileBlockBytes>;
using BlockMetaBytes = std::array<std::byte, kBlockMetaBytes>;
using ChunkMetaBytes = std::array<std::byte, kChunkMetaBytes>;

// Encodes the FB, computing myHash (the stored my_hash is ignored).
FileBlockBytes encode_file_block(const FileBlock& fb);
// Decodes and verifies magic, version (1 or 2) and myHash; throws a corrupt Error
// naming `source` otherwise.
FileBlock decode_file_block(std::span<const std::byte, kFileBlockBytes> bytes, const std::string& source);
// True when `bytes` carry the FTI-FF magic (whatever the rest holds).
bool has_file_block_magic(std::span<const std::byte, kFileBlockBytes> bytes);

BlockMetaBytes encode_block_meta(const Block& block);
void decode_block_meta(std::span<const std::byte, kBlockMetaBytes> bytes, int& numvars, std::int64_t& dbsize);

ChunkMetaBytes encode_chunk_meta(const Chunk& chunk);
Chunk decode_chunk_meta(std::span<const std::byte, kChunkMetaBytes> bytes, const std::string& source);

}  // namespace mlckpt::core::ftiff
