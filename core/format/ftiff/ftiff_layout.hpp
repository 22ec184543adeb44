// FTI-FF: the container model of the self-describing checkpoint file.
//
// A file is the file block FB followed by variable chunk blocks VCB_i; each
// VCB_i holds its block metadata BMD_i, one chunk record VMD_ij per
// container, then the containers. Containers never change size once
// created: a variable that grows gets an extra container in a new block, a
// newly protected variable goes into a new block, and a variable that
// shrinks keeps its containers, the surplus ones marked empty. This class
// applies those rules; ftiff_codec.hpp turns the records into bytes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace mlckpt::core::ftiff {

constexpr std::int64_t kFileBlockBytes = 96;  // FB
constexpr std::int64_t kBlockMetaBytes = 12;  // BMD: int32 numvars, int64 dbsize
constexpr std::int64_t kChunkMetaBytes = 64;  // VMD

using Md5 = std::array<std::uint8_t, 16>;

struct Chunk {             // VMD_ij
    int id = 0;            // protected variable
    int idx = 0;           // its position in protection order
    int container_id = 0;  // n-th container of that variable
    bool has_content = false;
    std::int64_t dptr = 0;            // offset of the chunk within the variable's data
    std::int64_t fptr = 0;            // offset of the container in the file
    std::int64_t chunk_size = 0;      // bytes stored now
    std::int64_t container_size = 0;  // bytes reserved, fixed
    Md5 hash{};                       // of the chunk (ftiff_chunk_hash.hpp)
};

struct Block {                // VCB_i: BMD_i and its chunks
    std::int64_t offset = 0;  // file position of BMD_i
    std::int64_t dbsize = 0;  // metadata + containers
    std::vector<Chunk> chunks;

    int numvars() const { return static_cast<int>(chunks.size()); }
    std::int64_t metadata_bytes() const { return kBlockMetaBytes + kChunkMetaBytes * numvars(); }
};

struct VariableExtent {  // a protected variable as the next checkpoint sees it
    int id = 0;
    std::int64_t bytes = 0;
};

class Layout {
  public:
    Layout() = default;
    // Rebuilds a layout read back from a file (blocks in file order).
    explicit Layout(std::vector<Block> blocks);

    // Applies the container rules for the variables about to be
    // checkpointed (in protection order): chunk sizes of existing containers
    // are refilled, containers of variables not in `vars` are emptied, and at
    // most one new block is appended.
    void update(const std::vector<VariableExtent>& vars);

    const std::vector<Block>& blocks() const { return blocks_; }
    Chunk& chunk(std::size_t block, std::size_t index) { return blocks_.at(block).chunks.at(index); }
    std::int64_t file_size() const;  // FB + every block
    std::int64_t data_size() const;  // sum of chunk sizes
    // The chunks of variable `id`, by container id.
    std::vector<const Chunk*> chunks_of(int id) const;

    // How the chunk hashes are made: 0, the MD5 of the chunk (format
    // version 1); else the hash block of version 2 (ftiff_chunk_hash.hpp).
    std::uint32_t chunk_hash_block() const { return chunk_hash_block_; }
    void set_chunk_hash_block(std::uint32_t bytes) { chunk_hash_block_ = bytes; }

  private:
    std::vector<Block> blocks_;
    std::uint32_t chunk_hash_block_ = 0;
};

// The layout as the "DATASTRUCTURE BEGIN ... END" text of the FTI-FF
// documentation (pointers print as "-", chunk hashes in hex).
std::string dump(const Layout& layout);
std::string hex(const Md5& hash);

}  // namespace mlckpt::core::ftiff
