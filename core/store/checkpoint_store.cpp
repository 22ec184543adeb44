#include "store/checkpoint_store.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "common/fault_injection.hpp"
#include "common/plural.hpp"
#include "config/restart_state.hpp"
#include "format/dcp/redo_journal.hpp"
#include "format/posix/posix_repack.hpp"
#include "hash/crc32.hpp"
#include "io/buffer_pool.hpp"
#include "io/file.hpp"
#include "mpi/collective.hpp"
#include "store/rank_meta.hpp"
#include "store/retirement.hpp"
#include "store/shared_l4.hpp"

namespace mlckpt::core {

namespace {

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The id of kept checkpoints whose metadata is damaged: which files in
// FTI's layout were theirs is unknown, so all of their level's are kept.
constexpr int kUnknownId = -1;

bool is_temporary(const std::string& name) {
    return name.find(".tmp") != std::string::npos || name.front() == '.';
}

// Removes what lies in `dir`, the directory of `level` checkpoints, that no
// checkpoint of `keep` owns: a directory ckpt<seq> of a checkpoint not
// kept, a file in FTI's layout whose id no kept checkpoint there has, and
// temporary and hidden files (a copy a crash interrupted, a retired file
// not yet removed).
void remove_uncommitted(const Context& ctx, const Catalog& keep, const fs::path& dir, int level) {
    auto kept_in_level_dir = [&](int id) {
        return std::any_of(keep.refs().begin(), keep.refs().end(), [&](const CheckpointRef& r) {
            return r.level == level && !r.own_dir && (r.ckpt_id == id || r.ckpt_id == kUnknownId);
        });
    };
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::uint64_t seq = 0;
        int id = 0;
        if (parse_own_dir_name(name, seq) && keep.contains(seq, level)) continue;
        if (parse_file_name_id(name, id) && !is_temporary(name) && kept_in_level_dir(id)) continue;
        ctx.log.debug("removing uncommitted checkpoint data " + it->path().string());
        remove_tree(it->path());
    }
}

// Removes the metadata copies in `dir` of checkpoints `keep` does not have.
void remove_unkept_meta_copies(const Catalog& keep, const fs::path& dir) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        std::uint64_t seq = 0;
        int level = 0;
        if (parse_meta_file_name(it->path().filename().string(), seq, level) && keep.contains(seq, level)) {
            continue;
        }
        remove_file(it->path());
    }
}

// Rank 0: only the newest L4 differential checkpoint describes the shared
// files (older ones were overwritten in place; their metadata outlives them
// only if a crash came between the commit and the retirement).
void drop_superseded_dcp_metadata(const Context& ctx, Catalog& found) {
    const CheckpointRef* newest = nullptr;
    for (const CheckpointRef& r : found.refs()) {
        if (is_differential(r.level) && (newest == nullptr || r.seq > newest->seq)) newest = &r;
    }
    if (newest == nullptr) return;
    std::vector<CheckpointRef> stale;
    for (const CheckpointRef& r : found.refs()) {
        if (is_differential(r.level) && r.seq < newest->seq) stale.push_back(r);
    }
    for (const CheckpointRef& r : stale) {
        remove_metadata(ctx, r);
        found.remove(r);
    }
}

}  // namespace

namespace {

// settle_dcp_journal for `file`, this rank's L4 differential file under one of its names.
void settle_journal_of(const Context& ctx, const fs::path& file, bool keep_unknown) {
    const fs::path journal = fs::path(file) += ".journal";
    std::error_code ec;
    if (!fs::exists(journal, ec)) return;
    std::optional<std::uint64_t> seq = redo_journal_seq(journal);
    if (!seq || !ctx.catalog.contains(*seq, kDcpLevel)) {
        if (!keep_unknown) remove_file(journal);  // an update never committed: the file was never touched
        return;
    }
    ctx.log.warning("completing the update of the L4 differential file '" + file.string() +
                    "' from its journal (checkpoint " + std::to_string(*seq) + " was committed before it was applied)");
    roll_forward(ctx.layout.make_dir(file.parent_path()), journal.filename().string(), file.filename().string());
}

}  // namespace

