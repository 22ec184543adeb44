#include "format/packed_var.hpp"

#include <algorithm>
#include <functional>
#include <vector>

#include "common/error.hpp"
#include "compress/packed_frame.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {

namespace {

// Stored bytes read at once: enough blocks for every codec thread.
constexpr std::uint64_t kBatchBytes = std::uint64_t{16} << 20;

void read_stream(const File& file, const Extents& extents, std::uint64_t pos, std::span<std::byte> out) {
    std::size_t done = 0;
    for (const Extent& e : sub_extents(extents, pos, out.size())) {
        file.read_exact_at(out.subspan(done, static_cast<std::size_t>(e.length)), e.offset);
        done += static_cast<std::size_t>(e.length);
    }
}

// Decodes `var` batch by batch: `place(raw_offset, raw_length)` says where
// a batch's raw bytes go, `use` sees them once decoded and checked. Checks
// the variable's CRC-32 at the end.
void decode_packed_var(const File& file, const Extents& extents, const VarRecord& var,
                       const std::function<std::span<std::byte>(std::uint64_t, std::size_t)>& place,
                       const std::function<void(std::span<const std::byte>)>& use) {
    const std::string what = "variable " + std::to_string(var.id) + " in '" + file.path().string() + "'";
    const std::uint64_t frame = var.stored;
    if (frame < kPackedTrailerBytes) {
        fail(ErrorKind::corrupt, what + ": its compressed frame of " + std::to_string(frame) + " bytes is too short");
    }
    std::byte trailer_bytes[kPackedTrailerBytes];
    read_stream(file, extents, var.offset + frame - kPackedTrailerBytes, trailer_bytes);
    const PackedTrailer trailer = parse_packed_trailer(trailer_bytes, frame, what);
    if (trailer.raw_size != var.size) {
        fail(ErrorKind::corrupt, what + ": its compressed frame holds " + std::to_string(trailer.raw_size) +
                                     " bytes, its metadata says " + std::to_string(var.size));
    }
    std::vector<std::byte> table(static_cast<std::size_t>(trailer.table_bytes()));
    read_stream(file, extents, var.offset + frame - kPackedTrailerBytes - table.size(), table);
    const std::vector<PackedBlock> blocks = parse_packed_table(trailer, table, frame, what);

    std::vector<std::byte> stored;
    std::uint32_t crc = 0;
    for (std::size_t first = 0; first < blocks.size();) {
        // Consecutive blocks up to the batch's bytes, stored and raw (one
        // block at least).
        std::size_t last = first + 1;
        std::uint64_t bytes = blocks[first].stored;
        std::uint64_t raw_bytes = blocks[first].raw_length;
        while (last < blocks.size() && bytes + blocks[last].stored <= kBatchBytes &&
               raw_bytes + blocks[last].raw_length <= kBatchBytes) {
            bytes += blocks[last].stored;
            raw_bytes += blocks[last++].raw_length;
        }
        stored.resize(static_cast<std::size_t>(bytes));
        read_stream(file, extents, var.offset + blocks[first].offset, stored);
        auto raw = place(blocks[first].raw_offset, static_cast<std::size_t>(raw_bytes));
        const std::uint32_t batch_crc = decode_packed_blocks(trailer, std::span(blocks).subspan(first, last - first),
                                                             stored, raw, codec_threads(), what);
        crc = first == 0 ? batch_crc : crc32_combine(crc, batch_crc, raw.size());
        use(raw);
        first = last;
    }
    if (crc != var.crc32) {
        fail(ErrorKind::corrupt, what + " fails its checksum after decompression: stored " + crc32_hex(var.crc32) +
                                     ", read " + crc32_hex(crc));
    }
}

}  // namespace

void read_packed_var(const File& file, const Extents& extents, const VarRecord& var, std::span<std::byte> out) {
    decode_packed_var(
        file, extents, var,
        [&](std::uint64_t offset, std::size_t length) { return out.subspan(static_cast<std::size_t>(offset), length); },
        [](std::span<const std::byte>) {});
}

void stream_packed_var(const File& file, const Extents& extents, const VarRecord& var,
                       const std::function<void(std::span<const std::byte>)>& use) {
    std::vector<std::byte> scratch;
    decode_packed_var(
        file, extents, var,
        [&](std::uint64_t, std::size_t length) {
            scratch.resize(length);
            return std::span(scratch);
        },
        use);
}

}  // namespace mlckpt::core
