#include "verify.hpp"

#include "cli.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "common/error.hpp"
#include "common/file_name.hpp"
#include "config/config.hpp"
#include "format/checkpoint_meta.hpp"
#include "format/checkpoint_reader.hpp"
#include "format/dcp_layers.hpp"
#include "format/posix_format.hpp"
#include "format/redo_journal.hpp"
#include "io/file.hpp"
#include "json.hpp"
#include "read_limits.hpp"
#include "recovery/restart_rules.hpp"
#include "storage/layout.hpp"

namespace mlckpt::tools {

namespace {

using namespace mlckpt::core;

constexpr const char* kUsage = "usage: mlckpt verify [--json] [--exec-id ID] [--] CONFIG\n";

enum class State { ok, damaged, not_visible };

struct Outcome {
    State state = State::ok;
    std::string damage;  // what is wrong: missing, size, checksum, structure, ...
    std::string detail;  // the check's own message
    std::string note;    // about a file that verifies, or one not visible
};

Outcome damaged(std::string what, std::string detail = {}) {
    return {State::damaged, std::move(what), std::move(detail), {}};
}

// A check's Error: `what`, unless the file could not be read at all.
Outcome from_error(const std::string& what, const Error& e) {
    return damaged(e.kind() == ErrorKind::io ? "unreadable" : what, e.what());
}

// Whether `path` is a regular file (its size then in `size`); what is wrong
// otherwise. Never opens it: a FIFO or a device is not read.
std::optional<Outcome> not_a_file(const fs::path& path, std::uint64_t& size) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        const int e = errno;
        if (e == ENOENT || e == ENOTDIR) return damaged("missing");
        return damaged("unreadable", "cannot examine '" + path.string() + "': " + std::strerror(e));
    }
    if (!S_ISREG(st.st_mode)) return damaged("not a regular file");
    size = static_cast<std::uint64_t>(st.st_size);
    return std::nullopt;
}

std::string level_name(int level, bool archived) {
    if (level == kDcpLevel) return "L4 differential";
    return "L" + std::to_string(level) + (archived ? ", archived" : "");
}

std::string ranks_text(const std::vector<int>& ranks) {
    if (ranks.size() == 1) return "rank " + std::to_string(ranks[0]);
    bool contiguous = true;
    for (std::size_t i = 1; i < ranks.size(); ++i) contiguous = contiguous && ranks[i] == ranks[i - 1] + 1;
    if (contiguous && !ranks.empty()) {
        return "ranks " + std::to_string(ranks.front()) + "-" + std::to_string(ranks.back());
    }
    std::string out = "ranks ";
    for (std::size_t i = 0; i < ranks.size(); ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
    return out;
}

struct FileReport {
    std::string role;        // metadata, metadata copy, data, partner copy, parity
    std::vector<int> ranks;  // data: whose (several in a shared file); partner copy: whose data; parity: holder
    int holder = -1;         // partner copy: the rank that keeps it
    int node = -1;           // node-local files: the node
    fs::path path;           // empty when the metadata names no usable file
    Outcome outcome;

    std::string what() const {
        if (role == "data") return "data of " + ranks_text(ranks);
        if (role == "partner copy") {
            return "partner copy of " + ranks_text(ranks) + "'s data, kept by rank " + std::to_string(holder);
        }
        if (role == "parity") return "parity kept by " + ranks_text(ranks);
        return role;
    }
};

enum class Use { yes, no, unknown, not_applicable };

struct CheckpointReport {
    std::uint64_t seq = 0;
    int level = 1;
    bool archived = false;
    int ckpt_id = 0;       // 0 when no metadata says
    bool own_dir = false;  // its files are in l<L>/ckpt<seq>/, from the metadata
    std::string format;    // of its data files, from the metadata
    int ranks = 0;
    std::optional<std::uint64_t> superseded_by;  // L4 differential: a newer one updated its files
    std::vector<FileReport> files;
    Use use = Use::not_applicable;  // whether a restart can use it
    std::string verdict;

    std::string name() const {
        return "checkpoint " + (ckpt_id > 0 ? std::to_string(ckpt_id) : std::string("?")) + " (" +
               level_name(level, archived) + ", seq " + std::to_string(seq) + ")";
    }
    bool any(State s) const {
        return std::any_of(files.begin(), files.end(), [&](const FileReport& f) { return f.outcome.state == s; });
    }
};

struct MetaRead {
    Outcome outcome;
    std::optional<CheckpointMeta> meta;
    std::string text;
};

struct Arguments {
    bool json = false;
    std::string config;
    std::optional<std::string> exec_id;
};

std::optional<Arguments> parse_arguments(const std::vector<std::string>& args, std::ostream& err) {
    Arguments a;
    bool options_done = false;  // after "--", CONFIG may start with '-'
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        if (!options_done && arg == "--") {
            options_done = true;
        } else if (!options_done && arg == "--json" && !a.json) {
            a.json = true;
        } else if (!options_done && arg == "--exec-id" && i + 1 < args.size() && !a.exec_id) {
            a.exec_id = args[++i];
        } else if (a.config.empty() && !arg.empty() && (options_done || arg[0] != '-')) {
            a.config = arg;
        } else {
            err << "mlckpt verify: unexpected argument '" << shown(arg) << "'\n";
            return std::nullopt;
        }
    }
    if (a.config.empty()) return std::nullopt;
    return a;
}

