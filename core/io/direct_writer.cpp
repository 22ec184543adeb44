#include "io/direct_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace mlckpt::core {

namespace {

bool aligned(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % DirectWriter::kAlign == 0;
}

}  // namespace

DirectWriter::DirectWriter(File& file, std::size_t staging_bytes)
    : file_(file), staging_bytes_(staging_bytes), staging_(nullptr, std::free) {
    do {
        fd_ = ::open(file.path().c_str(), O_WRONLY | O_DIRECT | O_CLOEXEC);
    } while (fd_ < 0 && errno == EINTR);
    // No direct I/O here (tmpfs, some network file systems): the page cache
    // path is always correct, only slower.
    if (fd_ < 0) return;
    staging_.reset(static_cast<std::byte*>(std::aligned_alloc(kAlign, staging_bytes_)));
    if (!staging_) {
        ::close(fd_);
        fd_ = -1;
    }
}

DirectWriter::~DirectWriter() {
    if (fd_ >= 0) ::close(fd_);
}

std::size_t DirectWriter::write_direct(const std::byte* data, std::size_t length, std::uint64_t offset) {
    while (length > 0 && fd_ >= 0) {
        const std::size_t n = std::min(length, staging_bytes_);
        const std::byte* from = data;
        if (!aligned(data)) {
            std::memcpy(staging_.get(), data, n);
            from = staging_.get();
        }
        ssize_t done = ::pwrite(fd_, from, n, static_cast<off_t>(offset));
        if (done < 0 && errno == EINTR) continue;
        if (done < 0 && errno == EINVAL) {  // alignment the device does not take: page cache from now on
            ::close(fd_);
            fd_ = -1;
            break;
        }
        // Any other failure, and what a short write leaves, goes through the
        // page cache, whose write reports the reason (a full disk, say).
        if (done <= 0 || static_cast<std::size_t>(done) % kAlign != 0) break;
        data += done;
        offset += static_cast<std::uint64_t>(done);
        length -= static_cast<std::size_t>(done);
    }
    return length;
}

void DirectWriter::write_at(std::span<const std::byte> data, std::uint64_t offset) {
    if (fd_ < 0) {
        file_.write_all_at(data, offset);
        return;
    }
    const std::size_t head = std::min<std::size_t>(data.size(), (kAlign - offset % kAlign) % kAlign);
    const std::size_t body = (data.size() - head) / kAlign * kAlign;
    if (head > 0) file_.write_all_at(data.first(head), offset);
    const std::size_t left = write_direct(data.data() + head, body, offset + head);
    const std::size_t rest = head + body - left;  // first byte not written yet
    if (rest < data.size()) file_.write_all_at(data.subspan(rest), offset + rest);
}

}  // namespace mlckpt::core
