#include "compress/packed_frame.hpp"

#include <algorithm>
#include <cstring>

#include "common/byte_order.hpp"
#include "common/error.hpp"
#include "common/parallel_ranges.hpp"
#include "compress/lossy_codec.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {

namespace {

constexpr std::uint32_t kFrameMagic = 0x5a434c4d;  // "MLCZ"
constexpr std::uint16_t kFrameVersion = 1;
constexpr std::size_t kCheckedTrailerBytes = 24;  // what the trailer's CRC covers

std::string block_name(const PackedTrailer& t, const PackedBlock& b) {
    return "block " + std::to_string(b.raw_offset / t.block_bytes) + " of " + std::to_string(t.blocks) +
           " (raw bytes " + std::to_string(b.raw_offset) + ".." + std::to_string(b.raw_offset + b.raw_length) + ")";
}

}  // namespace

PackedTrailer parse_packed_trailer(std::span<const std::byte> trailer, std::uint64_t frame_bytes,
                                   const std::string& what) {
    auto bad = [&](const std::string& defect) {
        fail(ErrorKind::corrupt, what + ": not a valid compressed variable: " + defect);
    };
    if (trailer.size() != kPackedTrailerBytes || frame_bytes < kPackedTrailerBytes) {
        bad("it has " + std::to_string(frame_bytes) + " bytes, fewer than its trailer's " +
            std::to_string(kPackedTrailerBytes));
    }
    const std::byte* p = trailer.data();
    if (load_le<std::uint32_t>(p + 28) != kFrameMagic) bad("its trailer has no MLCZ mark");
    PackedTrailer t;
    t.raw_size = load_le<std::uint64_t>(p);
    t.block_bytes = load_le<std::uint32_t>(p + 8);
    t.blocks = load_le<std::uint32_t>(p + 12);
    const auto codec = static_cast<std::uint8_t>(p[16]);
    t.unit = static_cast<std::uint8_t>(p[17]);
    const auto version = load_le<std::uint16_t>(p + 18);
    t.table_crc = load_le<std::uint32_t>(p + 24);
    if (version != kFrameVersion) bad("version " + std::to_string(version) + ", this library reads version 1");
    if (!is_codec(codec) || codec == static_cast<std::uint8_t>(Codec::none)) {
        bad("unknown codec " + std::to_string(codec));
    }
    t.codec = static_cast<Codec>(codec);
    if (t.unit == 0) bad("a shuffle unit of 0 bytes");
    if (t.codec == Codec::zfp && t.unit != 4 && t.unit != 8) {
        bad("lossy blocks of elements of " + std::to_string(t.unit) + " bytes (allowed: 4 or 8)");
    }
    if (t.block_bytes == 0 || t.block_bytes > kMaxBlockBytes) {
        bad("blocks of " + std::to_string(t.block_bytes) + " bytes (allowed: 1 to " + std::to_string(kMaxBlockBytes) +
            ")");
    }
    // n = ceil(raw / B), computed without overflow.
    const std::uint64_t needed = t.raw_size / t.block_bytes + (t.raw_size % t.block_bytes != 0 ? 1 : 0);
    if (t.codec == Codec::zfp && t.block_bytes % t.unit != 0) {
        bad("lossy blocks of " + std::to_string(t.block_bytes) + " bytes, not whole elements");
    }
    if (needed != t.blocks) {
        bad(std::to_string(t.blocks) + " blocks of " + std::to_string(t.block_bytes) + " bytes for " +
            std::to_string(t.raw_size) + " bytes");
    }
    if (t.table_bytes() > frame_bytes - kPackedTrailerBytes) {
        bad("a table of " + std::to_string(t.blocks) + " blocks does not fit in its " + std::to_string(frame_bytes) +
            " bytes");
    }
    return t;
}

