// A rank's checkpoint file as it still is in memory: the protected
// variables' bytes, in file order. L2 sends it and L3 encodes it from there
// instead of reading the file back, so the file can be written around the
// page cache and the disk is not read while it is busy writing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace mlckpt::core {

class MemoryContent {
  public:
    void append(std::span<const std::byte> part);

    std::uint64_t size() const { return size_; }
    // Copies out.size() bytes from `offset` of the content; out must lie
    // within it.
    void copy_out(std::uint64_t offset, std::span<std::byte> out) const;
    // CRC-32 of the whole content, as of the file written from it.
    std::uint32_t crc32() const;

  private:
    std::vector<std::span<const std::byte>> parts_;
    std::uint64_t size_ = 0;
};

}  // namespace mlckpt::core