void settle_dcp_journal(const Context& ctx, bool keep_unknown, bool any_names) {
    if (!any_names) return settle_journal_of(ctx, ctx.layout.dcp_files(ctx.rank()).front(), keep_unknown);
    // A journal lies beside the file it updates: only that of the committed
    // checkpoint's file can be committed, whatever its names.
    for (const fs::path& file : ctx.layout.dcp_files(ctx.rank())) settle_journal_of(ctx, file, keep_unknown);
}

namespace {

// Rank 0, after the commit: a copy of the metadata beside the data, in its
// own checkpoint directory, from which a restart that finds the metadata
// directory lost restores it (restore_lost_metadata). It is not synced: it
// is insurance, and its checksum shows a copy a crash left torn.
void write_meta_copy(const Context& ctx, const CheckpointRef& ref, const std::string& text) {
    const fs::path copy = ctx.layout.meta_copy(ref.level, ref.seq, ctx.topo.node_id);
    try {
        atomic_write_file(ctx.layout.make_dir(copy.parent_path()), copy.filename().string(), text, false);
    } catch (const Error& e) {
        ctx.log.warning(std::string("no copy of the metadata beside the data (a restart that loses meta_dir "
                                    "cannot restore it): ") +
                        e.what());
    }
}

// Rank 0, right after the first commit: the configuration file now says that
// relaunching restarts. Done before any rank returns from the checkpoint.
void record_restart(const Context& ctx) {
    if (ctx.restart_recorded) return;
    try {
        write_restart_state(ctx.config.path, 1, ctx.layout.exec_id());
    } catch (const Error& e) {
        ctx.log.warning(std::string("the checkpoint is committed, but relaunching will not restart "
                                    "automatically: ") +
                        e.what());
    }
}

}  // namespace

void commit_metadata(const Context& ctx, MPI_Comm comm, const CheckpointRef& ref, const std::vector<FileRecord>& mine,
                     IoMode io, const CheckpointMeta* dataset) {
    std::string text;
    for (const FileRecord& r : mine) text += serialize_file_record(r);
    std::vector<std::string> records = gather_strings(comm, text, 0);
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    run_collectively(comm, [&] {
        if (rank != 0) return;
        CheckpointMeta meta;
        meta.exec_id = ctx.layout.exec_id();
        meta.ckpt_id = ref.ckpt_id;
        meta.seq = ref.seq;
        meta.level = ref.level;
        meta.own_dir = ref.own_dir;
        meta.io = io;
        meta.ranks = ctx.topo.app_size;
        meta.node_size = ctx.config.node_size;
        meta.group_size = ctx.config.group_size;
        meta.set_failures = ctx.levels[ref.level].redundancy.set_failures;
        meta.time_ns = now_ns();
        meta.complete = true;
        if (dataset != nullptr) {
            meta.name = dataset->name;
            meta.flags = dataset->flags;
            meta.valid = dataset->valid;
        }
        for (std::size_t r = 0; r < records.size(); ++r) {
            for (FileRecord& f : parse_file_records(records[r], "records of rank " + std::to_string(r))) {
                (f.type == "FULL" ? meta.files : meta.redundancy).push_back(std::move(f));
            }
        }
        std::stable_sort(meta.files.begin(), meta.files.end(),
                         [](const FileRecord& a, const FileRecord& b) { return a.rank < b.rank; });
        std::sort(meta.redundancy.begin(), meta.redundancy.end(),
                  [](const FileRecord& a, const FileRecord& b) { return a.holder < b.holder; });
        fault_point("before_meta_commit", 0, ref.seq);
        const Directory dir = ctx.layout.make_dir(ctx.layout.meta_exec_dir());
        const std::string serialized = serialize_meta(meta);
        atomic_write_file(dir, ctx.layout.meta_file(ref.level, ref.seq).filename().string(), serialized);
        write_meta_copy(ctx, ref, serialized);
        record_restart(ctx);
    });
}

void publish(Context& ctx, const CheckpointRef& ref, const std::vector<FileRecord>& mine, IoMode io,
             const CheckpointMeta* dataset) {
    commit_metadata(ctx, ctx.app, ref, mine, io, dataset);
    ctx.catalog.add(ref);
    ctx.restart_recorded = true;
}

