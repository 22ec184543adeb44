#include "store/retirement.hpp"

#include <algorithm>

#include "format/checkpoint_meta.hpp"
#include "format/shared/shared_file.hpp"
#include "io/file.hpp"
#include "levels/redundancy.hpp"
#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

// keep_l4_ckpt, the leader: the metadata of retired L4 checkpoint `r` moves
// to the archive's metadata directory. An archived checkpoint of the same id
// is dropped first: its files are replaced by `r`'s of the same names in
// the archive, which is flat, as FTI's.
void archive_metadata(const Context& ctx, const CheckpointRef& r) {
    const fs::path meta = ctx.layout.meta_file(4, r.seq);
    const fs::path meta_archive = ctx.layout.archive_meta_file(r.seq).parent_path();
    const Directory archive = ctx.layout.make_dir(meta_archive);
    ctx.layout.make_dir(ctx.layout.archive_dir());
    std::error_code ec;
    for (fs::directory_iterator it(meta_archive, ec), end; !ec && it != end; it.increment(ec)) {
        std::uint64_t seq = 0;
        int level = 0;
        if (!parse_meta_file_name(it->path().filename().string(), seq, level)) continue;
        try {
            if (parse_meta(read_text_file(it->path()), it->path().string()).ckpt_id == r.ckpt_id) {
                remove_file(it->path());
            }
        } catch (const Error&) {
            // unreadable: left for the verify tool to report
        }
    }
    ctx.layout.make_dir(meta.parent_path()).rename(meta.filename().string(), archive, meta.filename().string());
}

// keep_l4_ckpt: the files of retired L4 checkpoint `r` move into
// <glbl_dir>/<exec_id>/l4_archive/ under their own names. Each process
// moves its owners' files; then the leader moves what is left (a file
// that all ranks share, the metadata copy) and removes the checkpoint's
// own directory if it has one.
void archive_files(const Context& ctx, const CheckpointRef& r, const Retirers& who) {
    const fs::path dir = ctx.layout.ckpt_dir(r, 0);
    const Directory archive = ctx.layout.make_dir(ctx.layout.archive_dir());
    for (const int owner : who.owners) {
        try {
            const fs::path file = ctx.data_path_for(r, owner, ctx.topo.node_id);
            const std::string own = file.filename().string();
            if (fs::exists(file)) ctx.layout.make_dir(dir).rename(own, archive, own);
        } catch (const Error& e) {
            ctx.log.warning("archiving checkpoint " + std::to_string(r.ckpt_id) + ": " + e.what());
        }
    }
    barrier(who.comm);
    if (!who.leader) return;
    try {
        const Directory from = ctx.layout.make_dir(dir);
        if (r.own_dir) {
            std::error_code ec;
            for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
                const std::string name = it->path().filename().string();
                from.rename(name, archive, name);
            }
        } else {
            for (const std::string& name : shared_file_names(r.ckpt_id, ctx.config.container_files)) {
                std::error_code ec;
                if (fs::exists(dir / name, ec)) from.rename(name, archive, name);
            }
        }
        const fs::path copy = ctx.layout.meta_copy(4, r.seq, 0);
        std::error_code ec;
        if (fs::exists(copy, ec)) {
            const std::string name = copy.filename().string();
            ctx.layout.make_dir(copy.parent_path()).rename(name, archive, name);
        }
        archive.sync();
        if (r.own_dir) ctx.background->remove_tree(dir);
    } catch (const Error& e) {
        ctx.log.warning("archiving checkpoint " + std::to_string(r.ckpt_id) + ": " + e.what());
    }
}

}  // namespace

bool remove_metadata(const Context& ctx, const CheckpointRef& ref) {
    remove_file(ctx.layout.meta_copy(ref.level, ref.seq, ctx.topo.node_id));
    return remove_file(ctx.layout.meta_file(ref.level, ref.seq));
}

void remove_shared_l4_files(const StorageLayout& layout, const CheckpointRef& ref, int container_files) noexcept {
    const fs::path dir = layout.ckpt_dir(ref, 0);
    if (ref.own_dir) {
        remove_tree(dir);
        return;
    }
    try {
        for (const std::string& name : shared_file_names(ref.ckpt_id, container_files)) remove_file(dir / name);
    } catch (const std::exception&) {
        // what is left is removed as uncommitted data at the next start
    }
}

Retirers application_retirers(const Context& ctx) {
    return {ctx.app, ctx.rank() == 0, {ctx.rank()}, true};
}

Retirers head_retirers(const Context& ctx, MPI_Comm heads) {
    Retirers who{heads, false, {}, false};
    int rank = 0;
    check_mpi(MPI_Comm_rank(heads, &rank), "MPI_Comm_rank");
    who.leader = rank == 0;
    for (std::size_t i = 0; i < ctx.topo.node_app_world_ranks.size(); ++i) {
        const GroupMember m = head_member(ctx.topo, MPI_COMM_NULL, static_cast<int>(i));
        who.owners.push_back(m.app_rank);
    }
    return who;
}