class Verifier {
  public:
    Verifier(Config config, const std::string& exec_id) : config_(std::move(config)), layout_(config_, exec_id) {}

    std::vector<CheckpointReport> run() {
        std::vector<CheckpointReport> reports;
        std::optional<std::uint64_t> newest_dcp;
        for (const auto& [archived, seq, level] : candidates()) {
            if (!archived && level == kDcpLevel) newest_dcp = std::max(newest_dcp.value_or(0), seq);
        }
        for (const auto& [archived, seq, level] : candidates()) {
            CheckpointReport c;
            c.seq = seq;
            c.level = level;
            c.archived = archived;
            if (!archived && level == kDcpLevel && seq < *newest_dcp) c.superseded_by = newest_dcp;
            check_checkpoint(c);
            reports.push_back(std::move(c));
        }
        // The order in which a restart tries them: newest first, lowest level
        // first; archived ones last.
        std::sort(reports.begin(), reports.end(), [](const CheckpointReport& a, const CheckpointReport& b) {
            return a.archived != b.archived ? b.archived : tried_before(ref_of(a), ref_of(b));
        });
        return reports;
    }

    const StorageLayout& layout() const { return layout_; }

  private:
    using Candidate = std::tuple<bool, std::uint64_t, int>;  // archived, seq, level

