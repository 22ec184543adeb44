// A rank's L4 checkpoint into a shared file (format/shared/shared_file.hpp): its
// variables follow each other in its slice as in a POSIX file, with their
// CRC-32s and the slice's computed from memory on the way.
#pragma once

#include <memory>

#include "format/file_writer.hpp"
#include "format/shared/shared_file.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {

class SliceWriter final : public FileWriter {
  public:
    // `file` holds this rank's task only. With `deferred`, the variables'
    // buffers stay untouched until finish(), which writes them in collective
    // rounds; otherwise add() writes each one at once, independently.
    SliceWriter(std::unique_ptr<SharedFile> file, bool deferred);

    void add(int id, std::span<const std::byte> data, const std::string& name) override;
    bool has(int id) const override { return record_.find_var(id) != nullptr; }
    FileRecord finish() override;  // collective
    bool collective() const override { return true; }
    std::vector<fs::path> shared_paths() const override { return file_->paths(); }

  private:
    std::unique_ptr<SharedFile> file_;
    bool deferred_;
    SpanStream pending_;
    std::uint32_t slice_crc_ = 0;
    FileRecord record_;
};

}  // namespace mlckpt::core
