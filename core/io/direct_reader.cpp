#include "io/direct_reader.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mlckpt::core {

DirectReader::DirectReader(const File& file, std::size_t staging_bytes)
    : file_(file), direct_(file.descriptor_path(), O_RDONLY, staging_bytes) {}

std::size_t DirectReader::read_direct(std::byte* out, std::size_t length, std::uint64_t offset) {
    while (length > 0 && direct_.open()) {
        const std::size_t n = std::min(length, direct_.staging_bytes());
        std::byte* into = is_direct_aligned(out) ? out : direct_.staging();
        ssize_t done = ::pread(direct_.fd(), into, n, static_cast<off_t>(offset));
        if (done < 0 && errno == EINTR) continue;
        if (done < 0 && errno == EINVAL) {  // alignment the device does not take: page cache from now on
            direct_.close();
            break;
        }
        // An error, the end of the file or a partial block: the buffered
        // read does the rest and names what is wrong.
        if (done <= 0) break;
        const std::size_t whole = static_cast<std::size_t>(done) / kDirectAlign * kDirectAlign;
        if (into != out) std::memcpy(out, into, whole);
        out += whole;
        offset += whole;
        length -= whole;
        if (whole != static_cast<std::size_t>(done) || whole < n) break;
    }
    return length;
}

void DirectReader::read_at(std::span<std::byte> out, std::uint64_t offset) {
    if (!direct_.open()) {
        file_.read_exact_at(out, offset);
        return;
    }
    split_at_aligned_offsets(
        offset, out.size(),
        [&](std::size_t pos, std::size_t n) { file_.read_exact_at(out.subspan(pos, n), offset + pos); },
        [&](std::size_t pos, std::size_t n) { return read_direct(out.data() + pos, n, offset + pos); });
}

}  // namespace mlckpt::core
