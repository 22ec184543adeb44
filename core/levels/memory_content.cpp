#include "levels/memory_content.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "common/error.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {

void MemoryContent::append(std::span<const std::byte> part) {
    if (part.empty()) return;
    parts_.push_back(part);
    size_ += part.size();
}

void MemoryContent::copy_out(std::uint64_t offset, std::span<std::byte> out) const {
    if (offset > size_ || out.size() > size_ - offset) {
        fail(ErrorKind::usage, "reading " + std::to_string(out.size()) + " bytes at " + std::to_string(offset) +
                                   " of a content of " + std::to_string(size_) + " bytes");
    }
    std::size_t done = 0;
    for (std::span<const std::byte> part : parts_) {
        if (done == out.size()) break;
        if (offset >= part.size()) {
            offset -= part.size();
            continue;
        }
        const std::size_t n = std::min<std::size_t>(part.size() - offset, out.size() - done);
        std::memcpy(out.data() + done, part.data() + offset, n);
        done += n;
        offset = 0;
    }
}

std::uint32_t MemoryContent::crc32() const {
    Crc32 crc;
    for (std::span<const std::byte> part : parts_) crc.update(part);
    return crc.value();
}

}  // namespace mlckpt::core