void retire_checkpoints(const Context& ctx, const std::vector<CheckpointRef>& refs, const Retirers& who,
                        const Catalog& others) {
    if (refs.empty()) return;
    auto archived = [&](const CheckpointRef& r) { return is_full_l4(r.level) && ctx.config.keep_l4_ckpt; };
    if (who.leader) {
        for (const CheckpointRef& r : refs) {
            try {
                if (archived(r)) {
                    archive_metadata(ctx, r);
                } else if (!remove_metadata(ctx, r)) {
                    ctx.log.warning("cannot remove " + ctx.layout.meta_file(r.level, r.seq).string());
                }
            } catch (const Error& e) {
                ctx.log.warning(std::string("retiring checkpoint ") + std::to_string(r.seq) + ": " + e.what());
            }
        }
    }
    if (std::any_of(refs.begin(), refs.end(), archived)) {
        barrier(who.comm);  // the archive's directory exists
        for (const CheckpointRef& r : refs) {
            if (archived(r)) archive_files(ctx, r, who);
        }
    }
    // Metadata is gone before any data file goes.
    barrier(who.comm);
    // Successive L4 differential checkpoints share one file per rank: it
    // goes only with the last of them.
    auto dcp_file_lives_on = [&](const CheckpointRef& r) {
        if (!is_differential(r.level)) return false;
        return std::any_of(others.refs().begin(), others.refs().end(), [&](const CheckpointRef& o) {
            return is_differential(o.level) && std::none_of(refs.begin(), refs.end(), [&](const CheckpointRef& x) {
                       return x.seq == o.seq && x.level == o.level;
                   });
        });
    };
    // In the background, the application need not wait while the file
    // system frees them. A file in FTI's layout first moves out of sight,
    // into the level's hidden directory .retired: FTI's programs read the
    // level's directory as soon as FTI_Checkpoint returns, and a newer
    // checkpoint may take the file's name (Catalog::place) before the
    // removal runs. The level's directory stays.
    auto remove = [&](const CheckpointRef& r, const fs::path& file) {
        if (!r.own_dir) {
            fs::path hidden;
            try {
                std::error_code ec;
                if (!fs::exists(file, ec)) return;
                const std::string name = file.filename().string();
                const Directory retired = ctx.layout.make_dir(file.parent_path() / kRetiredDir);
                ctx.layout.make_dir(file.parent_path()).rename(name, retired, name);
                hidden = retired.path_of(name);
            } catch (const Error& e) {
                ctx.log.debug("retiring '" + file.string() + "': " + e.what());
                return;  // left for the next start's cleanup
            }
            if (who.in_background) return ctx.background->run([hidden] { remove_file(hidden); });
            remove_file(hidden);
            return;
        }
        if (who.in_background) return ctx.background->remove_file_and_empty_dir(file);
        remove_file(file);
        std::error_code ec;
        fs::remove(file.parent_path(), ec);  // only if empty
    };
    for (const CheckpointRef& r : refs) {
        if (archived(r)) continue;
        if (is_differential(r.level)) {
            // This run's names first. A checkpoint of an earlier run may have
            // left its files under other names (another ckpt_io's, an
            // earlier version's): this run's first dCP checkpoint wrote new
            // ones, and a newer dCP checkpoint never has them.
            const bool lives_on = dcp_file_lives_on(r);
            const bool elsewhere = ctx.run_first_seq == 0 || r.seq < ctx.run_first_seq;
            for (const int owner : who.owners) {
                const std::vector<fs::path> files = ctx.layout.dcp_files(owner);
                for (std::size_t i = lives_on ? 1 : 0; i < (elsewhere ? files.size() : 1); ++i) remove(r, files[i]);
                if (lives_on) continue;
                // With ckpt_io = 1, the owner's stack of layers may be any
                // dcp-id<N>-rank<R>.fti, not only the first.
                const std::string first = files.front().filename().string();
                const std::string tail = first.substr(first.find('-', 6));  // "-rank<R>.fti"
                std::vector<fs::path> stacks;
                std::error_code ec;
                for (const auto& entry : fs::directory_iterator(files.front().parent_path(), ec)) {
                    const std::string name = entry.path().filename().string();
                    if (name != first && name.starts_with("dcp-id") && name.ends_with(tail) &&
                        name.find('-', 6) == name.size() - tail.size()) {
                        stacks.push_back(entry.path());
                    }
                }
                for (const fs::path& stack : stacks) remove(r, stack);
            }
            continue;
        }
        for (const int owner : who.owners) {
            fs::path redundancy = ctx.redundancy_path_for(r, owner, ctx.topo.node_id);
            if (!redundancy.empty()) remove(r, redundancy);
            remove(r, ctx.data_path_for(r, owner, ctx.topo.node_id));
        }
    }
    // A shared L4 file belongs to no rank in particular: the leader removes
    // what is left once every process removed its files.
    bool any_l4 = std::any_of(refs.begin(), refs.end(),
                              [&](const CheckpointRef& r) { return is_full_l4(r.level) && !archived(r); });
    if (any_l4) {
        barrier(who.comm);
        if (who.leader) {
            for (const CheckpointRef& r : refs) {
                if (!is_full_l4(r.level) || archived(r)) continue;
                // Files in FTI's layout go now, before a newer checkpoint may take their names.
                if (r.own_dir) {
                    ctx.background->remove_tree(ctx.layout.ckpt_dir(r, 0));
                } else {
                    remove_shared_l4_files(ctx.layout, r, ctx.config.container_files);
                }
            }
        }
    }
    if (!who.in_background) ctx.background->wait();
}

void retire(Context& ctx, const std::vector<CheckpointRef>& refs) {
    retire_checkpoints(ctx, refs, application_retirers(ctx), ctx.catalog);
    forget_retired(ctx, refs);
}

void forget_retired(Context& ctx, const std::vector<CheckpointRef>& refs) {
    for (const CheckpointRef& r : refs) ctx.catalog.remove(r);
}

}  // namespace mlckpt::core