    // Every checkpoint that a metadata file, or a copy of one beside the
    // data, records.
    std::set<Candidate> candidates() {
        if (candidates_) return *candidates_;
        std::set<Candidate> out;
        auto scan = [&](const fs::path& dir, bool archived, std::optional<int> only_level, bool counts) {
            std::error_code ec;
            for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
                std::uint64_t seq = 0;
                int level = 0;
                if (!parse_meta_file_name(it->path().filename().string(), seq, level)) continue;
                if (only_level && level != *only_level) continue;
                out.insert({archived, seq, level});
                if (counts) ++metadata_files_;
            }
        };
        std::error_code ec;
        scan(layout_.meta_exec_dir(), false, std::nullopt, true);
        scan(layout_.meta_exec_dir() / "archive", true, 4, false);
        // Copies: on node 0 (application rank 0 commits), in the global
        // directory (L4, L4 differential) and in the L4 archive.
        scan(layout_.meta_copy_dir(1, 0), false, std::nullopt, false);
        scan(layout_.meta_copy_dir(4, 0), false, std::nullopt, false);
        scan(layout_.archive_dir(), true, 4, false);
        candidates_ = out;
        return out;
    }

    bool visible(int node) {
        if (config_.local_test) return true;  // simulated nodes: all on this machine
        auto [it, added] = visible_.try_emplace(node, false);
        if (added) {
            std::error_code ec;
            it->second = fs::is_directory(layout_.node_exec_dir(node), ec);
        }
        return it->second;
    }

    fs::path directory(const CheckpointReport& c, int node) const {
        return c.archived ? layout_.archive_dir() : layout_.ckpt_dir(ref_of(c), node);
    }
    static CheckpointRef ref_of(const CheckpointReport& c) { return {c.seq, c.level, c.ckpt_id, c.own_dir}; }
    bool node_local(const CheckpointReport& c) const { return !c.archived && c.level >= 1 && c.level <= 3; }

    MetaRead read_metadata(const fs::path& path, const CheckpointReport& c, bool copy) const {
        MetaRead r;
        std::uint64_t size = 0;
        if (auto bad = not_a_file(path, size)) {
            r.outcome = *bad;
            return r;
        }
        if (size > kMaxMetadataBytes) {
            r.outcome = damaged("size", "'" + path.string() + "' has " + std::to_string(size) +
                                            " bytes, more than any checkpoint metadata");
            return r;
        }
        try {
            r.text = read_text_file(path);
            CheckpointMeta m = parse_meta(r.text, path.string());
            const int level = c.archived ? 4 : c.level;
            if (!m.complete || m.seq != c.seq || m.level != level) {
                r.outcome = damaged("inconsistent", "checkpoint metadata '" + path.string() + "' is " +
                                                        (m.complete ? "of seq " + std::to_string(m.seq) + " at L" +
                                                                          std::to_string(m.level) + ", not of its name"
                                                                    : std::string("incomplete")));
                return r;
            }
            if (copy && m.exec_id != layout_.exec_id()) {
                r.outcome = damaged("inconsistent",
                                    "checkpoint metadata '" + path.string() + "' is of execution '" + m.exec_id + "'");
                return r;
            }
            // A dataset of application files (scr.h) has any number of files per rank.
            if (!m.is_dataset() && (m.ranks < 0 || m.files.size() != static_cast<std::size_t>(m.ranks))) {
                r.outcome = damaged("inconsistent", "checkpoint metadata '" + path.string() + "' lists " +
                                                        std::to_string(m.files.size()) + " files for " +
                                                        std::to_string(m.ranks) + " ranks");
            }
            r.meta = std::move(m);
        } catch (const Error& e) {
            const bool checksum = std::string(e.what()).find("fails its checksum") != std::string::npos;
            r.outcome = from_error(checksum ? "checksum" : "structure", e);
        }
        return r;
    }

    // One rank's part of a file that is present with `size` bytes.
    static Outcome check_part(const fs::path& path, std::uint64_t size, const FileRecord& rec, IoMode io) {
        if (!rec.complete) return damaged("incomplete", "its record in the metadata is not complete");
        if (!rec.layers.empty()) return check_layers(path, size, rec);
        const IoMode format = rec.type == "PARITY" ? IoMode::posix : io;  // parity is raw bytes
        // The sizes the metadata gives are checked against the file's before
        // anything is read.
        if (format == IoMode::mpiio) {
            if (rec.offset > size || rec.size > size - rec.offset) {
                return damaged("size", "checkpoint file '" + path.string() + "' has " + std::to_string(size) +
                                           " bytes; the slice of rank " + std::to_string(rec.rank) + " (" +
                                           std::to_string(rec.size) + " bytes at offset " + std::to_string(rec.offset) +
                                           ") goes past its end (truncated)");
            }
        } else if (format != IoMode::container) {
            try {
                check_recorded_size(path, size, rec);
            } catch (const Error& e) {
                return damaged("size", e.what());
            }
        }
        // What a restart checks before it reads (a container's metadata
        // blocks, an FTI-FF file's block records, an HDF5 file's every
        // byte), then every byte.
        try {
            open_checkpoint_reader(path, format, rec);
        } catch (const Error& e) {
            const std::string what = e.what();
            const char* kind = what.find("truncated") != std::string::npos            ? "size"
                               : what.find("fails its checksum") != std::string::npos ? "checksum"
                                                                                      : "structure";
            return from_error(kind, e);
        }
        try {
            verify_checkpoint_file(path, rec, io, kBufferBytes);
        } catch (const Error& e) {
            return from_error("checksum", e);
        }
        return {};
    }

    // A layered L4 differential file (ckpt_io = 1): every layer it records.
    // Bytes past the last one are an append never committed, which the next
    // dCP checkpoint cuts off. When the newest layer is damaged, a restart
    // falls back to the newest layer intact on every rank, if there is one.
    static Outcome check_layers(const fs::path& path, std::uint64_t size, const FileRecord& rec) {
        std::string why;
        const std::optional<std::size_t> newest = newest_intact_dcp_layer(path, rec.layers, kBufferBytes, why);
        if (newest && *newest + 1 == rec.layers.size()) {
            Outcome o;
            const DcpLayer& first = rec.layers.front();
            const DcpLayer& last = rec.layers.back();
            o.note = std::to_string(rec.layers.size()) + (rec.layers.size() == 1 ? " layer" : " layers") +
                     " (checkpoints " + std::to_string(first.ckpt_id) + " to " + std::to_string(last.ckpt_id) +
                     "), each intact";
            if (size > last.offset + last.size) {
                o.note += "; past them, " + std::to_string(size - last.offset - last.size) +
                          " bytes of an append never committed, which the next dCP checkpoint cuts off";
            }
            return o;
        }
        Outcome o = damaged(size < rec.size ? "size" : "checksum", why);
        if (newest) {
            const DcpLayer& back = rec.layers[*newest];
            o.detail += "; its layer of checkpoint " + std::to_string(back.ckpt_id) + " (seq " +
                        std::to_string(back.seq) +
                        ") and those before are intact: a restart falls back to the "
                        "newest layer intact on every rank";
        }
        return o;
    }

    // An L4 differential file: its committed update may still wait in its
    // journal (a crash while it was applied), which a restart applies.
    static std::optional<Outcome> pending_update(const fs::path& path, std::uint64_t size, std::uint64_t seq,
                                                 std::string& note) {
        const fs::path journal = fs::path(path) += ".journal";
        std::uint64_t journal_size = 0;
        if (not_a_file(journal, journal_size)) return std::nullopt;
        std::optional<std::uint64_t> journal_seq;
        try {
            journal_seq = redo_journal_seq(journal);
        } catch (const Error&) {
        }
        if (journal_seq != seq) {
            note = "beside it, the journal of an update never committed, which a restart removes";
            return std::nullopt;
        }
        try {
            check_redo_journal(journal, size);
        } catch (const Error& e) {
            return from_error("journal", e);
        }
        Outcome pending;
        pending.note = "its committed update waits in its journal '" + journal.string() +
                       "', which verifies; a restart applies it";
        return pending;
    }

    // The files of the records `group` (one file, or one file shared by
    // several ranks), with each rank's outcome.
    void check_file(CheckpointReport& c, FileReport& f, const std::vector<const FileRecord*>& group, IoMode io,
                    std::map<int, Outcome>& by_rank) {
        // Partner copies are known by whose data they hold, parity by its holder.
        auto key = [&](const FileRecord& r) { return f.role == "parity" ? r.holder : r.rank; };
        if (f.path.empty()) {
            for (const FileRecord* r : group) by_rank[key(*r)] = f.outcome;
            return;
        }
        if (node_local(c) && !visible(f.node)) {
            f.outcome.state = State::not_visible;
            f.outcome.note = "on node " + std::to_string(f.node) + "'s local storage";
            for (const FileRecord* r : group) by_rank[key(*r)] = f.outcome;
            return;
        }
        std::uint64_t size = 0;
        if (auto bad = not_a_file(f.path, size)) {
            f.outcome = *bad;
            for (const FileRecord* r : group) by_rank[key(*r)] = f.outcome;
            return;
        }
        std::vector<std::pair<int, Outcome>> failed;
        for (const FileRecord* r : group) {
            std::string note;
            std::optional<Outcome> pending;
            if (c.level == kDcpLevel && f.role == "data") pending = pending_update(f.path, size, c.seq, note);
            Outcome o = pending ? *pending : check_part(f.path, size, *r, io);
            if (o.note.empty()) o.note = note;
            if (o.state == State::damaged) failed.emplace_back(key(*r), o);
            if (group.size() == 1) f.outcome = o;
            by_rank[key(*r)] = std::move(o);
        }
        if (group.size() == 1 || failed.empty()) return;
        // A shared file: which ranks' parts fail and why, each reason once
        // (the first few).
        std::vector<std::pair<std::vector<int>, std::string>> reasons;
        for (const auto& [rank, o] : failed) {
            auto same =
                std::find_if(reasons.begin(), reasons.end(), [&](const auto& r) { return r.second == o.detail; });
            if (same == reasons.end()) {
                reasons.push_back({{rank}, o.detail});
            } else {
                same->first.push_back(rank);
            }
        }
        f.outcome = damaged(failed.front().second.damage);
        for (std::size_t i = 0; i < reasons.size() && i < 3; ++i) {
            f.outcome.detail += (i ? "; " : "") + ranks_text(reasons[i].first) + ": " + reasons[i].second;
        }
        if (reasons.size() > 3) {
            std::vector<int> rest;
            for (std::size_t i = 3; i < reasons.size(); ++i)
                rest.insert(rest.end(), reasons[i].first.begin(), reasons[i].first.end());
            f.outcome.detail += "; and " + ranks_text(rest);
        }
    }

    // `names`: the layout naming the checkpoint's files (for_checkpoint).
    fs::path data_path(const CheckpointReport& c, const FileRecord& r, const StorageLayout& names,
                       FileReport& f) const {
        if (node_local(c) && c.level >= 2) {
            // L2 and L3 find a rank's file by the same name as the restart does.
            return names.data_file(ref_of(c), r.rank, r.node);
        }
        if (!is_file_name(r.file)) {
            f.outcome = damaged("name", "the metadata names the file '" + r.file +
                                            "', which is not a file name (no '/', not '.' or '..')");
            return {};
        }
        // An L4 differential file's directory goes with its name (DcpNames).
        return (c.archived ? layout_.archive_dir() : names.ckpt_dir(ref_of(c), r.node)) / r.file;
    }

    void check_checkpoint(CheckpointReport& c) {
        const fs::path meta_path = c.archived ? layout_.archive_meta_file(c.seq) : layout_.meta_file(c.level, c.seq);
        const fs::path copy_path = c.archived ? layout_.archive_dir() / layout_.meta_file(c.level, c.seq).filename()
                                              : layout_.meta_copy(c.level, c.seq, 0);
        MetaRead meta = read_metadata(meta_path, c, false);
        FileReport meta_file{"metadata", {}, -1, -1, meta_path, meta.outcome};
        FileReport copy_file{"metadata copy", {}, -1, node_local(c) ? 0 : -1, copy_path, {}};
        MetaRead copy;
        if (node_local(c) && !visible(0)) {
            copy_file.outcome = {State::not_visible, {}, {}, "on node 0's local storage"};
        } else {
            copy = read_metadata(copy_path, c, true);
            copy_file.outcome = copy.outcome;
            if (copy.meta && meta.meta && copy.text != meta.text) {
                copy_file.outcome = damaged("stale", "it differs from the metadata '" + meta_path.string() + "'");
            }
        }
        const CheckpointMeta* m = meta.meta ? &*meta.meta : copy.meta ? &*copy.meta : nullptr;
        if (m != nullptr) {
            c.ckpt_id = m->ckpt_id;
            c.own_dir = m->own_dir;
            c.format = io_mode_name(m->io);
            if (std::any_of(m->files.begin(), m->files.end(), [](const FileRecord& r) { return !r.layers.empty(); })) {
                c.format = "POSIX dCP layers";
            }
            c.ranks = m->ranks;
        }
        if (c.superseded_by) {
            c.verdict = "superseded by seq " + std::to_string(*c.superseded_by) +
                        ", which updated its files in place; a restart removes its metadata";
            return;
        }
        c.files.push_back(meta_file);
        c.files.push_back(copy_file);
        if (m == nullptr) {
            c.verdict = "no metadata describes its files";
            c.use = c.archived ? Use::not_applicable : Use::no;
            return;
        }
        if (m->is_dataset()) {
            // Its files are the application's own, several per rank, and
            // its redundancy covers each rank's files as one stream: not
            // for this command, nor for an FTI restart.
            c.format = "SCR dataset";
            c.files = {meta.meta ? meta_file : copy_file};  // the metadata read; the rest is mlckpt index's
            c.verdict = "this is an SCR dataset ('" + m->name +
                        "', written through scr.h), not an FTI checkpoint; use mlckpt index --prefix " +
                        config_.meta_dir + " to list, verify or rebuild it";
            c.use = Use::not_applicable;
            return;
        }

        // Data files, one report per file (a shared L4 file holds every rank).
        std::map<int, Outcome> data_of;
        std::vector<std::pair<FileReport, std::vector<const FileRecord*>>> files;
        std::map<fs::path, std::size_t> index;
        const StorageLayout names = layout_.for_checkpoint(*m);
        for (const FileRecord& r : m->files) {
            FileReport f{"data", {r.rank}, -1, r.node, {}, {}};
            f.path = data_path(c, r, names, f);
            auto [it, added] = index.try_emplace(f.path, files.size());
            if (!added && !f.path.empty()) {
                files[it->second].first.ranks.push_back(r.rank);
                files[it->second].second.push_back(&r);
            } else {
                files.push_back({f, {&r}});
            }
        }
        for (auto& [f, group] : files) {
            check_file(c, f, group, m->io, data_of);
            c.files.push_back(f);
        }
        // Partner copies and parity files.
        std::map<int, Outcome> redundancy_of;  // by whose data (L2) or holder (L3)
        for (const FileRecord& r : m->redundancy) {
            const bool parity = r.type == "PARITY";
            FileReport f{parity ? "parity" : "partner copy", {parity ? r.holder : r.rank}, r.holder, r.node, {}, {}};
            if (node_local(c) && (c.level == 2 || c.level == 3)) {
                f.path = names.redundancy_file(ref_of(c), r.holder, r.node);
            } else if (is_file_name(r.file)) {  // not made by the library: checked as recorded
                f.path = directory(c, r.node) / r.file;
            } else {
                f.outcome = damaged("name", "the metadata names the file '" + r.file + "', which is not a file name");
            }
            check_file(c, f, {&r}, m->io, redundancy_of);
            c.files.push_back(f);
        }
        judge(c, *m, meta.outcome, copy_file.outcome, data_of, redundancy_of);
    }

    // Whether the data of `m` can be used: every rank's file, or what L2 and
    // L3 rebuild from their redundancy (the restart's own rule). With
    // `optimistic`, files not visible here count as sound.
    static bool data_usable(const CheckpointReport& c, const CheckpointMeta& m, std::map<int, Outcome>& data_of,
                            std::map<int, Outcome>& redundancy_of, bool optimistic, std::string& why) {
        auto sound = [&](std::map<int, Outcome>& outcomes, int key) {
            auto it = outcomes.find(key);
            if (it == outcomes.end()) return false;
            return it->second.state == State::ok || (optimistic && it->second.state == State::not_visible);
        };
        if (c.archived || (c.level != 2 && c.level != 3)) {
            for (const FileRecord& r : m.files) {
                if (sound(data_of, r.rank)) continue;
                auto it = data_of.find(r.rank);
                why = "the data of rank " + std::to_string(r.rank) + " is " +
                      (it != data_of.end() && it->second.state == State::not_visible ? "not visible here" : "damaged");
                return false;
            }
            return true;
        }
        // Partner copies are reported by whose data they hold; the rule
        // asks by holder.
        std::map<int, Outcome> by_holder;
        for (const FileRecord& r : m.redundancy) {
            auto it = redundancy_of.find(r.type == "PARITY" ? r.holder : r.rank);
            if (it != redundancy_of.end()) by_holder[r.holder] = it->second;
        }
        std::optional<std::string> lost = grouped_loss_beyond_repair(
            m, [&](int rank) { return sound(data_of, rank); }, [&](int holder) { return sound(by_holder, holder); });
        if (lost) why = *lost;
        return !lost;
    }

    void judge(CheckpointReport& c, const CheckpointMeta& m, const Outcome& meta, const Outcome& copy,
               std::map<int, Outcome>& data_of, std::map<int, Outcome>& redundancy_of) const {
        const std::string state = c.any(State::damaged)       ? "damaged"
                                  : c.any(State::not_visible) ? "intact where visible"
                                                              : "intact";
        if (c.archived) {
            c.verdict = state + "; archived (keep_l4_ckpt), a restart does not use it";
            return;
        }
        // The metadata: used as it is, restored from its copy, or the
        // checkpoint is ignored (as load_catalog_and_clean does).
        Use meta_use = Use::yes;
        std::string why;
        std::string restores;
        if (meta.state == State::damaged) {
            const bool restorable = meta.damage != "inconsistent" &&
                                    (meta.damage != "missing" || (metadata_files_ == 0 && config_.failure > 0));
            if (!restorable) {
                meta_use = Use::no;
                why = meta.damage == "missing"
                          ? "its metadata is missing (a restart restores metadata from the copies only when none of "
                            "the execution is left and a restart is asked for; otherwise it removes the files)"
                          : "its metadata is not usable: " + meta.detail;
            } else if (copy.state == State::ok) {
                restores = "; it restores the metadata from its copy";
            } else {
                meta_use = copy.state == State::not_visible ? Use::unknown : Use::no;
                why = "its metadata and the copy of it are both damaged";
            }
        }
        if (meta_use != Use::no && !c.archived) {
            if (std::optional<std::string> misfits =
                    misfit(m, RunShape{std::nullopt, config_.node_size, config_.group_size})) {
                meta_use = Use::no;
                why = *misfits;
            }
        }
        Use data_use = Use::yes;
        std::string data_why;
        if (!data_usable(c, m, data_of, redundancy_of, false, data_why)) {
            std::string ignored;
            data_use = data_usable(c, m, data_of, redundancy_of, true, ignored) ? Use::unknown : Use::no;
        }
        c.use = meta_use == Use::no || data_use == Use::no             ? Use::no
                : meta_use == Use::unknown || data_use == Use::unknown ? Use::unknown
                                                                       : Use::yes;
        if (c.use == Use::no) {
            c.verdict = state + "; a restart cannot use it: " + (meta_use == Use::no ? why : data_why);
        } else if (c.use == Use::unknown) {
            c.verdict = state + "; a restart can use it if the files not visible here verify";
        } else {
            const bool repairs =
                (c.level == 2 || c.level == 3) && std::any_of(c.files.begin(), c.files.end(), [](const FileReport& f) {
                    return f.outcome.state == State::damaged &&
                           (f.role == "data" || f.role == "partner copy" || f.role == "parity");
                });
            c.verdict = state + "; a restart can use it" + restores +
                        (repairs ? "; the damaged files are rebuilt from the others" : "");
        }
        if (m.redundancy.size() != m.files.size() && (c.level == 2 || c.level == 3)) {
            c.verdict += " (its " + std::string(c.level == 2 ? "partner copies were" : "parity was") +
                         " never recorded: the heads did not finish; a restart makes them)";
        }
    }

    Config config_;
    StorageLayout layout_;
    std::optional<std::set<Candidate>> candidates_;
    int metadata_files_ = 0;  // in the execution's metadata directory
    std::map<int, bool> visible_;
};

