// The files an application routes into a dataset (scr.h) and writes itself:
// sealing them into FULL records (size, CRC-32, synced), checking them
// against their records at restart, and presenting one rank's files to the
// L2/L3 redundancy as a single stream (their concatenation in record
// order), which is what partner copies and parity protect.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "format/checkpoint_meta.hpp"
#include "io/file.hpp"
#include "io/mapped_file.hpp"
#include "levels/memory_content.hpp"

namespace mlckpt::core {

namespace fs = std::filesystem;

// A file as the application named it in SCR_Route_file.
struct RoutedName {
    std::string orig;      // the name as given
    fs::path origpath;     // its directory, absolute
    std::string origname;  // its last component
};

// Splits `name` (relative names against `cwd`). Throws a usage Error for a
// name without a file component.
RoutedName routed_name(const std::string& name, const fs::path& cwd);

// The FULL record of the file at `path` (fsynced first, so that the
// dataset's commit never names bytes still in the page cache). Throws an io
// Error naming the file when it is missing or unreadable.
FileRecord seal_routed_file(const fs::path& path, const RoutedName& name, int rank, int node, std::size_t buffer);

// Whether the file at `path` has the size and CRC-32 of `record`; the
// problem in words when not.
std::optional<std::string> check_routed_file(const fs::path& path, const FileRecord& record, std::size_t buffer);

// One rank's files in record order, mapped read-only: the stream the L2/L3
// redundancy is made from without copying it.
class MappedFiles {
  public:
    explicit MappedFiles(const std::vector<fs::path>& paths);

    const MemoryContent& content() const { return content_; }

  private:
    std::vector<MappedFile> files_;
    MemoryContent content_;
};

// The record of the stream of `files` (one rank's FULL records): their
// total size and the CRC-32 of their concatenation, named `name`.
FileRecord stream_record(const std::vector<FileRecord>& files, int rank, int node, const std::string& name);

// Restart repairs: writes the stream of `sources` as file `name` in `dir`
// (a surviving member's share of a rebuild), and cuts a rebuilt stream back
// into its files (records in stream order) in `target`, each checked
// against its record. Both write temporary names, sync and rename. With
// `expected`, the stream written must have its size and CRC-32 before it
// takes its name (a corrupt Error otherwise).
void write_stream_file(const std::vector<fs::path>& sources, const Directory& dir, const std::string& name,
                       std::size_t buffer, const FileRecord* expected = nullptr);
void split_stream_file(const fs::path& stream, const std::vector<FileRecord>& files, const Directory& target,
                       std::size_t buffer);

}  // namespace mlckpt::core
