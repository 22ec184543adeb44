// One rank's FTI-FF file: written from the variables in memory following a
// Layout, and read back with every hash checked, without any other file.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "format/ftiff_codec.hpp"
#include "io/file.hpp"

namespace mlckpt::core::ftiff {

struct VariableData {
    int id = 0;
    std::span<const std::byte> bytes;
};

// Writes the file (`layout` already updated for `vars`; the chunk hashes are
// stored into it), syncs it, and returns its file block. max_fs and pt_fs
// are the group's largest and the partner's file sizes (0 when unknown).
FileBlock write_file(const fs::path& path, Layout& layout, const std::vector<VariableData>& vars,
                     std::int64_t max_fs, std::int64_t pt_fs, std::int64_t timestamp);

struct FileStructure {
    FileBlock fb;
    Layout layout;
};

// Reads FB and every block record, checking the FB hash, the metadata
// checksum, the file size and that every container lies inside its block.
// Throws a corrupt Error naming the file and the defect.
FileStructure read_structure(const File& file);

// Bytes stored for variable `id` (sum of its chunks); -1 when absent.
std::int64_t stored_bytes(const Layout& layout, int id);

// Reads variable `id` into `out` (exactly its stored size), checking the MD5
// of every chunk; a mismatch names the variable and the chunk's file offset.
void read_variable(const File& file, const Layout& layout, int id, std::span<std::byte> out);

// Checks the MD5 of every chunk, streaming in pieces of `buffer_bytes`;
// returns the number of chunks checked. Throws like read_variable.
std::size_t verify_chunks(const File& file, const Layout& layout, std::size_t buffer_bytes);

}  // namespace mlckpt::core::ftiff