const char* state_name(State s) {
    return s == State::ok ? "ok" : s == State::damaged ? "damaged" : "not visible";
}

struct Totals {
    std::size_t checkpoints = 0, files = 0, ok = 0, damaged = 0, not_visible = 0;
};

Totals count(const std::vector<CheckpointReport>& reports) {
    Totals t;
    for (const CheckpointReport& c : reports) {
        ++t.checkpoints;
        for (const FileReport& f : c.files) {
            ++t.files;
            ++(f.outcome.state == State::ok ? t.ok : f.outcome.state == State::damaged ? t.damaged : t.not_visible);
        }
    }
    return t;
}

// The checkpoint a restart would take, in its order, and the newer ones it
// would take if the files not visible here verify.
const CheckpointReport* restart_choice(const std::vector<CheckpointReport>& reports,
                                       std::vector<const CheckpointReport*>& if_visible) {
    for (const CheckpointReport& c : reports) {
        if (c.use == Use::yes) return &c;
        if (c.use == Use::unknown) if_visible.push_back(&c);
    }
    return nullptr;
}

void print_text(std::ostream& out, const std::string& config, const std::string& exec_id,
                const std::vector<CheckpointReport>& reports, const Totals& t, const std::string& note) {
    out << "execution '" << shown(exec_id) << "' of " << shown(config) << "\n";
    for (const CheckpointReport& c : reports) {
        std::string name = c.name();
        if (!c.format.empty()) {
            name.insert(name.size() - 1,
                        ", " + c.format + ", " + std::to_string(c.ranks) + (c.ranks == 1 ? " rank" : " ranks"));
        }
        out << shown(name) << ": " << shown(c.verdict) << "\n";
        for (const FileReport& f : c.files) {
            std::string status = f.outcome.state == State::damaged       ? "damaged (" + f.outcome.damage + ")"
                                 : f.outcome.state == State::not_visible ? "not visible here"
                                                                         : "ok";
            status.resize(std::max<std::size_t>(status.size() + 1, 20), ' ');
            out << "  " << status << f.what();
            if (!f.path.empty()) out << ": " << shown(f.path.string());
            if (!f.outcome.detail.empty()) out << ": " << shown(f.outcome.detail);
            if (!f.outcome.note.empty()) out << " (" << shown(f.outcome.note) << ")";
            out << "\n";
        }
    }
    out << "summary: " << t.checkpoints << (t.checkpoints == 1 ? " checkpoint, " : " checkpoints, ") << t.files
        << (t.files == 1 ? " file: " : " files: ") << t.ok << " ok, " << t.damaged << " damaged, " << t.not_visible
        << " not visible here\n";
    std::vector<const CheckpointReport*> if_visible;
    const CheckpointReport* choice = restart_choice(reports, if_visible);
    out << "restart: ";
    for (const CheckpointReport* c : if_visible) out << c->name() << " if its files not visible here verify, else ";
    out << (choice ? choice->name() : "no checkpoint") << "\n";
    if (!note.empty()) out << "note: " << shown(note) << "\n";
}

