// The commit protocol. Data files are written under temporary names and
// renamed when complete; a checkpoint exists only once rank 0 has atomically
// committed its metadata file, after every rank reported success. Older
// checkpoints are retired only after that commit, metadata first, so a crash
// at any point leaves the previous good checkpoint recoverable.
#pragma once

#include <compare>
#include <initializer_list>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "format/checkpoint_meta.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

// Collective. Commits checkpoint `ref`, whose data files are in format `io`,
// from each rank's records (its own file, and the partner copy or parity it
// keeps at L2/L3), and enters it in the catalog; on failure nothing is
// committed and every rank throws the same error. `dataset`: as for
// commit_metadata().
void publish(Context& ctx, const CheckpointRef& ref, const std::vector<FileRecord>& mine, IoMode io,
             const CheckpointMeta* dataset = nullptr);

// The metadata commit behind publish(), over any communicator whose rank 0
// writes the file (head ranks use their own). Records may come in any order.
// `dataset`, for datasets of application files (scr.h): its name, flags and
// validity go into the metadata.
void commit_metadata(const Context& ctx, MPI_Comm comm, const CheckpointRef& ref, const std::vector<FileRecord>& mine,
                     IoMode io, const CheckpointMeta* dataset = nullptr);

// Copies a data file into `dir`, checking size and CRC against `record` on
// the way (temporary name, fsync, rename). Throws naming the file.
void copy_verified(const fs::path& source, const Directory& dir, const FileRecord& record, std::size_t buffer);
// The copy into `dir` of a rank's file `source` (its record `record`) of a
// checkpoint committed at `from_level`, made for `to_level`: as it is
// (copy_verified) when both levels store files alike, else with its
// variables packed or unpacked for `to_level`'s codec ([compression]) on
// the way. Files of another format than POSIX (`io`, the format of the
// source's checkpoint) are always copied as they are. Returns the copy's
// record.
FileRecord copy_for_level(const Context& ctx, const fs::path& source, const Directory& dir, const FileRecord& record,
                          IoMode io, int from_level, int to_level);

// The journal of this rank's L4 differential file, left by a crash or by a
// background apply that failed: applied when its update was committed
// (with a warning), removed otherwise, unless `keep_unknown` (a restart
// that lost its metadata cannot tell an update that never committed from
// one whose metadata is gone: it stays). `any_names`: the file under each
// of its names (StorageLayout::dcp_files: a restart may find that of
// another ckpt_io, or of an earlier version), else under this run's only.
// Throws a corrupt or io Error when a committed update cannot be applied.
void settle_dcp_journal(const Context& ctx, bool keep_unknown = false, bool any_names = false);

// Collective. Copies a node-local checkpoint to L4, verifying each file's
// CRC on the way, and commits it with the same sequence number. POSIX files
// go into the shared L4 file when ckpt_io is 2 or 4.
CheckpointRef flush_to_l4(Context& ctx, const CheckpointRef& ref);

// Reads and parses the whole committed metadata of `ref`: O(ranks), for
// one rank (rank 0) to do and send on (store/rank_meta.hpp).
CheckpointMeta read_meta(const Context& ctx, const CheckpointRef& ref);

// Checkpoint data of `levels` that this rank sees (its node's for L1-L3,
// the global data for L4), found without metadata: a directory ckpt<seq>
// of one checkpoint (own_dir; ckpt_id -1, unknown), or the files of one id
// in FTI's layout (seq 0, unknown).
struct VisibleCheckpoint {
    int level = 1;
    bool own_dir = false;
    std::uint64_t seq = 0;
    int ckpt_id = -1;
    auto operator<=>(const VisibleCheckpoint&) const = default;
};
std::set<VisibleCheckpoint> visible_checkpoints(const Context& ctx, std::initializer_list<int> levels);

// Collective over ctx.app. Every rank's visible_checkpoints `mine`, at rank
// 0: each with the number of ranks that see it (empty elsewhere).
std::map<VisibleCheckpoint, int> gather_visible_checkpoints(const Context& ctx,
                                                            const std::set<VisibleCheckpoint>& mine);

// Collective. Loads the catalog of committed checkpoints from the metadata
// directory (rank 0 reads it, everybody gets it), then removes leftovers of
// checkpoints that never committed or were retired. A restart that finds no
// metadata at all removes nothing (Catalog::keep_unrecorded). `restarting`:
// the run restarts the execution (FTI: [restart] failure > 0; SCR: the
// prefix holds its datasets' directory), so that metadata lost altogether
// is restored from the copies beside the data.
void load_catalog_and_clean(Context& ctx, bool restarting);

// What a restart finds of a checkpoint's metadata file.
enum class MetaFound {
    intact,
    inconsistent,  // it parses, but is incomplete or of another checkpoint than its name says
    damaged,       // it does not parse or fails its checksum
    missing,
};
// Whether load_catalog_and_clean restores a checkpoint's metadata from the
// copy beside its data (when that copy verifies): damaged metadata always;
// missing metadata only when none of the execution's is left (`none_left`)
// and the configuration asks for a restart (`restarting`); inconsistent
// metadata never (the checkpoint is passed over). `mlckpt verify` applies
// the same rule to the files it finds.
bool restores_metadata_from_copy(MetaFound found, bool none_left, bool restarting);

}  // namespace mlckpt::core
