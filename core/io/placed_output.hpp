// Where positioned writes of a file's bytes go: straight into the file, or
// (L4 differential updates) into a journal that applies them to the file
// once the checkpoint is committed.
#pragma once

#include <cstdint>
#include <span>

#include "io/file.hpp"

namespace mlckpt::core {

class PlacedOutput {
  public:
    virtual ~PlacedOutput() = default;
    virtual void write_at(std::span<const std::byte> bytes, std::uint64_t offset) = 0;
    virtual void zeros_at(std::uint64_t offset, std::uint64_t length) = 0;
    virtual void resize(std::uint64_t size) = 0;
    // Everything written so far is durable when this returns.
    virtual void sync() = 0;
};

// Writes into an open file.
class FileOutput final : public PlacedOutput {
  public:
    explicit FileOutput(File& file) : file_(file) {}
    void write_at(std::span<const std::byte> bytes, std::uint64_t offset) override;
    void zeros_at(std::uint64_t offset, std::uint64_t length) override;
    void resize(std::uint64_t size) override { file_.resize(size); }
    void sync() override { file_.sync(); }

  private:
    File& file_;
};

}  // namespace mlckpt::core
