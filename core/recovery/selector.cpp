#include "recovery/selector.hpp"

#include <algorithm>

#include "format/checkpoint_reader.hpp"
#include "format/dcp/dcp_layers.hpp"
#include "io/file.hpp"
#include "levels/redundancy.hpp"
#include "mpi/collective.hpp"
#include "recovery/ftiff_scan.hpp"
#include "recovery/restart_rules.hpp"
#include "store/checkpoint_store.hpp"
#include "store/rank_meta.hpp"

namespace mlckpt::core {

namespace {

std::string describe(const CheckpointRef& r) {
    return "checkpoint " + std::to_string(r.ckpt_id) + " (" + level_name(r.level) + ", seq " + std::to_string(r.seq) +
           ")";
}

// Checks that apply to the whole checkpoint, made by rank 0 for every rank.
void check_fits_run(const Context& ctx, const CheckpointMeta& meta) {
    const RunShape run{ctx.topo.app_size, ctx.config.node_size, ctx.config.group_size, ctx.topo.groups_valid};
    if (std::optional<std::string> why = misfit(meta, run)) fail(ErrorKind::not_recoverable, *why);
}

// Checks one file, whole or (`whole` false) without reading its data;
// returns "" when it is sound, else why not.
std::string problem_with(const fs::path& path, const FileRecord* record, IoMode io, std::size_t buffer, bool whole) {
    if (record == nullptr || !record->complete) return "no complete record in the metadata";
    try {
        if (whole) {
            verify_checkpoint_file(path, *record, io, buffer);
        } else {
            open_checkpoint_reader(path, record->type == "PARITY" ? IoMode::posix : io,
                                   *record);  // parity is raw bytes
        }
        return {};
    } catch (const Error& e) {
        return e.what();
    }
}

// This rank's part of a candidate. Per-rank problems never skip the group
// steps that follow, so no member is left waiting.
}  // namespace

RecoverySource own_recovery_source(const Context& ctx, const CheckpointMeta& meta, const CheckpointRef& ref) {
    const FileRecord& rec = meta.file_of(ctx.rank());
    // L1 and L4 files are found where the metadata says they were written;
    // L2 and L3 need the same groups, hence the same nodes. An L4
    // differential file's directory goes with its name (DcpNames).
    const bool own = rec.rank == ctx.rank() && !has_group_redundancy(ref.level);
    fs::path path;
    if (own && is_differential(ref.level)) {
        path = ctx.layout.for_checkpoint(meta).ckpt_dir(ref, rec.node) / rec.file;
    } else if (own) {
        path = ctx.layout.ckpt_dir(ref, rec.node) / rec.file;
    } else {
        path = ctx.layout.for_checkpoint(meta).data_file(ref, ctx.rank(), ctx.topo.node_id);
    }
    return {ref, meta.io, rec, path, std::nullopt, false};
}

namespace {

// A layered L4 differential file (ckpt_io = 1): every layer is checked, and
// the checkpoint recovered is that of the newest layer intact on every rank
// (with every layer before it), as FTI's POSIX dCP falls back. Collective.
RecoverySource check_dcp_layers(Context& ctx, RecoverySource source) {
    const std::vector<DcpLayer>& layers = source.record.layers;
    std::string why;
    const std::optional<std::size_t> newest = newest_intact_dcp_layer(source.path, layers, ctx.io_buffer_bytes(), why);
    const std::uint64_t mine = newest ? layers[*newest].seq : 0;
    std::uint64_t agreed = 0;
    allreduce(&mine, &agreed, 1, MPI_UINT64_T, MPI_MIN, ctx.app,
              "the newest L4 differential layer intact on every rank");
    if (!why.empty()) ctx.log.warning(why);
    if (agreed == 0) {
        fail(ErrorKind::corrupt, newest ? "no layer of the L4 differential files is intact on every rank"
                                        : "no intact layer in '" + source.path.string() + "': " + why);
    }
    auto it = std::find_if(layers.begin(), layers.end(), [&](const DcpLayer& l) { return l.seq == agreed; });
    if (it == layers.end()) {
        fail(ErrorKind::corrupt, "'" + source.path.string() + "' has no layer of checkpoint seq " +
                                     std::to_string(agreed) + ", which the other ranks fall back to");
    }
    const auto index = static_cast<std::size_t>(it - layers.begin());
    const DcpLayer chosen = *it;  // `layers` goes with the record replaced below
    if (index + 1 < layers.size()) {
        if (ctx.rank() == 0) {
            ctx.log.warning("the newest layer of the L4 differential files (checkpoint " +
                            std::to_string(layers.back().ckpt_id) +
                            ") is not intact on every rank: falling back to checkpoint " +
                            std::to_string(chosen.ckpt_id) + ", the newest layer intact on all");
        }
        source.record = dcp_record_at_layer(source.path, source.record, index);
        source.ref.ckpt_id = chosen.ckpt_id;
    }
    source.data_verified = true;  // every byte of every layer it needs was checked
    return source;
}

RecoverySource check_candidate(Context& ctx, const CheckpointRef& ref, const RankMeta& part, Verification check) {
    const CheckpointMeta& meta = part.meta;
    RecoverySource source = own_recovery_source(ctx, meta, ref);
    const FileRecord* own = source.record.rank == ctx.rank() ? &source.record : nullptr;
    const int node = ctx.topo.node_id;
    const Redundancy* redundancy = redundancy_of(meta);
    const bool grouped = redundancy != nullptr;
    Holdings mine;
    const bool whole = check == Verification::whole;
    if (is_differential(ref.level) && !source.record.layers.empty()) return check_dcp_layers(ctx, std::move(source));
    std::string data_problem = problem_with(source.path, own, meta.io, ctx.io_buffer_bytes(), whole);
    mine.data_ok = data_problem.empty();
    source.data_verified = whole;
    if (grouped) {
        // The group rebuilds what is lost or fails its checks. Verified
        // whole, the redundancy kept is read too (as FTI_Init does), so that
        // damage to it is rebuilt now rather than found when it is needed.
        // Named as the run that wrote the checkpoint named them.
        const StorageLayout layout = ctx.layout.for_checkpoint(meta);
        RedundancyIo io = ctx.redundancy_io();
        io.layout = &layout;
        std::string red_problem =
            problem_with(layout.redundancy_file(ref, ctx.rank(), node), meta.redundancy_held_by(ctx.rank()), meta.io,
                         ctx.io_buffer_bytes(), whole);
        mine.redundancy_ok = red_problem.empty();
        if (!whole) {
            // A rebuild reads the group's sound files: when the group has
            // lost anything, every member verifies its data whole first, so
            // that damage not seen yet is never used as a source.
            std::vector<Holdings> held = gather_holdings(own_member(ctx.topo, ctx.group), mine);
            bool lost =
                std::any_of(held.begin(), held.end(), [](const Holdings& h) { return !h.data_ok || !h.redundancy_ok; });
            if (lost && mine.data_ok) {
                data_problem = problem_with(source.path, own, meta.io, ctx.io_buffer_bytes(), true);
                mine.data_ok = data_problem.empty();
            }
        }
        if (!mine.data_ok) ctx.log.warning("rebuilding lost data: " + data_problem);
        if (!mine.redundancy_ok) ctx.log.warning("rebuilding lost redundancy: " + red_problem);
        const GroupMember self = own_member(ctx.topo, ctx.group);
        source.redundancy = redundancy->repair(io, self, meta, ref, mine);
        source.redundancy_unrecorded = !part.redundancy_recorded;
        return source;
    }
    if (!mine.data_ok) fail(ErrorKind::corrupt, data_problem);
    return source;
}

// The restart falls back to an older layer of the L4 differential files:
// the metadata now describes it (with its id, as FTI then reports it), and
// the files lose what lies past it, where the next dCP checkpoint appends.
// Collective.
void fall_back_to_layer(Context& ctx, const CheckpointRef& ref, const RecoverySource& source) {
    commit_metadata(ctx, ctx.app, source.ref, {source.record}, source.io);
    ctx.catalog.remove(ref);
    ctx.catalog.add(source.ref);
    try {
        File::open_update(source.path).resize(source.record.size);
    } catch (const Error& e) {
        ctx.log.warning(e.what());  // the next dCP checkpoint cuts it off
    }
}

// Tries one candidate collectively: fills result.source, or adds why not to
// result.report.
bool try_candidate(Context& ctx, const CheckpointRef& ref, Verification check, Selection& result) {
    RecoverySource source;
    try {
        const RankMeta part = distribute_meta(ctx, ref, MetaScope::group,
                                              [&](const CheckpointMeta& whole) { check_fits_run(ctx, whole); });
        run_collectively(ctx.app, [&] { source = check_candidate(ctx, ref, part, check); });
        if (source.redundancy_unrecorded) {
            // Rebuilt at this restart: record it, so a later failure can use it.
            commit_metadata(ctx, ctx.app, ref, {source.record, *source.redundancy}, source.io);
        }
        if (is_differential(source.ref.level) && !source.record.layers.empty() &&
            source.record.layers.size() != part.meta.file_of(ctx.rank()).layers.size()) {
            fall_back_to_layer(ctx, ref, source);
        }
        ctx.log.info("Restarting from " + describe(source.ref) + ".");
        result.source = std::move(source);
        return true;
    } catch (const Error& e) {
        std::string reason = describe(ref) + ": " + e.what();
        if (!e.remote()) ctx.log.warning("cannot recover from " + reason);
        result.report += (result.report.empty() ? "" : "; ") + reason;
        return false;
    }
}

}  // namespace

Selection select_checkpoint(Context& ctx, Verification verification, const std::optional<CheckpointRef>& after) {
    std::vector<CheckpointRef> candidates = ctx.catalog.refs();
    std::sort(candidates.begin(), candidates.end(), tried_before);
    if (after) {
        std::erase_if(candidates, [&](const CheckpointRef& r) { return !tried_before(*after, r); });
    }

    Selection result;
    for (const CheckpointRef& ref : candidates) {
        if (try_candidate(ctx, ref, verification, result)) return result;
    }
    if (candidates.empty() && after) {
        result.report = "no older committed checkpoint";
    } else if (candidates.empty()) {
        result.report = "no committed checkpoint of execution '" + ctx.layout.exec_id() + "' in '" +
                        ctx.layout.meta_exec_dir().string() + "'";
        if (ctx.config.ckpt_io == IoMode::ftiff) {
            std::string scanned;
            result.source = scan_self_describing_checkpoints(ctx, scanned);
            if (!scanned.empty()) result.report += ", and no recoverable FTI-FF files: " + scanned;
        }
        if (!result.source && !ctx.catalog.unrecorded_data().empty()) {
            result.report += "; " + ctx.catalog.unrecorded_data();
        }
    } else {
        result.report = "no recoverable checkpoint of execution '" + ctx.layout.exec_id() + "': " + result.report;
    }
    return result;
}

Selection repair_checkpoint(Context& ctx, const CheckpointRef& failed) {
    Selection again;
    if (try_candidate(ctx, failed, Verification::whole, again)) return again;
    Selection older = select_checkpoint(ctx, Verification::structure, failed);
    older.report = again.report + "; " + older.report;
    return older;
}

}  // namespace mlckpt::core
