#include "scr_datasets.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "common/error.hpp"
#include "config/config.hpp"
#include "hash/crc32.hpp"
#include "io/buffer_pool.hpp"
#include "io/file.hpp"
#include "levels/redundancy.hpp"
#include "levels/reed_solomon.hpp"
#include "read_limits.hpp"
#include "recovery/restart_rules.hpp"
#include "scr/routed_files.hpp"
#include "scr/scr_session.hpp"

namespace mlckpt::tools {

namespace {

using namespace mlckpt::core;

// The directory of the prefix and of each node of the cache that is the
// library's (the execution id ScrSession gives its layout).
constexpr const char* kExecDir = kScrPrefixDir;

Config layout_config(const fs::path& prefix, const fs::path& cache) {
    Config c;
    c.ckpt_dir = cache.string();
    c.glbl_dir = prefix.string();
    c.meta_dir = prefix.string();
    return c;
}

// The node of `rank`: where it keeps its redundancy, else its files.
int node_of(const CheckpointMeta& meta, int rank) {
    if (const FileRecord* r = meta.redundancy_held_by(rank)) return r->node;
    for (const FileRecord& f : meta.files) {
        if (f.rank == rank) return f.node;
    }
    return -1;
}

// What the redundancy record of `holder` is, for messages.
std::string redundancy_text(const FileRecord& r, int level) {
    if (redundancy_kind(level) == GroupRedundancy::partner_copy) {
        return "partner copy of rank " + std::to_string(r.rank) + " kept by rank " + std::to_string(r.holder);
    }
    return "parity kept by rank " + std::to_string(r.holder);
}

// Where `metadata` is not what the name of its file says, or names ranks
// it does not have; nothing when consistent.
std::optional<std::string> inconsistency(const CheckpointMeta& m, std::uint64_t seq, int level) {
    if (!m.complete) return std::string("it is incomplete");
    if (m.seq != seq || m.level != level) {
        return "it is of seq " + std::to_string(m.seq) + " at " + level_name(m.level) + ", not of its name";
    }
    if (m.ranks < 1) return "it gives " + std::to_string(m.ranks) + " ranks";
    for (const std::vector<FileRecord>* list : {&m.files, &m.redundancy}) {
        for (const FileRecord& f : *list) {
            if (f.rank < 0 || f.rank >= m.ranks || f.holder < 0 || f.holder >= m.ranks || f.node < 0) {
                return "its record of '" + f.file + "' names rank " + std::to_string(f.rank) + ", holder " +
                       std::to_string(f.holder) + " or node " + std::to_string(f.node) + " outside the run of " +
                       std::to_string(m.ranks) + " ranks";
            }
        }
    }
    return std::nullopt;
}

}  // namespace

const char* state_name(CopyCheck::State state) {
    switch (state) {
        case CopyCheck::State::intact:
            return "intact";
        case CopyCheck::State::rebuildable:
            return "rebuildable";
        case CopyCheck::State::beyond_repair:
            return "beyond repair";
        case CopyCheck::State::not_visible:
            return "not visible";
    }
    return "?";
}

ScrPrefix::ScrPrefix(const fs::path& prefix, const fs::path& cache)
    : cache_(cache), meta_dir_(prefix / kExecDir), layout_(layout_config(prefix, cache), kExecDir) {}

std::vector<DatasetEntry> ScrPrefix::datasets(std::vector<UnreadableMeta>& unreadable) const {
    std::map<std::uint64_t, DatasetEntry> by_seq;
    std::error_code ec;
    for (fs::directory_iterator it(meta_dir_, ec), end; !ec && it != end; it.increment(ec)) {
        std::uint64_t seq = 0;
        int level = 0;
        if (!parse_meta_file_name(it->path().filename().string(), seq, level)) continue;
        if (!is_base_level(level)) continue;  // L4 differential: FTI's alone
        const fs::path path = it->path();
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) ||
            static_cast<std::uint64_t>(st.st_size) > kMaxMetadataBytes) {
            unreadable.push_back({seq, level, path, "not a regular file of metadata size"});
            continue;
        }
        DatasetCopy copy{{seq, level, 0}, {}, path};
        try {
            copy.meta = parse_meta(read_text_file(path), path.string());
        } catch (const Error& e) {
            unreadable.push_back({seq, level, path, e.what()});
            continue;
        }
        if (!copy.meta.is_dataset()) continue;  // an FTI checkpoint
        if (auto why = inconsistency(copy.meta, seq, level)) {
            unreadable.push_back({seq, level, path, "checkpoint metadata '" + path.string() + "': " + *why});
            continue;
        }
        copy.ref.ckpt_id = copy.meta.ckpt_id;
        copy.ref.own_dir = copy.meta.own_dir;
        DatasetEntry& d = by_seq[seq];
        d.seq = seq;
        d.copies.push_back(std::move(copy));
    }
    std::vector<DatasetEntry> out;
    for (auto it = by_seq.rbegin(); it != by_seq.rend(); ++it) {
        std::sort(it->second.copies.begin(), it->second.copies.end(),
                  [](const DatasetCopy& a, const DatasetCopy& b) { return read_first(a.ref.level, b.ref.level); });
        out.push_back(std::move(it->second));
    }
    std::sort(unreadable.begin(), unreadable.end(), [](const UnreadableMeta& a, const UnreadableMeta& b) {
        return a.seq != b.seq ? a.seq > b.seq : read_first(a.level, b.level);
    });
    return out;
}