std::vector<PackedBlock> parse_packed_table(const PackedTrailer& t, std::span<const std::byte> table,
                                            std::uint64_t frame_bytes, const std::string& what) {
    auto bad = [&](const std::string& defect, Damage damage = Damage::structure) {
        fail(damage, what + ": not a valid compressed variable: " + defect);
    };
    if (table.size() != t.table_bytes()) bad("its block table is incomplete");
    // The CRC covers the table and the trailer's fields, which are
    // re-encoded here as parsed.
    std::byte fields[kCheckedTrailerBytes] = {};
    store_le(fields, t.raw_size);
    store_le(fields + 8, t.block_bytes);
    store_le(fields + 12, t.blocks);
    fields[16] = static_cast<std::byte>(t.codec);
    fields[17] = static_cast<std::byte>(t.unit);
    store_le(fields + 18, kFrameVersion);
    Crc32 crc;
    crc.update(table);
    crc.update(fields);
    if (crc.value() != t.table_crc) {
        bad("its block table fails its checksum (stored " + crc32_hex(t.table_crc) + ", computed " +
                crc32_hex(crc.value()) + ")",
            Damage::checksum);
    }
    std::vector<PackedBlock> blocks(t.blocks);
    std::uint64_t offset = 0;
    for (std::uint32_t i = 0; i < t.blocks; ++i) {
        PackedBlock& b = blocks[i];
        b.offset = offset;
        b.stored = load_le<std::uint32_t>(table.data() + std::size_t{i} * kPackedTableEntryBytes);
        b.crc32 = load_le<std::uint32_t>(table.data() + std::size_t{i} * kPackedTableEntryBytes + 4);
        b.raw_offset = std::uint64_t{i} * t.block_bytes;
        b.raw_length = static_cast<std::uint32_t>(std::min<std::uint64_t>(t.block_bytes, t.raw_size - b.raw_offset));
        if (b.stored == 0 || b.stored > b.raw_length) {
            bad(block_name(t, b) + " claims " + std::to_string(b.stored) + " stored bytes");
        }
        offset += b.stored;
    }
    if (offset + t.table_bytes() + kPackedTrailerBytes != frame_bytes) {
        bad("its blocks hold " + std::to_string(offset) + " bytes, the frame has room for " +
            std::to_string(frame_bytes - t.table_bytes() - kPackedTrailerBytes));
    }
    return blocks;
}

std::uint32_t decode_packed_blocks(const PackedTrailer& t, std::span<const PackedBlock> blocks,
                                   std::span<const std::byte> stored, std::span<std::byte> out, std::size_t threads,
                                   const std::string& what) {
    if (blocks.empty()) return 0;
    const std::uint64_t first_stored = blocks.front().offset;
    const std::uint64_t first_raw = blocks.front().raw_offset;
    std::vector<std::uint32_t> raw_crcs(blocks.size());
    for_ranges(blocks.size(), threads, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            const PackedBlock& b = blocks[i];
            auto in = stored.subspan(static_cast<std::size_t>(b.offset - first_stored), b.stored);
            auto raw = out.subspan(static_cast<std::size_t>(b.raw_offset - first_raw), b.raw_length);
            const std::uint32_t crc = crc32_of(in);
            if (crc != b.crc32) {
                fail(Damage::checksum, what + ": " + block_name(t, b) + " fails its checksum (stored " +
                                           crc32_hex(b.crc32) + ", read " + crc32_hex(crc) + ")");
            }
            if (b.as_is()) {
                if (raw.data() != in.data()) std::memcpy(raw.data(), in.data(), in.size());  // else read in place
                raw_crcs[i] = crc;
            } else if (t.codec == Codec::zfp) {
                decompress_lossy_block(t.unit, in, raw, what + ": " + block_name(t, b));
                raw_crcs[i] = crc32_of(raw);
            } else {
                decompress_block(in, raw, what + ": " + block_name(t, b));
                raw_crcs[i] = crc32_of(raw);
            }
        }
    });
    std::uint32_t crc = raw_crcs[0];
    for (std::size_t i = 1; i < blocks.size(); ++i) crc = crc32_combine(crc, raw_crcs[i], blocks[i].raw_length);
    return crc;
}

PackedEncoder::PackedEncoder(Codec codec, std::uint8_t unit, std::size_t block_bytes, std::size_t threads, Sink sink,
                             double bound)
    : codec_(codec),
      bound_(bound),
      unit_(unit == 0 ? 1 : unit),
      block_bytes_(std::max<std::size_t>(unit_, std::min(block_bytes, kMaxBlockBytes) / unit_ * unit_)),
      threads_(std::max<std::size_t>(threads, 1)),
      batch_blocks_(threads_ * 4),
      sink_(std::move(sink)) {}

