// Retiring the checkpoints a newer one supersedes: their metadata goes
// first, so that a retired checkpoint is never selected again, then their
// files (L4 ones move to the archive with keep_l4_ckpt). Failures are
// warnings: the newer checkpoint is safe.
//
// Either the application ranks retire, each its own files, or, for the
// checkpoints a head completes, the heads, each its node's ranks' files,
// before they send their verdict (as FTI's heads do: a program that reads
// the verdict and ends finds the older files gone).
#pragma once

#include <vector>

#include "store/context.hpp"

namespace mlckpt::core {

// The hidden directory in a level's directory that retired files in FTI's
// layout move into before they are removed (in the background).
inline constexpr const char* kRetiredDir = ".retired";

// The processes that retire together.
struct Retirers {
    MPI_Comm comm = MPI_COMM_NULL;  // all of them: retiring is collective over it
    bool leader = false;            // the one that removes the metadata and the shared L4 directories
    std::vector<int> owners;        // application ranks whose files (theirs and what they keep) this process removes
    bool in_background = true;      // files go in ctx.background; else they are gone on return
};

// The application ranks: each its own files, in the background.
Retirers application_retirers(const Context& ctx);
// The heads (`heads`: every head): each its node's application ranks'
// files, before it returns.
Retirers head_retirers(const Context& ctx, MPI_Comm heads);

// Collective over who.comm. Retires `refs`. `others`: the checkpoints that
// stay (an L4 differential file goes only with the last checkpoint that
// uses it).
void retire_checkpoints(const Context& ctx, const std::vector<CheckpointRef>& refs, const Retirers& who,
                        const Catalog& others);

// Collective over ctx.app: the application ranks retire `refs` and drop
// them from the catalog.
void retire(Context& ctx, const std::vector<CheckpointRef>& refs);

// Drops `refs` from the catalog: another process retired them.
void forget_retired(Context& ctx, const std::vector<CheckpointRef>& refs);

// The leader: removes the metadata of `ref` and the copy beside its data.
bool remove_metadata(const Context& ctx, const CheckpointRef& ref);

// Removes the files of L4 checkpoint `ref` that belong to no rank in
// particular: its own directory, or in FTI's layout its shared files
// (ckpt_io 2 and 4, `container_files` physical files), by name. No live
// checkpoint shares their names (Catalog::place), and l4/ is not listed:
// it holds a file per rank of every file-per-rank checkpoint kept.
// For a checkpoint that failed, and for one retired.
void remove_shared_l4_files(const StorageLayout& layout, const CheckpointRef& ref, int container_files) noexcept;

}  // namespace mlckpt::core
