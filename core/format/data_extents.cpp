#include "format/data_extents.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "format/packed_var.hpp"
#include "hash/crc32.hpp"
#include "io/buffer_pool.hpp"

namespace mlckpt::core {

std::uint64_t total_length(const Extents& extents) {
    std::uint64_t sum = 0;
    for (const Extent& e : extents) sum += e.length;
    return sum;
}

Extents sub_extents(const Extents& extents, std::uint64_t pos, std::uint64_t length) {
    Extents out;
    std::uint64_t start = 0;  // stream position of the current extent
    for (const Extent& e : extents) {
        if (length == 0) break;
        if (pos < start + e.length) {
            std::uint64_t skip = pos - start;
            std::uint64_t n = std::min(length, e.length - skip);
            out.push_back({e.offset + skip, n});
            pos += n;
            length -= n;
        }
        start += e.length;
    }
    if (length != 0) {
        fail(ErrorKind::corrupt, "the data holds " + std::to_string(start) + " bytes, fewer than " +
                                     std::to_string(pos + length) + " asked for");
    }
    return out;
}

void check_var_crc(const File& file, const VarRecord& var, std::span<const std::byte> data) {
    std::uint32_t crc = crc32_of(data);
    if (crc != var.crc32) {
        fail(Damage::checksum, "variable " + std::to_string(var.id) + " in '" + file.path().string() + "' (bytes " +
                                   std::to_string(var.offset) + ".." + std::to_string(var.offset + var.size) +
                                   " of its rank's data) fails its checksum: stored " + crc32_hex(var.crc32) +
                                   ", read " + crc32_hex(crc));
    }
}

void read_checked_var(const File& file, const Extents& extents, const VarRecord& var, std::span<std::byte> out) {
    if (out.size() != var.size) {
        fail(ErrorKind::usage, "variable " + std::to_string(var.id) + ": buffer of " + std::to_string(out.size()) +
                                   " bytes for " + std::to_string(var.size) + " stored bytes");
    }
    if (var.packed()) {
        read_packed_var(file, extents, var, out);
        return;
    }
    std::size_t done = 0;
    for (const Extent& e : sub_extents(extents, var.offset, var.size)) {
        file.read_exact_at(out.subspan(done, static_cast<std::size_t>(e.length)), e.offset);
        done += static_cast<std::size_t>(e.length);
    }
    check_var_crc(file, var, out);
}

void for_each_piece(const File& file, const Extents& extents, std::size_t buffer_bytes,
                    const std::function<void(std::span<const std::byte>)>& use) {
    PooledBuffer buffer = take_buffer(std::max<std::size_t>(buffer_bytes, 4096));
    for (const Extent& e : extents) {
        for (std::uint64_t pos = 0; pos < e.length;) {
            auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), e.length - pos));
            std::span<std::byte> piece(buffer.data(), n);
            file.read_exact_at(piece, e.offset + pos);
            use(piece);
            pos += n;
        }
    }
}

std::uint32_t crc32_of_extents(const File& file, const Extents& extents, std::size_t buffer_bytes) {
    Crc32 crc;
    for_each_piece(file, extents, buffer_bytes, [&](std::span<const std::byte> piece) { crc.update(piece); });
    return crc.value();
}

}  // namespace mlckpt::core