void copy_verified(const fs::path& source, const Directory& dir, const FileRecord& record, std::size_t buffer_bytes) {
    const std::string target = source.filename().string();
    const std::string tmp = target + ".tmp";
    try {
        File in = File::open_read(source);
        File out = File::create(dir, tmp);
        std::uint64_t size = in.size();
        if (size != record.size) {
            fail(ErrorKind::corrupt, "cannot copy '" + source.string() + "': it has " + std::to_string(size) +
                                         " bytes, its metadata says " + std::to_string(record.size));
        }
        PooledBuffer buffer = take_buffer(buffer_bytes);
        Crc32 crc;
        read_in_pieces(in, 0, size, std::span(buffer.data(), buffer.size()), [&](std::span<const std::byte> piece) {
            crc.update(piece);
            out.write_all(piece);
        });
        if (crc.value() != record.crc32) {
            fail(Damage::checksum, "cannot copy '" + source.string() + "': it fails its checksum");
        }
        out.sync();
        out.close();
        dir.rename(tmp, target);
        dir.sync();
    } catch (...) {
        dir.remove(tmp);
        throw;
    }
}

FileRecord copy_for_level(const Context& ctx, const fs::path& source, const Directory& dir, const FileRecord& record,
                          IoMode io, int from_level, int to_level) {
    const Codec codec = ctx.levels[to_level].codec;
    if (io != IoMode::posix || codec == ctx.levels[from_level].codec) {
        copy_verified(source, dir, record, ctx.io_buffer_bytes());
        return record;
    }
    Packing packing;
    packing.codec = codec;
    packing.block_bytes = static_cast<std::size_t>(ctx.config.compression_block_kb) << 10;
    return repack_posix_file(source, record, dir, packing, ctx.io_buffer_bytes());
}

CheckpointMeta read_meta(const Context& ctx, const CheckpointRef& ref) {
    const fs::path path = ctx.layout.meta_file(ref.level, ref.seq);
    return parse_meta(read_text_file(path), path.string());
}

CheckpointRef flush_to_l4(Context& ctx, const CheckpointRef& ref) {
    CheckpointRef target{ref.seq, kL4, ref.ckpt_id, ref.own_dir};
    const CheckpointMeta meta = distribute_meta(ctx, ref, MetaScope::own).meta;
    FileRecord mine = meta.file_of(ctx.rank());
    fs::path source = ctx.layout.ckpt_dir(ref, mine.node) / mine.file;
    // Per-rank files go into the shared file of ckpt_io 2 or 4; files of
    // another format (written by an earlier run) are copied as they are.
    const IoMode shared = ctx.levels[kL4].format;
    const IoMode io = meta.io == IoMode::posix && is_shared(shared) ? shared : meta.io;
    fs::path copy;
    try {
        if (is_shared(io)) {
            mine = flush_into_shared_file(ctx, ctx.app, target, {{mine, source}}).front();
        } else {
            run_collectively(ctx.app, [&] {
                const Directory dir = ctx.layout.make_dir(ctx.layout.ckpt_dir(target, 0));
                mine = copy_for_level(ctx, source, dir, mine, io, ref.level, kL4);
                copy = dir.path_of(mine.file);
            });
        }
        mine.node = ctx.topo.node_id;
        mine.holder = ctx.rank();
        publish(ctx, target, {mine}, io);
    } catch (...) {
        if (!copy.empty()) target.own_dir ? remove_file_and_empty_dir(copy) : (void)remove_file(copy);
        if (is_shared(io)) remove_shared_l4_files(ctx.layout, target, ctx.config.container_files);
        throw;
    }
    ctx.log.info("Checkpoint " + std::to_string(ref.ckpt_id) + " flushed to L4.");
    return target;
}

std::set<VisibleCheckpoint> visible_checkpoints(const Context& ctx, std::initializer_list<int> levels) {
    std::set<VisibleCheckpoint> out;
    for (int level : levels) {
        std::error_code ec;
        const fs::path dir = ctx.layout.level_dir(level, ctx.topo.node_id);
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string name = it->path().filename().string();
            std::uint64_t seq = 0;
            int id = 0;
            if (parse_own_dir_name(name, seq)) {
                out.insert({level, true, seq, -1});
            } else if (parse_file_name_id(name, id) && !is_temporary(name)) {
                out.insert({level, false, 0, id});
            }
        }
    }
    return out;
}

