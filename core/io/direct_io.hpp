// What reads and writes around the page cache (O_DIRECT) share: a second
// descriptor on the file with an aligned staging buffer, and the split of a
// range into the unaligned head and tail, which go through the page cache,
// and the aligned body, which goes direct.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>

#include "io/buffer_pool.hpp"

namespace mlckpt::core {

// Direct I/O alignment of offsets, lengths and memory: the largest logical
// block size of common devices.
inline constexpr std::size_t kDirectAlign = 4096;

bool is_direct_aligned(const void* p);

// Cuts the file range [offset, offset + size) at aligned file offsets:
// cached(pos, n) gets the unaligned head, direct(pos, n) the whole aligned
// blocks after it and returns how many of their bytes it left undone, and
// cached gets everything after what direct did. pos counts from `offset`.
template <typename Cached, typename Direct>
void split_at_aligned_offsets(std::uint64_t offset, std::size_t size, Cached&& cached, Direct&& direct) {
    const std::size_t head = std::min<std::size_t>(size, (kDirectAlign - offset % kDirectAlign) % kDirectAlign);
    const std::size_t body = (size - head) / kDirectAlign * kDirectAlign;
    if (head > 0) cached(std::size_t{0}, head);
    const std::size_t done = head + body - direct(head, body);  // first byte not handled yet
    if (done < size) cached(done, size - done);
}

// An O_DIRECT descriptor and its staging buffer. When the file system
// refuses direct I/O (tmpfs, some network file systems), or memory is
// short, it is not open() and the caller goes through the page cache:
// always correct, only slower.
class DirectDescriptor {
  public:
    // open_flags: O_RDONLY or O_WRONLY; the file must exist.
    DirectDescriptor(const std::filesystem::path& path, int open_flags, std::size_t staging_bytes);
    DirectDescriptor(const DirectDescriptor&) = delete;
    DirectDescriptor& operator=(const DirectDescriptor&) = delete;
    ~DirectDescriptor();

    bool open() const { return fd_ >= 0; }
    int fd() const { return fd_; }
    void close();  // from now on, the page cache
    std::byte* staging() const { return staging_.data(); }
    std::size_t staging_bytes() const { return staging_.size(); }

  private:
    int fd_ = -1;
    PooledBuffer staging_;
};

}  // namespace mlckpt::core
