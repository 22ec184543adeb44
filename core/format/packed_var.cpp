#include "format/packed_var.hpp"

#include <algorithm>
#include <functional>
#include <future>
#include <vector>

#include "common/error.hpp"
#include "compress/packed_frame.hpp"
#include "hash/crc32.hpp"
#include "io/buffer_pool.hpp"

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
// the variable's CRC-32 at the end. With `stable_place` (the places are
// parts of one output, known in advance), blocks stored as they are are
// read straight into their place, as an uncompressed variable is.
void decode_packed_var(const File& file, const Extents& extents, const VarRecord& var,
                       const std::function<std::span<std::byte>(std::uint64_t, std::size_t)>& place,
                       const std::function<void(std::span<const std::byte>)>& use, bool stable_place) {
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
    // at least), all stored as they are or none. The next batch is read
    // while this one is decoded.
    struct Batch {
        std::size_t first;
        std::size_t last;
        std::uint64_t bytes;
        std::uint64_t raw_bytes;
        bool direct;  // read into its place: blocks as they are, stable places
    };
    std::vector<Batch> batches;
    for (std::size_t first = 0; first < blocks.size();) {
        const bool as_is = blocks[first].as_is();
        Batch b{first, first + 1, blocks[first].stored, blocks[first].raw_length, as_is && stable_place};
        while (b.last < blocks.size() && blocks[b.last].as_is() == as_is &&
               b.bytes + blocks[b.last].stored <= kBatchBytes &&
               b.raw_bytes + blocks[b.last].raw_length <= kBatchBytes) {
            b.bytes += blocks[b.last].stored;
            b.raw_bytes += blocks[b.last++].raw_length;
        }
        batches.push_back(b);
        first = b.last;
    }
    // From the pool: kept from one variable (and one restart's read) to the
    // next, huge pages when large, so that no read pays for fresh memory.
    std::uint64_t largest = 0;
    for (const Batch& b : batches) largest = b.direct ? largest : std::max(largest, b.bytes);
    PooledBuffer buffers[2];
    if (largest > 0) {
        for (PooledBuffer& b : buffers) b = take_buffer(static_cast<std::size_t>(largest));
    }
    auto raw_of = [&](const Batch& b) {
        return place(blocks[b.first].raw_offset, static_cast<std::size_t>(b.raw_bytes));
    };
    auto stored_of = [&](std::size_t k) {
        if (batches[k].direct) return raw_of(batches[k]);
        return std::span(buffers[k % 2].data(), static_cast<std::size_t>(batches[k].bytes));
    };
    auto read_batch = [&](std::size_t k) {
        read_stream(file, extents, var.offset + blocks[batches[k].first].offset, stored_of(k));
    };
    std::future<void> reading;  // after the buffers: a failure waits for the read in flight
    if (!batches.empty()) reading = std::async(std::launch::async, read_batch, 0);
    std::uint32_t crc = 0;
    for (std::size_t k = 0; k < batches.size(); ++k) {
        reading.get();
        if (k + 1 < batches.size()) reading = std::async(std::launch::async, read_batch, k + 1);
        const Batch& b = batches[k];
        const std::span<std::byte> raw = raw_of(b);
        const std::uint32_t batch_crc = decode_packed_blocks(
            trailer, std::span(blocks).subspan(b.first, b.last - b.first), stored_of(k), raw, codec_threads(), what);
        crc = k == 0 ? batch_crc : crc32_combine(crc, batch_crc, raw.size());
        use(raw);
    }
    if (crc != var.crc32) {
        fail(Damage::checksum, what + " fails its checksum after decompression: stored " + crc32_hex(var.crc32) +
                                   ", read " + crc32_hex(crc));
    }
}

}  // namespace

void read_packed_var(const File& file, const Extents& extents, const VarRecord& var, std::span<std::byte> out) {
    decode_packed_var(
        file, extents, var,
        [&](std::uint64_t offset, std::size_t length) { return out.subspan(static_cast<std::size_t>(offset), length); },
        [](std::span<const std::byte>) {}, true);
}

void stream_packed_var(const File& file, const Extents& extents, const VarRecord& var,
                       const std::function<void(std::span<const std::byte>)>& use) {
    PooledBuffer scratch;  // from the pool, as the stored batches: no fresh memory per variable
    decode_packed_var(
        file, extents, var,
        [&](std::uint64_t, std::size_t length) {
            if (scratch.size() < length) scratch = take_buffer(length);
            return std::span(scratch.data(), length);
        },
        use, false);
}

}  // namespace mlckpt::core