void PackedEncoder::feed(std::span<const std::byte> raw) {
    if (!pending_.empty()) {
        const std::size_t n = std::min(raw.size(), block_bytes_ - pending_.size());
        pending_.insert(pending_.end(), raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(n));
        raw = raw.subspan(n);
        if (pending_.size() < block_bytes_) return;
        encode(pending_);
        pending_.clear();
    }
    const std::size_t whole = raw.size() / block_bytes_ * block_bytes_;
    for (std::size_t done = 0; done < whole;) {
        const std::size_t n = std::min(whole - done, batch_blocks_ * block_bytes_);
        encode(raw.subspan(done, n));
        done += n;
    }
    pending_.assign(raw.begin() + static_cast<std::ptrdiff_t>(whole), raw.end());
}

void PackedEncoder::finish() {
    if (!pending_.empty()) encode(pending_);
    pending_.clear();
    std::byte trailer[kPackedTrailerBytes] = {};
    store_le(trailer, raw_size_);
    store_le(trailer + 8, static_cast<std::uint32_t>(block_bytes_));
    store_le(trailer + 12, blocks_);
    trailer[16] = static_cast<std::byte>(codec_);
    trailer[17] = static_cast<std::byte>(unit_);
    store_le(trailer + 18, kFrameVersion);
    Crc32 crc;
    crc.update(table_);
    crc.update(std::span(trailer, kCheckedTrailerBytes));
    store_le(trailer + 24, crc.value());
    store_le(trailer + 28, kFrameMagic);
    emit(table_, crc32_of(table_));
    emit(trailer, crc32_of(trailer));
}

void PackedEncoder::encode(std::span<const std::byte> raw) {
    const std::size_t count = (raw.size() + block_bytes_ - 1) / block_bytes_;
    if (out_.size() < count) out_.resize(count);
    if (codec_ == Codec::zfp && reconstructed_.size() < count) reconstructed_.resize(count);
    std::vector<std::size_t> stored(count);
    std::vector<std::uint32_t> raw_crcs(count);
    std::vector<std::uint32_t> stored_crcs(count);
    for_ranges(count, threads_, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            auto block = raw.subspan(i * block_bytes_, std::min(block_bytes_, raw.size() - i * block_bytes_));
            out_[i].resize(block_bytes_);
            if (codec_ == Codec::zfp) {
                reconstructed_[i].resize(block_bytes_);
                stored[i] = compress_lossy_block(unit_, bound_, block, out_[i], reconstructed_[i]);
                raw_crcs[i] = crc32_of(
                    stored[i] == 0 ? block : std::span<const std::byte>(reconstructed_[i]).first(block.size()));
            } else {
                raw_crcs[i] = crc32_of(block);
                stored[i] = compress_block(codec_, unit_, block, out_[i]);
            }
            stored_crcs[i] = stored[i] == 0 ? raw_crcs[i] : crc32_of(std::span(out_[i].data(), stored[i]));
        }
    });
    for (std::size_t i = 0; i < count; ++i) {
        auto block = raw.subspan(i * block_bytes_, std::min(block_bytes_, raw.size() - i * block_bytes_));
        auto bytes = stored[i] == 0 ? block : std::span<const std::byte>(out_[i].data(), stored[i]);
        std::byte entry[kPackedTableEntryBytes];
        store_le(entry, static_cast<std::uint32_t>(bytes.size()));
        store_le(entry + 4, stored_crcs[i]);
        table_.insert(table_.end(), entry, entry + kPackedTableEntryBytes);
        raw_crc_ = raw_size_ == 0 ? raw_crcs[i] : crc32_combine(raw_crc_, raw_crcs[i], block.size());
        raw_size_ += block.size();
        ++blocks_;
        emit(bytes, stored_crcs[i]);
    }
}

void PackedEncoder::emit(std::span<const std::byte> bytes, std::uint32_t crc) {
    if (bytes.empty()) return;
    sink_(bytes);
    frame_crc_ = crc32_combine(frame_crc_, crc, bytes.size());  // from the blocks' CRCs: no second pass
    frame_bytes_ += bytes.size();
}

}  // namespace mlckpt::core
