#include "scr/dataset_restart.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "levels/redundancy.hpp"
#include "mpi/collective.hpp"
#include "scr/routed_files.hpp"

namespace mlckpt::core {

namespace {

// Collective over the group. The metadata the level's repair reads: one
// stream per member of the group (its files in record order) instead of
// its files, and the parity named as the level names it. Each member knows
// its own files only (store/rank_meta.hpp): they exchange their streams.
CheckpointMeta stream_view(const Context& ctx, const DatasetInfo& copy) {
    CheckpointMeta view = copy.meta;
    view.files.clear();
    const std::string name = ctx.layout.data_file(copy.ref, ctx.rank(), 0).filename().string();
    const FileRecord own = stream_record(copy.meta.files_of_rank(ctx.rank()), ctx.rank(), 0, name);
    for (const std::string& text : allgather_strings(ctx.group, serialize_file_record(own))) {
        view.files.push_back(parse_file_record(text, "a group member's stream"));
    }
    std::sort(view.files.begin(), view.files.end(),
              [](const FileRecord& a, const FileRecord& b) { return a.rank < b.rank; });
    for (FileRecord& f : view.redundancy) {
        if (f.type == "XOR") f.type = "PARITY";
    }
    return view;
}

// Collective over the group: rebuilds the files the group lost from what
// the others hold. `data_ok`: this rank's files all verified.
void repair_group(Context& ctx, const DatasetInfo& copy, bool data_ok, bool redundancy_ok) {
    const Redundancy* redundancy = redundancy_of(copy.meta);
    const GroupMember member = own_member(ctx.topo, ctx.group);
    const std::vector<FileRecord> mine = copy.meta.files_of_rank(ctx.rank());
    const fs::path stream = ctx.layout.data_file(copy.ref, ctx.rank(), ctx.topo.node_id);
    const Directory dir = ctx.layout.make_dir(stream.parent_path());
    const Directory own_dir = ctx.layout.make_dir(ctx.layout.routed_dir(copy.ref, ctx.rank(), ctx.topo.node_id));
    const std::string stream_name = stream.filename().string();
    std::exception_ptr failure;
    try {
        if (data_ok) {
            std::vector<fs::path> sources;
            for (const FileRecord& f : mine) sources.push_back(own_dir.path_of(f.file));
            write_stream_file(sources, dir, stream_name, ctx.io_buffer_bytes());
        } else {
            dir.remove(stream_name);
        }
    } catch (...) {
        failure = std::current_exception();
    }
    agree(ctx.group, failure);
    try {
        Holdings held{data_ok, redundancy_ok};
        redundancy->repair(ctx.redundancy_io(), member, stream_view(ctx, copy), copy.ref, held);
        if (!data_ok) split_stream_file(stream, mine, own_dir, ctx.io_buffer_bytes());
    } catch (...) {
        dir.remove(stream_name);
        throw;
    }
    dir.remove(stream_name);
}

}  // namespace

fs::path dataset_file_path(const Context& ctx, const DatasetInfo& copy, const FileRecord& record) {
    if (is_global(copy.ref.level)) return fs::path(record.origpath) / record.origname;
    return ctx.layout.routed_dir(copy.ref, record.rank, ctx.topo.node_id) / record.file;
}

std::optional<LoadedDataset> load_dataset(Context& ctx, const DatasetInfo& copy, std::string& problem) {
    const std::string what = "dataset '" + copy.meta.name + "' (L" + std::to_string(copy.ref.level) + ")";
    if (copy.meta.ranks != ctx.topo.app_size) {
        problem = what + ": written by " + std::to_string(copy.meta.ranks) + " ranks, this run has " +
                  std::to_string(ctx.topo.app_size);
        return std::nullopt;
    }
    // This rank's files, then its share of the redundancy.
    LoadedDataset loaded{copy, {}};
    std::string mine;
    for (const FileRecord& f : copy.meta.files_of_rank(ctx.rank())) {
        const fs::path path = dataset_file_path(ctx, copy, f);
        if (auto p = check_routed_file(path, f, ctx.io_buffer_bytes())) mine += (mine.empty() ? "" : "; ") + *p;
        loaded.files.emplace_back(f, path);
    }
    bool redundancy_ok = true;
    const bool grouped = has_group_redundancy(copy.ref.level);
    if (grouped) {
        const FileRecord* kept = copy.meta.redundancy_held_by(ctx.rank());
        const fs::path path = ctx.redundancy_path(copy.ref, ctx.topo.node_id);
        redundancy_ok = kept != nullptr && !check_routed_file(path, *kept, ctx.io_buffer_bytes());
    }
    const bool data_ok = mine.empty();
    std::vector<std::string> problems = gather_strings(ctx.app, mine, 0);
    std::string report;
    if (ctx.rank() == 0) {
        for (std::size_t r = 0; r < problems.size(); ++r) {
            if (!problems[r].empty())
                report += (report.empty() ? "" : "; ") + ("rank " + std::to_string(r) + ": ") + problems[r];
        }
    }
    report = bcast_string(ctx.app, report, 0);
    if (report.empty()) {  // the same on every rank, so is what follows
        int all_ok = redundancy_ok ? 1 : 0;
        if (grouped) allreduce(MPI_IN_PLACE, &all_ok, 1, MPI_INT, MPI_MIN, ctx.app, "the redundancy checks");
        if (all_ok == 1) return loaded;
    }
    if (!grouped) {
        problem = what + ": " + report;
        return std::nullopt;
    }
    // L2/L3: the groups that lost something rebuild it.
    if (!ctx.topo.groups_valid || copy.meta.node_size != ctx.config.node_size ||
        copy.meta.group_size != ctx.config.group_size) {
        problem = what + ": " + report + "; it cannot be rebuilt by this run, whose nodes or sets differ from those " +
                  "that wrote it";
        return std::nullopt;
    }
    int lost = data_ok && redundancy_ok ? 0 : 1;
    allreduce(MPI_IN_PLACE, &lost, 1, MPI_INT, MPI_MAX, ctx.group, "whether the group lost files");
    std::exception_ptr failure;
    try {
        if (lost != 0) {
            repair_group(ctx, copy, data_ok, redundancy_ok);
            if (!data_ok) ctx.log.debug("rebuilt the files of " + what + " on this rank");
        }
    } catch (...) {
        failure = std::current_exception();
    }
    try {
        agree(ctx.app, failure);
    } catch (const Error& e) {
        problem = what + ": " + report + "; the rebuild failed: " + e.what();
        return std::nullopt;
    }
    if (ctx.rank() == 0 && !report.empty()) {
        ctx.log.warning(what + ": rebuilt from its " + redundancy_of(copy.meta)->name() + " (" + report + ")");
    }
    return loaded;
}

}  // namespace mlckpt::core
