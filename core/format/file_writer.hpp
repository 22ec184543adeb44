// What every checkpoint file format offers the checkpoint engine: variables
// go in one at a time (written before add() returns, so the application may
// reuse the buffer, unless the writer was told the buffers stay untouched
// until finish()), and finish() makes the file durable and describes it for
// the checkpoint metadata.
#pragma once

#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "format/checkpoint_meta.hpp"

namespace mlckpt::core {

namespace ftiff {
class Layout;
}

class FileWriter {
  public:
    virtual ~FileWriter() = default;

    virtual void add(int id, std::span<const std::byte> data, const std::string& name) = 0;
    virtual bool has(int id) const = 0;
    // Syncs and closes; the record holds size, CRC-32 of the whole file and
    // the variable table.
    virtual FileRecord finish() = 0;
    // FTI-FF files: their container layout (with the chunk hashes once
    // finished), where the next checkpoint starts; nullptr for other formats.
    virtual const ftiff::Layout* ftiff_layout() const { return nullptr; }
    // Shared files: finish() is collective and gives the file its final
    // name itself; every rank must call it, or none.
    virtual bool collective() const { return false; }
    // Shared files: the final paths of the files written, removed if the
    // checkpoint is discarded after finish().
    virtual std::vector<std::filesystem::path> shared_paths() const { return {}; }
};

}  // namespace mlckpt::core