void print_json_ref(std::ostream& out, const CheckpointReport& c) {
    out << "{\"id\": " << c.ckpt_id << ", \"level\": " << c.level << ", \"seq\": " << c.seq << "}";
}

void print_json(std::ostream& out, const std::string& config, const std::string& exec_id,
                const std::vector<CheckpointReport>& reports, const Totals& t, const std::string& note) {
    out << "{\"config\": " << json_string(config) << ", \"exec_id\": " << json_string(exec_id)
        << ", \"checkpoints\": [";
    for (std::size_t i = 0; i < reports.size(); ++i) {
        const CheckpointReport& c = reports[i];
        const char* use = c.use == Use::yes       ? "true"
                          : c.use == Use::no      ? "false"
                          : c.use == Use::unknown ? "null"
                                                  : "false";
        out << (i ? ", " : "") << "{\"id\": " << c.ckpt_id << ", \"level\": " << c.level << ", \"seq\": " << c.seq
            << ", \"archived\": " << (c.archived ? "true" : "false") << ", \"format\": " << json_string(c.format)
            << ", \"ranks\": " << c.ranks << ", \"superseded\": " << (c.superseded_by ? "true" : "false")
            << ", \"usable\": " << use << ", \"verdict\": " << json_string(c.verdict) << ", \"files\": [";
        for (std::size_t j = 0; j < c.files.size(); ++j) {
            const FileReport& f = c.files[j];
            out << (j ? ", " : "") << "{\"role\": " << json_string(f.role) << ", \"ranks\": [";
            for (std::size_t k = 0; k < f.ranks.size(); ++k) out << (k ? ", " : "") << f.ranks[k];
            out << "]";
            if (f.holder >= 0) out << ", \"holder\": " << f.holder;
            if (f.node >= 0) out << ", \"node\": " << f.node;
            out << ", \"path\": " << json_string(f.path.string())
                << ", \"state\": " << json_string(state_name(f.outcome.state));
            if (f.outcome.state == State::damaged) out << ", \"damage\": " << json_string(f.outcome.damage);
            if (!f.outcome.detail.empty()) out << ", \"detail\": " << json_string(f.outcome.detail);
            if (!f.outcome.note.empty()) out << ", \"note\": " << json_string(f.outcome.note);
            out << "}";
        }
        out << "]}";
    }
    out << "], \"summary\": {\"checkpoints\": " << t.checkpoints << ", \"files\": " << t.files << ", \"ok\": " << t.ok
        << ", \"damaged\": " << t.damaged << ", \"not_visible\": " << t.not_visible << "}, \"restart\": ";
    std::vector<const CheckpointReport*> if_visible;
    const CheckpointReport* choice = restart_choice(reports, if_visible);
    out << "{\"checkpoint\": ";
    if (choice) {
        print_json_ref(out, *choice);
    } else {
        out << "null";
    }
    out << ", \"if_visible\": [";
    for (std::size_t i = 0; i < if_visible.size(); ++i) {
        out << (i ? ", " : "");
        print_json_ref(out, *if_visible[i]);
    }
    out << "]}, \"note\": " << (note.empty() ? "null" : json_string(note)) << "}\n";
}

