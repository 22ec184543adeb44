#include "io/direct_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mlckpt::core {

DirectWriter::DirectWriter(File& file, std::size_t staging_bytes)
    : file_(file), direct_(file.descriptor_path(), O_WRONLY, staging_bytes) {}

std::size_t DirectWriter::write_direct(const std::byte* data, std::size_t length, std::uint64_t offset) {
    while (length > 0 && direct_.open()) {
        // Aligned memory goes to the device as it is; other memory is copied
        // through the staging buffer, a staging buffer at a time.
        const bool aligned = is_direct_aligned(data);
        const std::size_t n = aligned ? length : std::min(length, direct_.staging_bytes());
        const std::byte* from = data;
        if (!aligned) {
            std::memcpy(direct_.staging(), data, n);
            from = direct_.staging();
        }
        ssize_t done = ::pwrite(direct_.fd(), from, n, static_cast<off_t>(offset));
        if (done < 0 && errno == EINTR) continue;
        if (done < 0 && errno == EINVAL) {  // alignment the device does not take: page cache from now on
            direct_.close();
            break;
        }
        // Any other failure, and what a short write leaves, goes through the
        // page cache, whose write reports the reason (a full disk, say).
        if (done <= 0 || static_cast<std::size_t>(done) % kDirectAlign != 0) break;
        data += done;
        offset += static_cast<std::uint64_t>(done);
        length -= static_cast<std::size_t>(done);
    }
    return length;
}

void DirectWriter::write_at(std::span<const std::byte> data, std::uint64_t offset) {
    if (!direct_.open()) {
        file_.write_all_at(data, offset);
        return;
    }
    split_at_aligned_offsets(
        offset, data.size(),
        [&](std::size_t pos, std::size_t n) { file_.write_all_at(data.subspan(pos, n), offset + pos); },
        [&](std::size_t pos, std::size_t n) { return write_direct(data.data() + pos, n, offset + pos); });
}

}  // namespace mlckpt::core
