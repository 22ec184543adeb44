// Writes large ranges of a file around the page cache (O_DIRECT). A buffered
// write costs the CPU a copy into the page cache and, once the cache is full
// of older checkpoints, the reclaim of those pages: on a busy node that is
// as much CPU time as hashing the data, and the two compete for the same
// cores. A direct write hands the bytes to the device from an aligned
// staging buffer (one memcpy) or from the caller's memory when it is
// aligned already.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "io/direct_io.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

class DirectWriter {
  public:
    // A second descriptor on `file` (which must exist) opened with O_DIRECT,
    // and a staging buffer of `staging_bytes` (a multiple of kDirectAlign). When
    // the file system refuses direct I/O, every write goes through `file`.
    DirectWriter(File& file, std::size_t staging_bytes);

    // Writes `data` at `offset`: the part between aligned file offsets
    // directly, the unaligned edges through `file`'s page cache. The data is
    // on the device or in the page cache when this returns; File::sync()
    // makes both durable. Errors throw like File::write_all_at.
    void write_at(std::span<const std::byte> data, std::uint64_t offset);

    bool direct() const { return direct_.open(); }

  private:
    // Writes whole aligned blocks; returns the bytes that are left for the
    // buffered path (after a refusal or a short write).
    std::size_t write_direct(const std::byte* data, std::size_t length, std::uint64_t offset);

    File& file_;
    DirectDescriptor direct_;
};

}  // namespace mlckpt::core
