#include "verifier.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "common/error.hpp"
#include "common/file_name.hpp"
#include "format/checkpoint_meta.hpp"
#include "io/file.hpp"
#include "read_limits.hpp"
#include "recovery/restart_rules.hpp"
#include "storage/layout.hpp"
#include "store/checkpoint_store.hpp"
#include "verify_files.hpp"

namespace mlckpt::tools::verifying {

namespace {

using namespace mlckpt::core;

class Verifier {
  public:
    Verifier(Config config, const std::string& exec_id) : config_(std::move(config)), layout_(config_, exec_id) {}

    std::vector<CheckpointReport> run() {
        std::vector<CheckpointReport> reports;
        std::optional<std::uint64_t> newest_dcp;
        for (const auto& [archived, seq, level] : candidates()) {
            if (!archived && is_differential(level)) newest_dcp = std::max(newest_dcp.value_or(0), seq);
        }
        for (const auto& [archived, seq, level] : candidates()) {
            CheckpointReport c;
            c.seq = seq;
            c.level = level;
            c.archived = archived;
            if (!archived && is_differential(level) && seq < *newest_dcp) c.superseded_by = newest_dcp;
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
        scan(layout_.meta_exec_dir() / "archive", true, kL4, false);
        // Copies: on node 0 (application rank 0 commits), in the global
        // directory (L4, L4 differential) and in the L4 archive.
        scan(layout_.meta_copy_dir(kL1, 0), false, std::nullopt, false);
        scan(layout_.meta_copy_dir(kL4, 0), false, std::nullopt, false);
        scan(layout_.archive_dir(), true, kL4, false);
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
    bool node_local(const CheckpointReport& c) const { return !c.archived && is_node_local(c.level); }

    MetaRead read_metadata(const fs::path& path, const CheckpointReport& c, bool copy) const {
        MetaRead r;
        std::uint64_t size = 0;
        if (auto bad = not_a_file(path, size)) {
            r.outcome = *bad;
            return r;
        }
        if (size > kMaxMetadataBytes) {
            r.outcome = damaged(Damage::size, "'" + path.string() + "' has " + std::to_string(size) +
                                                  " bytes, more than any checkpoint metadata");
            return r;
        }
        try {
            r.text = read_text_file(path);
            CheckpointMeta m = parse_meta(r.text, path.string());
            const int level = c.archived ? kL4 : c.level;
            if (!m.complete || m.seq != c.seq || m.level != level) {
                r.outcome =
                    damaged(Damage::inconsistent, "checkpoint metadata '" + path.string() + "' is " +
                                                      (m.complete ? "of seq " + std::to_string(m.seq) + " at " +
                                                                        core::level_name(m.level) + ", not of its name"
                                                                  : std::string("incomplete")));
                return r;
            }
            if (copy && m.exec_id != layout_.exec_id()) {
                r.outcome = damaged(Damage::inconsistent,
                                    "checkpoint metadata '" + path.string() + "' is of execution '" + m.exec_id + "'");
                return r;
            }
            // A dataset of application files (scr.h) has any number of files per rank.
            if (!m.is_dataset() && (m.ranks < 0 || m.files.size() != static_cast<std::size_t>(m.ranks))) {
                r.outcome = damaged(Damage::inconsistent, "checkpoint metadata '" + path.string() + "' lists " +
                                                              std::to_string(m.files.size()) + " files for " +
                                                              std::to_string(m.ranks) + " ranks");
            }
            r.meta = std::move(m);
        } catch (const Error& e) {
            // Metadata that cannot be used fails its checksum or its structure, or cannot be read.
            const Damage damage = e.kind() == ErrorKind::io        ? Damage::unreadable
                                  : e.damage() == Damage::checksum ? Damage::checksum
                                                                   : Damage::structure;
            r.outcome = damaged(damage, e.what());
        }
        return r;
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
            if (is_differential(c.level) && f.role == "data") pending = pending_update(f.path, size, c.seq, note);
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
        if (node_local(c) && has_group_redundancy(c.level)) {
            // L2 and L3 find a rank's file by the same name as the restart does.
            return names.data_file(ref_of(c), r.rank, r.node);
        }
        if (!is_file_name(r.file)) {
            f.outcome = damaged(Damage::misnamed, "the metadata names the file '" + r.file +
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
                copy_file.outcome = damaged(Damage::stale, "it differs from the metadata '" + meta_path.string() + "'");
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
            if (node_local(c) && has_group_redundancy(c.level)) {
                f.path = names.redundancy_file(ref_of(c), r.holder, r.node);
            } else if (is_file_name(r.file)) {  // not made by the library: checked as recorded
                f.path = directory(c, r.node) / r.file;
            } else {
                f.outcome =
                    damaged(Damage::misnamed, "the metadata names the file '" + r.file + "', which is not a file name");
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
        if (c.archived || !has_group_redundancy(c.level)) {
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
            const MetaFound found = meta.damage == Damage::missing        ? MetaFound::missing
                                    : meta.damage == Damage::inconsistent ? MetaFound::inconsistent
                                                                          : MetaFound::damaged;
            const bool restorable = restores_metadata_from_copy(found, metadata_files_ == 0, config_.failure > 0);
            if (!restorable) {
                meta_use = Use::no;
                why = meta.damage == Damage::missing
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
                has_group_redundancy(c.level) && std::any_of(c.files.begin(), c.files.end(), [](const FileReport& f) {
                    return f.outcome.state == State::damaged &&
                           (f.role == "data" || f.role == "partner copy" || f.role == "parity");
                });
            c.verdict = state + "; a restart can use it" + restores +
                        (repairs ? "; the damaged files are rebuilt from the others" : "");
        }
        if (m.redundancy.size() != m.files.size() && has_group_redundancy(c.level)) {
            c.verdict += " (its " +
                         std::string(redundancy_kind(c.level) == GroupRedundancy::partner_copy ? "partner copies were"
                                                                                               : "parity was") +
                         " never recorded: the heads did not finish; a restart makes them)";
        }
    }

    Config config_;
    StorageLayout layout_;
    std::optional<std::set<Candidate>> candidates_;
    int metadata_files_ = 0;  // in the execution's metadata directory
    std::map<int, bool> visible_;
};

}  // namespace

std::vector<CheckpointReport> verify_execution(Config config, const std::string& exec_id) {
    return Verifier(std::move(config), exec_id).run();
}

}  // namespace mlckpt::tools::verifying
