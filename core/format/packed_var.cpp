#include "format/packed_var.hpp"

#include <algorithm>
#include <functional>
#include <future>
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

    // Consecutive blocks up to the batch's bytes, stored and raw (one block
    // at least). The next batch is read while this one is decoded.
    struct Batch {
        std::size_t first;
        std::size_t last;
        std::uint64_t bytes;
        std::uint64_t raw_bytes;
    };
    std::vector<Batch> batches;
    for (std::size_t first = 0; first < blocks.size();) {
        Batch b{first, first + 1, blocks[first].stored, blocks[first].raw_length};
        while (b.last < blocks.size() && b.bytes + blocks[b.last].stored <= kBatchBytes &&
               b.raw_bytes + blocks[b.last].raw_length <= kBatchBytes) {
            b.bytes += blocks[b.last].stored;
            b.raw_bytes += blocks[b.last++].raw_length;
        }
        batches.push_back(b);
        first = b.last;
    }
    std::vector<std::byte> stored[2];
    auto read_batch = [&](std::size_t k) {
        std::vector<std::byte>& into = stored[k % 2];
        into.resize(static_cast<std::size_t>(batches[k].bytes));
        read_stream(file, extents, var.offset + blocks[batches[k].first].offset, into);
    };
    std::future<void> reading;  // after the buffers: a failure waits for the read in flight
    if (!batches.empty()) reading = std::async(std::launch::async, read_batch, 0);
    std::uint32_t crc = 0;
    for (std::size_t k = 0; k < batches.size(); ++k) {
        reading.get();
        if (k + 1 < batches.size()) reading = std::async(std::launch::async, read_batch, k + 1);
        const Batch& b = batches[k];
        auto raw = place(blocks[b.first].raw_offset, static_cast<std::size_t>(b.raw_bytes));
        const std::uint32_t batch_crc = decode_packed_blocks(
            trailer, std::span(blocks).subspan(b.first, b.last - b.first), stored[k % 2], raw, codec_threads(), what);
        crc = k == 0 ? batch_crc : crc32_combine(crc, batch_crc, raw.size());
        use(raw);
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
