// Reads large ranges of a file around the page cache (O_DIRECT). A cold
// buffered read costs the CPU the page cache's allocations and a copy out
// of it; when the data is hashed at MD5 speed on the same cores (FTI-FF
// recovery), that CPU time is what the read adds to the hash. A direct read
// lands in an aligned staging buffer and is copied once, or lands in the
// caller's memory when that is aligned already.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "io/direct_io.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

class DirectReader {
  public:
    // A second descriptor on `file` opened with O_DIRECT, and a staging
    // buffer of `staging_bytes` (a multiple of kDirectAlign). When the file
    // system refuses direct I/O, every read goes through `file`.
    DirectReader(const File& file, std::size_t staging_bytes);

    // Reads exactly out.size() bytes at `offset`: the part between aligned
    // file offsets directly, the unaligned edges (and whatever a direct read
    // leaves) through `file`. Errors, a short file included, throw like
    // File::read_exact_at.
    void read_at(std::span<std::byte> out, std::uint64_t offset);

    bool direct() const { return direct_.open(); }

  private:
    // Reads whole aligned blocks; returns the bytes left for the buffered
    // path (after a refusal, an error or the end of the file).
    std::size_t read_direct(std::byte* out, std::size_t length, std::uint64_t offset);

    const File& file_;
    DirectDescriptor direct_;
};

}  // namespace mlckpt::core
