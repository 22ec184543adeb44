#include "format/ftiff/ftiff_file.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "format/ftiff/ftiff_chunk_hash.hpp"
#include "hash/crc32.hpp"
#include "hash/md5.hpp"
#include "io/buffer_pool.hpp"

namespace mlckpt::core::ftiff {

namespace {

[[noreturn]] void corrupt(const File& file, const std::string& what, Damage damage = Damage::structure) {
    fail(damage, "FTI-FF file '" + file.path().string() + "': " + what);
}

[[noreturn]] void chunk_fails(const File& file, const Layout& layout, const Chunk& c) {
    corrupt(file,
            "variable " + std::to_string(c.id) + ": the chunk at file offset " + std::to_string(c.fptr) + " (" +
                std::to_string(c.chunk_size) + " bytes) fails its " +
                (layout.chunk_hash_block() == 0 ? "MD5" : "block hash"),
            Damage::checksum);
}

// The unused tail of a container reads as zero (the writer leaves it so,
// and an update zeroes what a shrinking chunk leaves behind): no hash covers
// it, so it is checked for zeros instead.
void check_unused_tail(const File& file, const Chunk& c, std::span<std::byte> buffer) {
    for (std::int64_t at = c.fptr + c.chunk_size; at < c.fptr + c.container_size;) {
        auto n = static_cast<std::size_t>(
            std::min<std::int64_t>(static_cast<std::int64_t>(buffer.size()), c.fptr + c.container_size - at));
        std::span<std::byte> piece = buffer.first(n);
        file.read_exact_at(piece, static_cast<std::uint64_t>(at));
        auto nonzero = std::find_if(piece.begin(), piece.end(), [](std::byte b) { return b != std::byte{0}; });
        if (nonzero != piece.end()) {
            corrupt(file, "variable " + std::to_string(c.id) + ": the unused space of its container at file offset " +
                              std::to_string(c.fptr) + " is not zero (byte " +
                              std::to_string(at + (nonzero - piece.begin())) + "); no hash covers it");
        }
        at += static_cast<std::int64_t>(n);
    }
}

}  // namespace

Writer::Writer(const fs::path& path, Layout layout) : Writer(File::create(path), std::move(layout)) {}

Writer::Writer(File file, Layout layout, std::uint32_t chunk_hash_block)
    : file_(std::move(file)), layout_(std::move(layout)) {
    if (chunk_hash_block > kMaxHashBlock) fail(ErrorKind::usage, "FTI-FF hash block above 65536 bytes");
    layout_.set_chunk_hash_block(chunk_hash_block);
    for (const Block& b : layout_.blocks()) {
        std::vector<std::uint32_t> crcs;
        for (const Chunk& c : b.chunks) crcs.push_back(crc32_of_zeros(static_cast<std::uint64_t>(c.container_size)));
        container_crcs_.push_back(std::move(crcs));
    }
}

bool Writer::has(int id) const {
    return std::find(added_.begin(), added_.end(), id) != added_.end();
}

void Writer::check_size(int id, std::size_t bytes) const {
    if (stored_bytes(layout_, id) != static_cast<std::int64_t>(bytes)) {
        fail(ErrorKind::usage, "variable " + std::to_string(id) + " has " + std::to_string(bytes) +
                                   " bytes, its FTI-FF layout was made for " +
                                   std::to_string(stored_bytes(layout_, id)));
    }
}

void Writer::set_chunk(std::size_t block, std::size_t index, const Md5& hash, std::uint32_t chunk_crc) {
    Chunk& c = layout_.chunk(block, index);
    c.hash = hash;
    // The container's tail is zero (a new file, or zeroed by the updater).
    const auto tail = static_cast<std::uint64_t>(c.container_size - c.chunk_size);
    container_crcs_[block][index] = crc32_combine(chunk_crc, crc32_of_zeros(tail), tail);
}

void Writer::add(int id, std::span<const std::byte> data, bool write_data) {
    check_size(id, data.size());
    for (std::size_t b = 0; b < layout_.blocks().size(); ++b) {
        for (std::size_t j = 0; j < layout_.blocks()[b].chunks.size(); ++j) {
            const Chunk& c = layout_.blocks()[b].chunks[j];
            if (c.id != id) continue;
            auto chunk = data.subspan(static_cast<std::size_t>(c.dptr), static_cast<std::size_t>(c.chunk_size));
            // Hashing follows each written piece, while the disk writes it;
            // MD5 is the bound here, so the bytes bypass the page cache,
            // whose copy and reclaim would take the cores MD5 needs.
            ChunkHasher hasher(layout_.chunk_hash_block());
            Crc32 crc;
            auto hash = [&](std::span<const std::byte> piece) {
                hasher.update(piece);
                crc.update(piece);
            };
            if (write_data) {
                write_overlapped(file_, static_cast<std::uint64_t>(c.fptr), chunk, hash, WritePath::direct);
            } else {
                hash(chunk);
            }
            set_chunk(b, j, hasher.finish(), crc.value());
        }
    }
    added_.push_back(id);
}

void Writer::add_block_crcs(int id, std::size_t bytes, const BlockCrcs& block_crcs) {
    const std::uint32_t hb = layout_.chunk_hash_block();
    if (hb == 0) fail(ErrorKind::usage, "block CRCs given for an FTI-FF file hashed by MD5");
    check_size(id, bytes);
    for (std::size_t b = 0; b < layout_.blocks().size(); ++b) {
        for (std::size_t j = 0; j < layout_.blocks()[b].chunks.size(); ++j) {
            const Chunk& c = layout_.blocks()[b].chunks[j];
            if (c.id != id) continue;
            std::vector<std::uint32_t> crcs = block_crcs(c);
            const auto size = static_cast<std::uint64_t>(c.chunk_size);
            if (crcs.size() != (size + hb - 1) / hb) {
                fail(ErrorKind::usage, "variable " + std::to_string(id) + ": " + std::to_string(crcs.size()) +
                                           " block CRCs for a chunk of " + std::to_string(size) + " bytes");
            }
            const std::uint64_t last = size == 0 ? 0 : size - (crcs.size() - 1) * hb;
            set_chunk(b, j, hash_of_block_crcs(crcs), crc32_of_blocks(crcs, hb, last));
        }
    }
    added_.push_back(id);
}

Writer::Result Writer::finish(std::int64_t max_fs, std::int64_t pt_fs, std::int64_t timestamp) {
    FileOutput out(file_);
    Result r = finish_into(out, max_fs, pt_fs, timestamp);
    file_.close();
    return r;
}

Writer::Result Writer::finish_into(PlacedOutput& out, std::int64_t max_fs, std::int64_t pt_fs, std::int64_t timestamp) {
    for (const Block& block : layout_.blocks()) {
        for (const Chunk& c : block.chunks) {
            if (c.chunk_size > 0 && !has(c.id)) {
                fail(ErrorKind::usage, "variable " + std::to_string(c.id) + " was not written to the FTI-FF file");
            }
        }
    }
    Md5Hasher metadata;
    std::uint32_t body_crc = crc32_of({});
    std::int64_t body_bytes = 0;
    for (std::size_t b = 0; b < layout_.blocks().size(); ++b) {
        const Block& block = layout_.blocks()[b];
        std::vector<std::byte> records;
        auto bm = encode_block_meta(block);
        records.insert(records.end(), bm.begin(), bm.end());
        for (std::size_t j = 0; j < block.chunks.size(); ++j) {
            Chunk& c = layout_.chunk(b, j);
            if (!has(c.id))
                c.hash =
                    chunk_hash({}, layout_.chunk_hash_block());  // an empty container of a variable no longer protected
            auto cm = encode_chunk_meta(c);
            records.insert(records.end(), cm.begin(), cm.end());
        }
        metadata.update(records);
        out.write_at(records, static_cast<std::uint64_t>(block.offset));
        body_crc = crc32_combine(body_crc, crc32_of(records), records.size());
        body_bytes += static_cast<std::int64_t>(records.size());
        for (std::size_t j = 0; j < block.chunks.size(); ++j) {
            const Chunk& c = block.chunks[j];
            body_crc = crc32_combine(body_crc, container_crcs_[b][j], static_cast<std::uint64_t>(c.container_size));
            body_bytes += c.container_size;
        }
    }
    Result r;
    r.fb.checksum = hex(metadata.finish());
    r.fb.ckpt_size = layout_.data_size();
    r.fb.fs = layout_.file_size();
    r.fb.max_fs = max_fs;
    r.fb.pt_fs = pt_fs;
    r.fb.timestamp = timestamp;
    r.fb.hash_block = layout_.chunk_hash_block();
    out.resize(static_cast<std::uint64_t>(r.fb.fs));  // containers' unused tails read as zeros
    auto fbb = encode_file_block(r.fb);
    out.write_at(fbb, 0);
    out.sync();
    r.crc32 = crc32_combine(crc32_of(fbb), body_crc, static_cast<std::uint64_t>(body_bytes));
    return r;
}

FileBlock write_file(const fs::path& path, Layout& layout, const std::vector<VariableData>& vars, std::int64_t max_fs,
                     std::int64_t pt_fs, std::int64_t timestamp) {
    Writer writer(path, layout);
    for (const VariableData& v : vars) {
        if (stored_bytes(layout, v.id) >= 0) writer.add(v.id, v.bytes);
    }
    Writer::Result r = writer.finish(max_fs, pt_fs, timestamp);
    layout = writer.layout();
    return r.fb;
}

bool is_ftiff(const File& file) {
    if (file.size() < static_cast<std::uint64_t>(kFileBlockBytes)) return false;
    FileBlockBytes fbb;
    file.read_exact_at(fbb, 0);
    return has_file_block_magic(fbb);
}

FileStructure read_structure(const File& file) {
    std::uint64_t size = file.size();
    if (size < static_cast<std::uint64_t>(kFileBlockBytes)) {
        corrupt(file, "truncated: " + std::to_string(size) + " bytes, shorter than the 96-byte file block",
                Damage::size);
    }
    FileBlockBytes fbb;
    file.read_exact_at(fbb, 0);
    FileStructure s{decode_file_block(fbb, file.path().string()), Layout{}};
    if (s.fb.fs < kFileBlockBytes || static_cast<std::uint64_t>(s.fb.fs) != size) {
        corrupt(file,
                "has " + std::to_string(size) + " bytes, its file block says " + std::to_string(s.fb.fs) +
                    (static_cast<std::uint64_t>(s.fb.fs) > size ? " (truncated)" : ""),
                static_cast<std::uint64_t>(s.fb.fs) > size ? Damage::size : Damage::structure);
    }
    std::vector<Block> blocks;
    Md5Hasher metadata;
    std::int64_t offset = kFileBlockBytes;
    while (offset < s.fb.fs) {
        if (offset + kBlockMetaBytes > s.fb.fs) corrupt(file, "block record at " + std::to_string(offset) + " is cut");
        BlockMetaBytes bm;
        file.read_exact_at(bm, static_cast<std::uint64_t>(offset));
        metadata.update(bm);
        Block block;
        block.offset = offset;
        int numvars = 0;
        decode_block_meta(bm, numvars, block.dbsize);
        // Compare before adding: the values are not trusted yet.
        if (numvars < 0 || numvars > (s.fb.fs - offset) / kChunkMetaBytes || block.dbsize > s.fb.fs - offset ||
            block.dbsize < kBlockMetaBytes + kChunkMetaBytes * numvars) {
            corrupt(file, "block at " + std::to_string(offset) + " has impossible sizes");
        }
        std::vector<std::byte> records(static_cast<std::size_t>(kChunkMetaBytes * numvars));
        file.read_exact_at(records, static_cast<std::uint64_t>(offset + kBlockMetaBytes));
        metadata.update(records);
        std::int64_t data_start = offset + block.metadata_bytes();
        for (int j = 0; j < numvars; ++j) {
            std::span<const std::byte, kChunkMetaBytes> rec(records.data() + j * kChunkMetaBytes, kChunkMetaBytes);
            Chunk c = decode_chunk_meta(rec, file.path().string());
            const std::int64_t block_end = offset + block.dbsize;
            if (c.fptr < data_start || c.fptr > block_end || c.container_size > block_end - c.fptr) {
                corrupt(file, "container " + std::to_string(c.container_id) + " of variable " + std::to_string(c.id) +
                                  " lies outside its block");
            }
            block.chunks.push_back(c);
        }
        offset += block.dbsize;
        blocks.push_back(std::move(block));
    }
    if (hex(metadata.finish()) != s.fb.checksum)
        corrupt(file, "the block records fail the file block's checksum", Damage::checksum);
    // The records are as written; they must also make sense: the containers
    // of a block follow one another without gap or overlap and fill it.
    for (const Block& b : blocks) {
        std::int64_t next = b.offset + b.metadata_bytes();
        for (const Chunk& c : b.chunks) {
            if (c.fptr != next) {
                corrupt(file, "container " + std::to_string(c.container_id) + " of variable " + std::to_string(c.id) +
                                  " starts at " + std::to_string(c.fptr) + ", expected " + std::to_string(next) +
                                  " (containers overlap or leave a gap)");
            }
            next += c.container_size;
        }
        if (next != b.offset + b.dbsize) {
            corrupt(file, "the containers of the block at " + std::to_string(b.offset) + " end at " +
                              std::to_string(next) + ", the block at " + std::to_string(b.offset + b.dbsize));
        }
    }
    s.layout = Layout(std::move(blocks));
    s.layout.set_chunk_hash_block(s.fb.hash_block);
    if (s.layout.data_size() != s.fb.ckpt_size) {
        corrupt(file, "its file block says " + std::to_string(s.fb.ckpt_size) + " bytes of data, its chunks hold " +
                          std::to_string(s.layout.data_size()));
    }
    return s;
}

std::int64_t stored_bytes(const Layout& layout, int id) {
    auto chunks = layout.chunks_of(id);
    if (chunks.empty()) return -1;
    std::int64_t total = 0;
    for (const Chunk* c : chunks) total += c->chunk_size;
    return total;
}

void read_variable(const File& file, const Layout& layout, int id, std::span<std::byte> out, bool in_page_cache) {
    std::int64_t stored = stored_bytes(layout, id);
    if (stored < 0) corrupt(file, "has no variable " + std::to_string(id));
    if (stored != static_cast<std::int64_t>(out.size())) {
        fail(ErrorKind::not_recoverable, "variable " + std::to_string(id) + ": the checkpoint holds " +
                                             std::to_string(stored) + " bytes, the protected buffer has " +
                                             std::to_string(out.size()));
    }
    // The chunks with content must cover the variable's bytes exactly once,
    // in container order (earlier containers are full before later ones).
    std::int64_t covered = 0;
    for (const Chunk* c : layout.chunks_of(id)) {
        if (c->chunk_size == 0) continue;
        if (c->dptr != covered || c->chunk_size > stored - covered) {
            corrupt(file, "chunk of variable " + std::to_string(id) + " at offset " + std::to_string(c->fptr) +
                              " does not continue the variable's data (dptr " + std::to_string(c->dptr) +
                              ", expected " + std::to_string(covered) + ")");
        }
        covered += c->chunk_size;
        auto piece = out.subspan(static_cast<std::size_t>(c->dptr), static_cast<std::size_t>(c->chunk_size));
        // Under MD5 (version 1) the hash is the bound: the bytes bypass the
        // page cache, whose allocations and copy would take the cores MD5
        // needs, unless they are in it already. Block hashes (version 2) are
        // CRC-32s, and the read is the bound: the page cache's read-ahead
        // keeps the disk busier.
        ChunkHasher hasher(layout.chunk_hash_block());
        const bool direct = layout.chunk_hash_block() == 0 && !in_page_cache;
        read_overlapped(
            file, static_cast<std::uint64_t>(c->fptr), piece,
            [&](std::span<const std::byte> part) { hasher.update(part); },
            direct ? ReadPath::direct : ReadPath::page_cache);
        if (hasher.finish() != c->hash) chunk_fails(file, layout, *c);
    }
}

std::size_t verify_chunks(const File& file, const Layout& layout, std::size_t buffer_bytes) {
    PooledBuffer buffer = take_buffer(std::max<std::size_t>(buffer_bytes, 4096));
    std::size_t checked = 0;
    for (const Block& block : layout.blocks()) {
        for (const Chunk& c : block.chunks) {
            ChunkHasher h(layout.chunk_hash_block());
            for (std::int64_t done = 0; done < c.chunk_size;) {
                auto n = static_cast<std::size_t>(
                    std::min<std::int64_t>(static_cast<std::int64_t>(buffer.size()), c.chunk_size - done));
                std::span<std::byte> piece(buffer.data(), n);
                file.read_exact_at(piece, static_cast<std::uint64_t>(c.fptr + done));
                h.update(piece);
                done += static_cast<std::int64_t>(n);
            }
            if (h.finish() != c.hash) chunk_fails(file, layout, c);
            check_unused_tail(file, c, std::span<std::byte>(buffer.data(), buffer.size()));
            ++checked;
        }
    }
    return checked;
}

}  // namespace mlckpt::core::ftiff