// The executions that have a metadata directory under meta_dir.
std::vector<std::string> executions_in(const fs::path& meta_dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (fs::directory_iterator it(meta_dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code type_ec;
        if (it->is_directory(type_ec)) out.push_back(it->path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool is_directory(const std::string& path) {
    std::error_code ec;
    return !path.empty() && fs::is_directory(path, ec);
}

}  // namespace

int verify(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    if (asks_for_help(args)) {
        out << kUsage;
        return 0;
    }
    std::optional<Arguments> a = parse_arguments(args, err);
    if (!a) {
        err << kUsage;
        return 2;
    }
    Config config;
    try {
        config = load_config(a->config);
    } catch (const Error& e) {
        err << "mlckpt verify: " << shown(e.what()) << "\n";
        return 2;
    }
    // Shared directories must be there; node-local ones may live on other
    // nodes, unless the nodes are simulated on this machine (local_test).
    // Not meta_dir: a restart that finds it lost restores it from the copies
    // of the metadata beside the data, which are read below.
    const std::pair<std::string, std::string> dirs[] = {{"glbl_dir", config.glbl_dir}, {"ckpt_dir", config.ckpt_dir}};
    for (const auto& [key, dir] : dirs) {
        if (key == "ckpt_dir" && !config.local_test) continue;
        if (!is_directory(dir)) {
            err << "mlckpt verify: " << shown(a->config) << ": [basic] " << key << " = '" << shown(dir)
                << "' is not a directory here" << (key == "ckpt_dir" ? " (local_test = 1)" : "")
                << "; nothing can be verified without it\n";
            return 2;
        }
    }
    const std::string exec_id = a->exec_id.value_or(config.exec_id);
    if (exec_id.empty()) {
        // A relaunch with this configuration starts a new execution (an
        // empty exec_id allows only failure = 0): that is the restart line.
        // What meta_dir holds (a checkpoint whose restart state a crash kept
        // from the configuration, another run's) is verified by name.
        std::vector<std::string> found = executions_in(config.meta_dir);
        std::string note =
            found.empty() ? "no execution is recorded" : "'" + config.meta_dir + "' holds the metadata of ";
        for (std::size_t i = 0; i < found.size(); ++i) note += (i ? ", '" : "'") + found[i] + "'";
        if (!found.empty()) note += ": verify one with --exec-id";
        if (a->json) {
            out << "{\"config\": " << json_string(a->config)
                << ", \"exec_id\": null, \"checkpoints\": [], \"summary\": {\"checkpoints\": 0, \"files\": 0, "
                   "\"ok\": 0, \"damaged\": 0, \"not_visible\": 0}, \"restart\": {\"checkpoint\": null, "
                   "\"if_visible\": []}, \"note\": "
                << json_string(note) << "}\n";
        } else {
            out << shown(a->config) << " names no execution ([restart] exec_id is empty): a relaunch starts a new "
                << "execution\n"
                << (found.empty() ? "'" + shown(config.meta_dir) + "' holds none: nothing to verify" : shown(note))
                << "\nrestart: no checkpoint\n";
        }
        return 0;
    }
    if (!is_file_name(exec_id)) {
        err << "mlckpt verify: the execution id '" << shown(exec_id) << "' is not a name (no '/', not '.' or '..')\n";
        return 2;
    }
    const int failure = config.failure;
    Verifier verifier(std::move(config), exec_id);
    std::vector<CheckpointReport> reports = verifier.run();
    const Totals totals = count(reports);
    std::string note;
    if (reports.empty()) {
        note = "no checkpoint of execution '" + exec_id + "' is recorded in '" +
               verifier.layout().meta_exec_dir().string() + "'" +
               (failure > 0
                    ? ", but the configuration asks for a restart ([restart] failure = " + std::to_string(failure) + ")"
                    : "");
    } else if (failure == 0) {
        note = a->config + " says [restart] failure = 0: a relaunch starts a new execution instead of restarting";
    }
    if (a->json) {
        print_json(out, a->config, exec_id, reports, totals, note);
    } else {
        print_text(out, a->config, exec_id, reports, totals, note);
    }
    return totals.damaged > 0 || (reports.empty() && failure > 0) ? 1 : 0;
}

}  // namespace mlckpt::tools
