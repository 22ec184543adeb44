// One rank's FTI-FF file: written from the variables in memory following a
// Layout, and read back with every hash checked, without any other file.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "format/ftiff/ftiff_codec.hpp"
#include "io/file.hpp"
#include "io/placed_output.hpp"

namespace mlckpt::core::ftiff {

struct VariableData {
    int id = 0;
    std::span<const std::byte> bytes;
};

// Writes one file variable by variable, the way FTI_Checkpoint and the
// incremental calls produce data: each add() writes that variable's chunks
// at their containers (so the caller may change the buffer afterwards), and
// finish() writes the block records and, last, the file block. The CRC-32 of
// the whole file is assembled from the pieces without re-reading anything.
class Writer {
  public:
    // `layout` is already updated for the variables about to be written.
    Writer(const fs::path& path, Layout layout);
    // Writes into an open file; an in-place updater (L4 differential) passes
    // the existing file, writes the chunk bytes itself and may choose the
    // version 2 chunk hash (`chunk_hash_block` > 0).
    Writer(File file, Layout layout, std::uint32_t chunk_hash_block = 0);

    // Hashes the chunks of variable `id` and, if `write_data`, writes them.
    // Either way the file must end up holding them, each container's unused
    // tail zero.
    void add(int id, std::span<const std::byte> data, bool write_data = true);
    // Version 2 files: records variable `id` (`bytes` long) from the CRC-32s
    // of each chunk's hash blocks, which the caller computed from the data it
    // wrote; nothing is read or written.
    using BlockCrcs = std::function<std::vector<std::uint32_t>(const Chunk&)>;
    void add_block_crcs(int id, std::size_t bytes, const BlockCrcs& block_crcs);
    bool has(int id) const;

    struct Result {
        FileBlock fb;
        std::uint32_t crc32 = 0;  // of the whole file
    };
    // Syncs and closes. max_fs and pt_fs are the group's largest and the
    // partner's file sizes (0 when unknown). Throws a usage Error if a
    // variable with content in the layout was never added.
    Result finish(std::int64_t max_fs, std::int64_t pt_fs, std::int64_t timestamp);
    // The same through `out` (an in-place updater's journal, say), which it
    // syncs; the file is left open and untouched.
    Result finish_into(PlacedOutput& out, std::int64_t max_fs, std::int64_t pt_fs, std::int64_t timestamp);

    File& file() { return file_; }

    const Layout& layout() const { return layout_; }  // with the chunk hashes

  private:
    void check_size(int id, std::size_t bytes) const;
    void set_chunk(std::size_t block, std::size_t index, const Md5& hash, std::uint32_t chunk_crc);

    File file_;
    Layout layout_;
    std::vector<std::vector<std::uint32_t>> container_crcs_;  // [block][chunk]
    std::vector<int> added_;
};

// Writes the whole file at once (every variable in `vars`); `layout` gets the
// chunk hashes. Returns the file block.
FileBlock write_file(const fs::path& path, Layout& layout, const std::vector<VariableData>& vars, std::int64_t max_fs,
                     std::int64_t pt_fs, std::int64_t timestamp);

struct FileStructure {
    FileBlock fb;
    Layout layout;
};

// True when the file starts with a file block carrying the FTI-FF magic.
bool is_ftiff(const File& file);

// Reads FB and every block record, checking the FB hash, the metadata
// checksum, the file size and that every container lies inside its block.
// Throws a corrupt Error naming the file and the defect.
FileStructure read_structure(const File& file);

// Bytes stored for variable `id` (sum of its chunks); -1 when absent.
std::int64_t stored_bytes(const Layout& layout, int id);

// Reads variable `id` into `out` (exactly its stored size), checking the hash
// of every chunk; a mismatch names the variable and the chunk's file offset.
// `in_page_cache`: the file was just read whole (verified), so the reads go
// through the page cache, whatever the hash.
void read_variable(const File& file, const Layout& layout, int id, std::span<std::byte> out,
                   bool in_page_cache = false);

// Checks the hash of every chunk and that every container's unused tail is
// zero, streaming in pieces of `buffer_bytes`; returns the number of chunks
// checked. Throws like read_variable.
std::size_t verify_chunks(const File& file, const Layout& layout, std::size_t buffer_bytes);

}  // namespace mlckpt::core::ftiff