std::map<VisibleCheckpoint, int> gather_visible_checkpoints(const Context& ctx,
                                                            const std::set<VisibleCheckpoint>& mine) {
    std::ostringstream text;
    for (const VisibleCheckpoint& v : mine)
        text << v.level << ' ' << v.own_dir << ' ' << v.seq << ' ' << v.ckpt_id << '\n';
    std::map<VisibleCheckpoint, int> seen;
    for (const std::string& part : gather_strings(ctx.app, text.str(), 0)) {
        std::istringstream in(part);
        for (VisibleCheckpoint v; in >> v.level >> v.own_dir >> v.seq >> v.ckpt_id;) ++seen[v];
    }
    return seen;
}

namespace {

// Collective. With the restart requested but no metadata left (its
// directory deleted by a script, a purge or a mistake), nothing proves that
// any checkpoint data failed or was superseded: it is all kept, the catalog
// numbers new checkpoints after it, and the report of a restart that finds
// nothing says where it is and what to do with it.
void keep_data_without_metadata(Context& ctx) {
    std::set<VisibleCheckpoint> mine;
    if (ctx.topo.node_index == 0) mine = visible_checkpoints(ctx, {1, 2, 3});
    if (ctx.rank() == 0) {
        mine.merge(visible_checkpoints(ctx, {4}));
        std::error_code ec;
        for (const fs::path& dir : ctx.layout.dcp_dirs()) {
            if (fs::exists(dir, ec)) mine.insert({kDcpLevel, false, 0, -1});
        }
    }
    const std::map<VisibleCheckpoint, int> nodes = gather_visible_checkpoints(ctx, mine);  // -> nodes holding it
    std::string summary;
    std::uint64_t highest = 0;
    if (ctx.rank() == 0) {
        std::vector<std::string> parts;
        for (const auto& [found, count] : nodes) {
            highest = std::max(highest, found.seq);
            const CheckpointRef ref{found.seq, found.level, found.ckpt_id, found.own_dir};
            const std::string where = found.own_dir ? ctx.layout.ckpt_dir(ref, ctx.topo.node_id).string()
                                                    : (ctx.layout.level_dir(found.level, ctx.topo.node_id) /
                                                       ("Ckpt" + std::to_string(found.ckpt_id) + "-*"))
                                                          .string();
            const std::string which =
                found.own_dir ? "ckpt" + std::to_string(found.seq) : "checkpoint " + std::to_string(found.ckpt_id);
            if (is_differential(found.level)) {
                std::string dirs;
                for (const fs::path& dir : ctx.layout.dcp_dirs()) {
                    std::error_code ec;
                    if (fs::exists(dir, ec)) dirs += (dirs.empty() ? "'" : "' and '") + dir.string();
                }
                parts.push_back("L4 differential files in " + dirs + "'");
            } else if (is_global(found.level)) {
                parts.push_back(level_name(found.level) + " " + which + " ('" + where + "')");
            } else {
                parts.push_back(level_name(found.level) + " " + which + " on " +
                                plural(static_cast<std::size_t>(count), "node") + " ('" + where + "' and the like)");
            }
        }
        if (!parts.empty()) {
            summary = "its metadata is missing, but checkpoint data of this execution was found and left in place: ";
            for (std::size_t i = 0; i < parts.size(); ++i) summary += (i == 0 ? "" : ", ") + parts[i];
            summary += ". To restart from it, restore '" + ctx.layout.meta_exec_dir().string() +
                       "' and relaunch; to start afresh, remove that data and set [restart] failure = 0 in " +
                       ctx.config.path;
        }
    }
    summary = bcast_string(ctx.app, summary, 0);
    bcast(&highest, 1, MPI_UINT64_T, 0, ctx.app, "the highest checkpoint sequence number");
    if (!summary.empty()) ctx.catalog.keep_unrecorded(highest, summary);
}

// Rank 0: restores the metadata of checkpoint (seq, level) from its copy
// beside the data, if that verifies and belongs to this checkpoint and
// execution, and adds it to `found`. `what` says what became of the
// metadata ("was missing", "was damaged").
bool restore_from_copy(const Context& ctx, std::uint64_t seq, int level, Catalog& found, const std::string& what) {
    const fs::path copy = ctx.layout.meta_copy(level, seq, ctx.topo.node_id);
    std::error_code ec;
    if (!fs::exists(copy, ec)) return false;
    try {
        const std::string text = read_text_file(copy);
        CheckpointMeta meta = parse_meta(text, copy.string());
        if (!meta.complete || meta.seq != seq || meta.level != level || meta.exec_id != ctx.layout.exec_id()) {
            ctx.log.warning("not restoring metadata from '" + copy.string() +
                            "': incomplete, or not that of this checkpoint and execution");
            return false;
        }
        atomic_write_file(ctx.layout.make_dir(ctx.layout.meta_exec_dir()),
                          ctx.layout.meta_file(level, seq).filename().string(), text);
        found.add({seq, level, meta.ckpt_id, meta.own_dir});
        ctx.log.warning("the metadata of checkpoint " + std::to_string(meta.ckpt_id) + " (seq " + std::to_string(seq) +
                        ") " + what + " in '" + ctx.layout.meta_exec_dir().string() + "': restored from its copy '" +
                        copy.string() + "'");
        return true;
    } catch (const Error& e) {
        ctx.log.warning(std::string("not restoring metadata from its copy: ") + e.what());
        return false;
    }
}

// Rank 0, when a restart finds no metadata of its execution: restores what
// the copies beside the data hold (write_meta_copy).
void restore_lost_metadata(const Context& ctx, Catalog& found) {
    std::set<std::pair<std::uint64_t, int>> candidates;
    for (const int level : {kL1, kL4}) {  // the node's copies (L1-L3), the global ones (L4, L4 differential)
        std::error_code ec;
        const fs::path dir = ctx.layout.meta_copy_dir(level, ctx.topo.node_id);
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            std::uint64_t seq = 0;
            int copied = 0;
            if (parse_meta_file_name(it->path().filename().string(), seq, copied)) {
                candidates.emplace(seq, copied);
            }
        }
    }
    for (const auto& [seq, level] : candidates) restore_from_copy(ctx, seq, level, found, "was missing");
}