fs::path ScrPrefix::file_path(const DatasetCopy& copy, const FileRecord& record) const {
    if (is_global(copy.ref.level)) return fs::path(record.origpath) / record.origname;
    return layout_.routed_dir(copy.ref, record.rank, record.node) / record.file;
}

fs::path ScrPrefix::redundancy_path(const DatasetCopy& copy, const FileRecord& record) const {
    return layout_.redundancy_file(copy.ref, record.holder, record.node);
}

bool ScrPrefix::cache_visible() const {
    // Some node of the cache holds something of this prefix's datasets.
    std::error_code ec;
    for (fs::directory_iterator it(cache_, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::error_code dir_ec;
        if (name.rfind("node", 0) == 0 && fs::is_directory(it->path() / kExecDir, dir_ec)) return true;
    }
    return false;
}

CopyCheck ScrPrefix::check(const DatasetCopy& copy) const {
    using State = CopyCheck::State;
    CopyCheck c;
    const CheckpointMeta& m = copy.meta;
    const int level = copy.ref.level;
    const auto ranks = static_cast<std::size_t>(m.ranks);
    c.data_ok.assign(ranks, true);
    c.redundancy_ok.assign(ranks, true);
    if (is_node_local(level) && !cache_visible()) {
        c.state = State::not_visible;
        c.reason = "no node directory of the cache '" + cache_.string() + "' holds this prefix's datasets";
        return c;
    }
    const std::string where = level_name(level) + " ";
    for (const FileRecord& f : m.files) {
        if (auto problem = check_routed_file(file_path(copy, f), f, kBufferBytes)) {
            c.problems.push_back(where + "file of rank " + std::to_string(f.rank) + ": " + *problem);
            c.data_ok[static_cast<std::size_t>(f.rank)] = false;
        }
    }
    const bool grouped = has_group_redundancy(level);
    if (grouped) {
        for (std::size_t h = 0; h < ranks; ++h) {
            const FileRecord* r = m.redundancy_held_by(static_cast<int>(h));
            if (r == nullptr) {
                c.problems.push_back(
                    where + "rank " + std::to_string(h) + " keeps no recorded " +
                    (redundancy_kind(level) == GroupRedundancy::partner_copy ? "partner copy" : "parity"));
                c.redundancy_ok[h] = false;
            } else if (auto problem = check_routed_file(redundancy_path(copy, *r), *r, kBufferBytes)) {
                c.problems.push_back(where + redundancy_text(*r, level) + ": " + *problem);
                c.redundancy_ok[h] = false;
            }
        }
    }
    if (c.problems.empty()) return c;
    c.state = State::rebuildable;
    if (!grouped) {
        c.state = State::beyond_repair;
        c.reason = is_global(level) ? "the prefix copy (L4) keeps no redundancy to rebuild from"
                                    : "L1 (SINGLE) keeps no redundancy to rebuild from";
        return c;
    }
    // The restart's own rule (recovery/restart_rules), on what was checked here.
    std::optional<std::string> lost = grouped_loss_beyond_repair(
        m, [&](int rank) { return c.data_ok.at(static_cast<std::size_t>(rank)); },
        [&](int holder) { return c.redundancy_ok.at(static_cast<std::size_t>(holder)); });
    if (lost) {
        c.state = State::beyond_repair;
        c.reason = *lost;
    }
    return c;
}

void ScrPrefix::rebuild(const DatasetCopy& copy, const CopyCheck& check, std::vector<fs::path>& written) const {
    if (check.state == CopyCheck::State::intact) return;
    if (check.state != CopyCheck::State::rebuildable) {
        fail(ErrorKind::not_recoverable,
             check.reason.empty() ? std::string("the copy cannot be rebuilt") : check.reason);
    }
    if (copy.meta.set_failures > 0) {
        fail(ErrorKind::not_recoverable,
             "its L3 parity is kept as Reed-Solomon sets (SET_FAILURES " + std::to_string(copy.meta.set_failures) +
                 "), which only a restart rebuilds; run the application to restart from it");
    }
    std::string failed;
    if (redundancy_kind(copy.ref.level) == GroupRedundancy::partner_copy) {
        failed = rebuild_partner(copy, check, written);
    } else {
        for (const GroupView& view : groups_of(copy.meta)) {
            const std::vector<int>& group = view.app_ranks;
            try {
                rebuild_group(copy, check, group, written);
            } catch (const Error& e) {
                failed += (failed.empty() ? "" : "; ") + std::string("the set of rank ") +
                          std::to_string(group.front()) + ": " + e.what();
            }
        }
    }
    if (!failed.empty()) fail(ErrorKind::not_recoverable, failed);
}

std::string ScrPrefix::rebuild_partner(const DatasetCopy& copy, const CopyCheck& check,
                                       std::vector<fs::path>& written) const {
    const CheckpointMeta& m = copy.meta;
    std::string failed;
    auto attempt = [&](const std::string& what, const std::function<void()>& step) {
        try {
            step();
        } catch (const Error& e) {
            failed += (failed.empty() ? "" : "; ") + what + ": " + e.what();
        }
    };
    // First each rank's lost files come back out of the partner copy of
    // its stream...
    for (const FileRecord& red : m.redundancy) {
        if (check.data_ok.at(static_cast<std::size_t>(red.rank))) continue;
        attempt("the files of rank " + std::to_string(red.rank), [&] {
            const std::vector<FileRecord> files = m.files_of_rank(red.rank);
            const Directory target = layout_.make_dir(layout_.routed_dir(copy.ref, red.rank, node_of(m, red.rank)));
            split_stream_file(redundancy_path(copy, red), files, target, kBufferBytes);
            for (const FileRecord& f : files) written.push_back(target.path_of(f.file));
        });
    }
    // ...then the lost partner copies are made again from the streams.
    for (const FileRecord& red : m.redundancy) {
        if (check.redundancy_ok.at(static_cast<std::size_t>(red.holder))) continue;
        attempt("the partner copy kept by rank " + std::to_string(red.holder), [&] {
            std::vector<fs::path> sources;
            for (const FileRecord& f : m.files_of_rank(red.rank)) sources.push_back(file_path(copy, f));
            const fs::path path = redundancy_path(copy, red);
            const Directory dir = layout_.make_dir(path.parent_path());
            write_stream_file(sources, dir, path.filename().string(), kBufferBytes, &red);
            dir.sync();
            written.push_back(path);
        });
    }
    return failed;
}

namespace {

// One fragment the parity rebuild writes: a member's stream (cut back into
// its files afterwards) or its parity file.
struct Target {
    int row = 0;
    fs::path path;             // its final name
    std::uint64_t length = 0;  // bytes it keeps of each decoded fragment
    std::uint64_t size = 0;    // expected, as recorded
    std::uint32_t crc = 0;     // expected, as recorded
    Directory dir;
    std::string tmp;
    std::optional<File> file;
    Crc32 computed;
};

}  // namespace

void ScrPrefix::rebuild_group(const DatasetCopy& copy, const CopyCheck& check, const std::vector<int>& group,
                              std::vector<fs::path>& written) const {
    const CheckpointMeta& m = copy.meta;
    const int k = static_cast<int>(group.size());
    std::vector<std::vector<FileRecord>> files;
    std::vector<FileRecord> streams;
    std::vector<const FileRecord*> parity;
    std::uint64_t parity_size = 0;
    for (int r : group) {
        files.push_back(m.files_of_rank(r));
        streams.push_back(stream_record(files.back(), r, node_of(m, r), ""));
        parity.push_back(m.redundancy_held_by(r));
        parity_size = std::max(parity_size, streams.back().size);
    }
    std::vector<int> sources;
    std::vector<int> targets;
    for (int g = 0; g < k; ++g) {
        if (check.data_ok.at(static_cast<std::size_t>(group[static_cast<std::size_t>(g)]))) {
            sources.push_back(g);
        } else {
            targets.push_back(g);
        }
    }
    for (int g = 0; g < k; ++g) {
        const bool ok = check.redundancy_ok.at(static_cast<std::size_t>(group[static_cast<std::size_t>(g)]));
        if (ok && static_cast<int>(sources.size()) < k) sources.push_back(k + g);
        if (!ok) targets.push_back(k + g);
    }
    if (targets.empty()) return;
    for (const FileRecord* p : parity) {
        if (p == nullptr || p->size != parity_size) {
            fail(ErrorKind::corrupt, "the metadata's parity records of the group of rank " +
                                         std::to_string(group.front()) + " do not match its streams' sizes");
        }
    }
    if (static_cast<int>(sources.size()) < k) {
        fail(ErrorKind::not_recoverable, "the group of rank " + std::to_string(group.front()) + " lost " +
                                             std::to_string(targets.size()) + " of its " + std::to_string(2 * k) +
                                             " streams and parity files; Reed-Solomon rebuilds at most " +
                                             std::to_string(k));
    }
    const ReedSolomon rs(k);
    const ReedSolomon::Plan plan = rs.plan(sources, targets);

    // The sources: streams mapped from their files, parity files read.
    std::vector<std::optional<MappedFiles>> stream_in(static_cast<std::size_t>(k));
    std::vector<std::optional<File>> parity_in(static_cast<std::size_t>(k));
    for (int row : sources) {
        const auto g = static_cast<std::size_t>(row % k);
        if (row < k) {
            std::vector<fs::path> paths;
            for (const FileRecord& f : files[g]) paths.push_back(file_path(copy, f));
            stream_in[g].emplace(paths);
        } else {
            parity_in[g] = File::open_read(redundancy_path(copy, *parity[g]));
        }
    }
    std::vector<Target> out(targets.size());
    auto discard = [&] {
        for (Target& t : out) {
            if (!t.tmp.empty()) t.dir.remove(t.tmp);
        }
    };
    try {
        for (std::size_t t = 0; t < targets.size(); ++t) {
            const auto g = static_cast<std::size_t>(targets[t] % k);
            const int rank = group[g];
            Target& target = out[t];
            target.row = targets[t];
            if (targets[t] < k) {
                // The stream, beside the rank's directory as a restart names it.
                target.path = layout_.data_file(copy.ref, rank, node_of(m, rank));
                target.length = target.size = streams[g].size;
                target.crc = streams[g].crc32;
            } else {
                target.path = redundancy_path(copy, *parity[g]);
                target.length = target.size = parity_size;
                target.crc = parity[g]->crc32;
            }
            target.dir = layout_.make_dir(target.path.parent_path());
            target.tmp = target.path.filename().string() + ".tmp";
            target.dir.remove(target.tmp);
            target.file = File::create(target.dir, target.tmp);
        }
        const std::size_t block = kBufferBytes;
        PooledBuffer in_buffer = take_buffer(block * static_cast<std::size_t>(k));
        PooledBuffer out_buffer = take_buffer(block * targets.size());
        for (std::uint64_t off = 0; off < parity_size; off += block) {
            const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(block, parity_size - off));
            std::vector<const unsigned char*> in;
            for (std::size_t s = 0; s < sources.size(); ++s) {
                std::byte* piece = in_buffer.data() + s * block;
                const auto g = static_cast<std::size_t>(sources[s] % k);
                if (sources[s] < k) {
                    // A stream shorter than the group's longest is zero-padded.
                    std::fill_n(piece, len, std::byte{0});
                    const std::uint64_t have = streams[g].size;
                    if (off < have) {
                        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(len, have - off));
                        stream_in[g]->content().copy_out(off, std::span(piece, n));
                    }
                } else {
                    parity_in[g]->read_exact_at(std::span(piece, len), off);
                }
                in.push_back(reinterpret_cast<const unsigned char*>(piece));
            }
            std::vector<unsigned char*> decoded;
            for (std::size_t t = 0; t < out.size(); ++t) {
                decoded.push_back(reinterpret_cast<unsigned char*>(out_buffer.data() + t * block));
            }
            ReedSolomon::apply(plan, len, in, decoded);
            for (std::size_t t = 0; t < out.size(); ++t) {
                Target& target = out[t];
                if (off >= target.length) continue;
                const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(len, target.length - off));
                const std::span<const std::byte> bytes(out_buffer.data() + t * block, n);
                target.file->write_all(bytes);
                target.computed.update(bytes);
            }
        }
        for (Target& target : out) {
            if (target.computed.value() != target.crc || target.file->size() != target.size) {
                fail(ErrorKind::corrupt, "the rebuilt '" + target.path.string() + "' does not match its record (" +
                                             crc32_hex(target.computed.value()) + ", recorded " +
                                             crc32_hex(target.crc) + ")");
            }
            target.file->sync();
            target.file->close();
            target.dir.rename(target.tmp, target.path.filename().string());
            target.tmp.clear();
            target.dir.sync();
        }
    } catch (...) {
        discard();
        throw;
    }
    // Each rebuilt stream is cut back into its rank's files.
    for (const Target& target : out) {
        if (target.row >= k) {
            written.push_back(target.path);
            continue;
        }
        const auto g = static_cast<std::size_t>(target.row);
        const int rank = group[g];
        const Directory dir = layout_.make_dir(layout_.routed_dir(copy.ref, rank, node_of(m, rank)));
        try {
            split_stream_file(target.path, files[g], dir, kBufferBytes);
        } catch (...) {
            target.dir.remove(target.path.filename().string());
            throw;
        }
        target.dir.remove(target.path.filename().string());
        for (const FileRecord& f : files[g]) written.push_back(dir.path_of(f.file));
    }
}

}  // namespace mlckpt::tools
