#include "format/dcp/dcp_writer.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "common/parallel_ranges.hpp"
#include "hash/crc32.hpp"
#include "hash/md5.hpp"

namespace mlckpt::core {

namespace {

struct Write {
    std::uint64_t offset = 0;  // in the file
    std::uint64_t length = 0;
    const std::byte* data = nullptr;  // nullptr: zeros
};

// Chunk sizes of the file on disk, by (block, chunk); -1 when unknown.
std::int64_t old_chunk_size(const DcpBaseline* base, std::size_t block, std::size_t index) {
    if (base == nullptr || block >= base->layout.blocks().size()) return -1;
    const auto& chunks = base->layout.blocks()[block].chunks;
    return index < chunks.size() ? chunks[index].chunk_size : -1;
}

std::span<const std::byte> block_of(std::span<const std::byte> data, std::size_t block_size, std::size_t k) {
    const std::size_t pos = k * block_size;
    return data.subspan(pos, std::min(block_size, data.size() - pos));
}

}  // namespace

std::vector<std::uint32_t> block_crcs(std::span<const std::byte> data, std::size_t block_size, std::size_t threads) {
    std::vector<std::uint32_t> out((data.size() + block_size - 1) / block_size);
    for_ranges(out.size(), threads, [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) out[k] = crc32_of(block_of(data, block_size, k));
    });
    return out;
}

std::vector<ftiff::Md5> digests_from(std::span<const std::byte> data, const std::vector<std::uint32_t>& crcs,
                                     const DcpOptions& options) {
    std::vector<ftiff::Md5> out(crcs.size());
    if (options.mode == DcpMode::md5) {
        for_ranges(out.size(), options.threads, [&](std::size_t begin, std::size_t end) {
            for (std::size_t k = begin; k < end; ++k) out[k] = md5_of(block_of(data, options.block_size, k));
        });
    } else {
        for (std::size_t k = 0; k < crcs.size(); ++k) std::memcpy(out[k].data(), &crcs[k], sizeof crcs[k]);
    }
    return out;
}

namespace {

// The CRC-32s of a chunk's hash blocks, which start at the chunk's first
// byte: a block that is also one of the variable's dCP blocks reuses its CRC,
// any other (a chunk that starts mid-block) is computed.
std::vector<std::uint32_t> chunk_block_crcs(std::span<const std::byte> data, const std::vector<std::uint32_t>& var_crcs,
                                            std::size_t block_size, const ftiff::Chunk& c) {
    std::vector<std::uint32_t> out;
    const auto begin = static_cast<std::size_t>(c.dptr);
    const auto end = begin + static_cast<std::size_t>(c.chunk_size);
    for (std::size_t from = begin; from < end; from += block_size) {
        const std::size_t to = std::min(from + block_size, end);
        const bool same_block = from % block_size == 0 && to == std::min(from + block_size, data.size());
        out.push_back(same_block ? var_crcs[from / block_size] : crc32_of(data.subspan(from, to - from)));
    }
    return out;
}

}  // namespace

std::vector<ftiff::Md5> block_digests(std::span<const std::byte> data, const DcpOptions& options) {
    return digests_from(data, block_crcs(data, options.block_size, options.threads), options);
}

DcpWriter::DcpWriter(const Directory& dir, const std::string& name, const std::string& journal, std::uint64_t seq,
                     ftiff::Layout layout, const DcpBaseline* baseline, DcpOptions options, FtiffWriter::Sizes sizes)
    : dir_(dir),
      name_(name),
      journal_name_(journal),
      writer_(File::open_update(dir, name), std::move(layout), static_cast<std::uint32_t>(options.block_size)),
      direct_(writer_.file()),
      options_(options),
      sizes_(sizes) {
    // A file with content may hold a committed checkpoint: it is changed
    // only from the sealed journal, after the commit.
    if (writer_.file().size() > 0) journal_.emplace(dir, journal, seq);
    if (baseline != nullptr) baseline_ = *baseline;
    next_.seq = seq;
    next_.file = dir.path_of(name);
    record_.file = name;
}