// Rank 0, when L4 differential checkpoint `meta` is the one kept: removes
// the L4 differential files (and their journals) that it does not name, under
// any of their names (DcpNames), with what a retirement left hidden. They
// are those of a chain it replaced: of another ckpt_io or of an earlier
// version (a crash came before their retirement), or of ranks since named
// otherwise.
void remove_unnamed_dcp_files(const Context& ctx, const CheckpointMeta& meta) {
    const CheckpointRef ref{meta.seq, meta.level, meta.ckpt_id, meta.own_dir};
    const fs::path dir = ctx.layout.for_checkpoint(meta).ckpt_dir(ref, 0);
    std::set<std::string> named;
    for (const FileRecord& r : meta.files) named.insert(r.file);
    for (const fs::path& d : ctx.layout.dcp_dirs()) {
        std::error_code ec;
        const bool holds_them = fs::equivalent(d, dir, ec);  // also another's name where case does not count
        std::vector<fs::path> unnamed;
        for (fs::directory_iterator it(d, ec), end; !ec && it != end; it.increment(ec)) {
            std::string name = it->path().filename().string();
            if (name.front() == '.') {
                unnamed.push_back(it->path());
                continue;
            }
            constexpr std::string_view kJournal = ".journal";
            if (name.ends_with(kJournal)) name.resize(name.size() - kJournal.size());
            int rank = 0;
            DcpNames names{};
            if (parse_dcp_file_name(name, rank, names) && !(holds_them && named.contains(name))) {
                unnamed.push_back(it->path());
            }
        }
        for (const fs::path& p : unnamed) {
            ctx.log.debug("removing L4 differential data no checkpoint names " + p.string());
            remove_tree(p);
        }
        fs::remove(d, ec);  // only if empty
    }
}

}  // namespace

bool restores_metadata_from_copy(MetaFound found, bool none_left, bool restarting) {
    switch (found) {
        case MetaFound::damaged:
            return true;
        case MetaFound::missing:
            return none_left && restarting;
        case MetaFound::intact:
        case MetaFound::inconsistent:
            break;
    }
    return false;
}

