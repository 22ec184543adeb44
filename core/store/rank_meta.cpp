#include "store/rank_meta.hpp"

#include <algorithm>

#include "io/file.hpp"
#include "levels/redundancy.hpp"
#include "mpi/collective.hpp"
#include "store/checkpoint_store.hpp"

namespace mlckpt::core {

namespace {

// Rank 0: the part of `whole` each of the `ranks` application ranks
// receives (its FULL records and the first redundancy record it holds),
// after a line saying whether every holder's redundancy is recorded. O(N)
// in all. Records of ranks out of range reach no rank.
std::vector<std::string> parts_of(const CheckpointMeta& whole, int ranks) {
    CheckpointMeta header = whole;
    header.files.clear();
    header.redundancy.clear();
    const auto n = static_cast<std::size_t>(ranks);
    std::vector<std::vector<const FileRecord*>> own(n);
    std::vector<const FileRecord*> held(n, nullptr);
    for (const FileRecord& f : whole.files) {
        if (f.rank >= 0 && static_cast<std::size_t>(f.rank) < n) own[static_cast<std::size_t>(f.rank)].push_back(&f);
    }
    for (const FileRecord& r : whole.redundancy) {  // the first of a holder's, as redundancy_held_by()
        const auto holder = static_cast<std::size_t>(r.holder);
        if (r.holder >= 0 && holder < n && held[holder] == nullptr) held[holder] = &r;
    }
    const std::string recorded = whole.redundancy.size() == whole.files.size() ? "1\n" : "0\n";
    std::vector<std::string> parts;
    parts.reserve(n);
    for (std::size_t r = 0; r < n; ++r) {
        header.files.clear();
        for (const FileRecord* f : own[r]) header.files.push_back(*f);
        header.redundancy.clear();
        if (held[r] != nullptr) header.redundancy.push_back(*held[r]);
        parts.push_back(recorded + serialize_meta(header));
    }
    return parts;
}

// Every record of the file must be where restart looks for it: one FULL
// record per application rank, in rank order.
void check_one_record_per_rank(const CheckpointMeta& whole, const std::string& source) {
    if (whole.files.size() != static_cast<std::size_t>(whole.ranks)) {
        fail(ErrorKind::corrupt, "metadata '" + source + "' lists " + std::to_string(whole.files.size()) +
                                     " files for " + std::to_string(whole.ranks) + " ranks");
    }
    for (std::size_t r = 0; r < whole.files.size(); ++r) {
        if (whole.files[r].rank != static_cast<int>(r)) {
            fail(ErrorKind::corrupt, "metadata '" + source + "' lists the file of rank " +
                                         std::to_string(whole.files[r].rank) + " where that of rank " +
                                         std::to_string(r) + " belongs");
        }
    }
}

// Collective over the group: adds the FULL records of the other members.
void add_group_records(MPI_Comm group, CheckpointMeta& meta) {
    const FileRecord own = meta.files.front();
    for (const std::string& text : allgather_strings(group, serialize_file_record(own))) {
        FileRecord r = parse_file_record(text, "a group member's record");
        if (r.rank != own.rank) meta.files.push_back(std::move(r));
    }
    std::sort(meta.files.begin(), meta.files.end(),
              [](const FileRecord& a, const FileRecord& b) { return a.rank < b.rank; });
}

}  // namespace

namespace {

// Rank 0 reads, checks and splits; every rank parses its own part.
RankMeta scatter_parts(const Context& ctx, const CheckpointRef& ref,
                       const std::function<void(const CheckpointMeta&, const std::string&)>& check) {
    const std::string source = ctx.layout.meta_file(ref.level, ref.seq).string();
    std::vector<std::string> parts;
    run_collectively(ctx.app, [&] {
        if (ctx.rank() != 0) return;
        CheckpointMeta whole = read_meta(ctx, ref);
        check(whole, source);
        parts = parts_of(whole, ctx.topo.app_size);
    });
    const std::string mine = scatter_strings(ctx.app, parts, 0);
    parts.clear();
    RankMeta out;
    out.redundancy_recorded = mine.starts_with("1\n");
    out.meta = parse_meta(std::string_view(mine).substr(2), source);
    return out;
}

}  // namespace

RankMeta distribute_meta(const Context& ctx, const CheckpointRef& ref, MetaScope scope,
                         const std::function<void(const CheckpointMeta&)>& check) {
    RankMeta out = scatter_parts(ctx, ref, [&](const CheckpointMeta& whole, const std::string& source) {
        if (check) check(whole);
        check_one_record_per_rank(whole, source);
    });
    if (scope == MetaScope::group && has_group_redundancy(ref.level)) add_group_records(ctx.group, out.meta);
    return out;
}

CheckpointMeta distribute_dataset_meta(const Context& ctx, const CheckpointRef& ref) {
    return scatter_parts(ctx, ref, [](const CheckpointMeta&, const std::string&) {}).meta;
}

}  // namespace mlckpt::core