void DcpWriter::add(int id, std::span<const std::byte> data, const std::string& name) {
    // One CRC pass finds the changed blocks (in CRC mode) and gives the
    // chunk hashes; MD5 mode hashes the blocks once more.
    const std::vector<std::uint32_t> crcs = block_crcs(data, options_.block_size, options_.threads);
    std::vector<ftiff::Md5> digests = digests_from(data, crcs, options_);
    const std::vector<ftiff::Md5>* old = baseline_digests(baseline_, id);
    auto changed = [&](std::size_t k) { return old == nullptr || k >= old->size() || (*old)[k] != digests[k]; };

    // What this variable needs on disk: its changed blocks, and zeros where
    // a container's content got shorter (or is unknown).
    std::vector<Write> writes;
    const auto& blocks = writer_.layout().blocks();
    const DcpBaseline* base = baseline_ ? &*baseline_ : nullptr;
    const std::uint64_t bs = options_.block_size;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        for (std::size_t j = 0; j < blocks[b].chunks.size(); ++j) {
            const ftiff::Chunk& c = blocks[b].chunks[j];
            if (c.id != id) continue;
            const auto begin = static_cast<std::uint64_t>(c.dptr);
            const auto end = begin + static_cast<std::uint64_t>(c.chunk_size);
            for (std::uint64_t k = begin / bs; k * bs < end; ++k) {
                if (!changed(static_cast<std::size_t>(k))) continue;
                std::uint64_t from = std::max(k * bs, begin);
                std::uint64_t to = std::min((k + 1) * bs, end);
                std::uint64_t offset = static_cast<std::uint64_t>(c.fptr) + (from - begin);
                const std::byte* bytes = data.data() + from;
                const Write* last = writes.empty() ? nullptr : &writes.back();
                if (last != nullptr && last->data != nullptr && last->offset + last->length == offset &&
                    last->data + last->length == bytes) {
                    writes.back().length += to - from;  // adjacent: one write
                } else {
                    writes.push_back({offset, to - from, bytes});
                }
            }
            std::int64_t old_size = old_chunk_size(base, b, j);
            if (old_size < 0) old_size = c.container_size;
            if (old_size > c.chunk_size) {
                writes.push_back({static_cast<std::uint64_t>(c.fptr + c.chunk_size),
                                  static_cast<std::uint64_t>(old_size - c.chunk_size), nullptr});
            }
        }
    }
    PlacedOutput& out = output();
    for (const Write& w : writes) {
        if (w.data != nullptr) {
            out.write_at(std::span(w.data, static_cast<std::size_t>(w.length)), w.offset);
        } else {
            out.zeros_at(w.offset, w.length);
        }
        bytes_written_ += w.length;
    }
    writer_.add_block_crcs(id, data.size(),
                           [&](const ftiff::Chunk& c) { return chunk_block_crcs(data, crcs, options_.block_size, c); });
    bytes_protected_ += data.size();
    next_.digests[id] = std::move(digests);

    VarRecord var;
    var.id = id;
    var.size = data.size();
    var.name = name;
    record_.vars.push_back(std::move(var));
}

FileRecord DcpWriter::finish() {
    auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                   .count();
    // Variables no longer protected keep their containers, emptied: their
    // old bytes go too, so the file holds exactly what its records say.
    const DcpBaseline* base = baseline_ ? &*baseline_ : nullptr;
    const auto& blocks = writer_.layout().blocks();
    PlacedOutput& out = output();
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        for (std::size_t j = 0; j < blocks[b].chunks.size(); ++j) {
            const ftiff::Chunk& c = blocks[b].chunks[j];
            if (has(c.id)) continue;
            std::int64_t old_size = old_chunk_size(base, b, j);
            if (old_size < 0) old_size = c.container_size;
            if (old_size > 0) out.zeros_at(static_cast<std::uint64_t>(c.fptr), static_cast<std::uint64_t>(old_size));
        }
    }
    ftiff::Writer::Result r = writer_.finish_into(out, sizes_.max_fs, sizes_.pt_fs, now);
    writer_.file().close();
    next_.layout = writer_.layout();
    record_.size = static_cast<std::uint64_t>(r.fb.fs);
    record_.crc32 = r.crc32;
    record_.complete = true;
    return record_;
}

void DcpWriter::abandon() noexcept {
    if (journal_) {
        dir_.remove(journal_name_);
        return;
    }
    try {
        File::open_update(dir_, name_).resize(0);  // a new file: it held nothing
    } catch (...) {
        // Content without a committed checkpoint: the next update rewrites it.
    }
}

}  // namespace mlckpt::core