void load_catalog_and_clean(Context& ctx, bool restarting) {
    std::string text;
    std::string damaged_text;
    int lost = 0;                              // a restart whose metadata directory holds nothing
    std::optional<CheckpointMeta> newest_dcp;  // rank 0: the metadata of the newest L4 differential checkpoint
    if (ctx.rank() == 0) {
        Catalog found;
        Catalog damaged;  // metadata present but unreadable: its data is kept, not trusted
        std::error_code ec;
        fs::path dir = ctx.layout.meta_exec_dir();
        if (fs::is_directory(dir, ec)) {
            for (const auto& entry : fs::directory_iterator(dir, ec)) {
                std::string name = entry.path().filename().string();
                std::uint64_t seq = 0;
                int level = 0;
                if (name.find(".tmp.") != std::string::npos) {
                    remove_file(entry.path());
                    continue;
                }
                if (!parse_meta_file_name(name, seq, level)) continue;
                try {
                    CheckpointMeta meta = parse_meta(read_text_file(entry.path()), entry.path().string());
                    if (!meta.complete || meta.seq != seq || meta.level != level) {
                        ctx.log.warning("ignoring " + entry.path().string() +
                                        ": incomplete or inconsistent with its name");
                        continue;
                    }
                    found.add({seq, level, meta.ckpt_id, meta.own_dir});
                    if (is_differential(level) && (!newest_dcp || newest_dcp->seq < seq)) newest_dcp = std::move(meta);
                } catch (const Error& e) {
                    if (restores_metadata_from_copy(MetaFound::damaged, false, restarting) &&
                        restore_from_copy(ctx, seq, level, found, "was damaged (" + std::string(e.what()) + ")")) {
                        continue;
                    }
                    ctx.log.warning(std::string("ignoring damaged metadata (its data is left in place): ") + e.what());
                    damaged.add({seq, level, kUnknownId, false});
                }
            }
        }
        if (restores_metadata_from_copy(MetaFound::missing, found.empty() && damaged.empty(), restarting)) {
            lost = 1;
            restore_lost_metadata(ctx, found);
        }
        drop_superseded_dcp_metadata(ctx, found);
        text = found.serialize();
        damaged_text = damaged.serialize();
    }
    ctx.catalog = Catalog::parse(bcast_string(ctx.app, text, 0));
    bcast(&lost, 1, MPI_INT, 0, ctx.app, "whether metadata was lost");
    Catalog keep = Catalog::parse(bcast_string(ctx.app, damaged_text, 0));
    for (const CheckpointRef& r : ctx.catalog.refs()) keep.add(r);

    // A restart whose metadata is all gone cannot tell failed checkpoints
    // from committed ones, even when copies restored some of it: it deletes
    // nothing. (FTI-FF files may still be recoverable on their own,
    // recovery/ftiff_scan.hpp.) Otherwise data that no metadata names
    // belongs to a checkpoint that never committed (metadata is written
    // last) or was retired (metadata is removed first).
    const bool keep_all = lost != 0;
    if (keep_all) {
        keep_data_without_metadata(ctx);
    } else {
        // One rank per node cleans that node's storage; rank 0 the global one.
        if (ctx.topo.node_index == 0) {
            for (int level : kNodeLocalLevels) {
                remove_uncommitted(ctx, keep, ctx.layout.level_dir(level, ctx.topo.node_id), level);
            }
            remove_unkept_meta_copies(keep, ctx.layout.meta_copy_dir(kL1, ctx.topo.node_id));
        }
        if (ctx.rank() == 0) {
            remove_uncommitted(ctx, keep, ctx.layout.level_dir(kL4, 0), kL4);
            remove_unkept_meta_copies(keep, ctx.layout.meta_copy_dir(kL4, 0));
        }
    }
    try {
        // After lost metadata, only an update whose metadata was restored is known to have committed.
        settle_dcp_journal(ctx, keep_all, true);
    } catch (const Error& e) {
        // The file then fails its recorded size and CRC, and the restart falls back to an older checkpoint.
        ctx.log.warning(std::string("cannot complete the update of the L4 differential file: ") + e.what());
    }
    barrier(ctx.app);
    std::vector<CheckpointRef> dcp_kept;
    std::copy_if(keep.refs().begin(), keep.refs().end(), std::back_inserter(dcp_kept),
                 [](const CheckpointRef& r) { return is_differential(r.level); });
    if (ctx.rank() == 0 && !keep_all) {
        if (dcp_kept.empty()) {
            for (const fs::path& dir : ctx.layout.dcp_dirs()) remove_tree(dir);
        } else if (dcp_kept.size() == 1 && newest_dcp && newest_dcp->seq == dcp_kept.front().seq) {
            remove_unnamed_dcp_files(ctx, *newest_dcp);
        }
    }
    ctx.run_first_seq = ctx.catalog.next_seq();
    barrier(ctx.app);
}

}  // namespace mlckpt::core
