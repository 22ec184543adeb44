// Chooses the checkpoint to restart from: the newest committed one whose
// files are sound on every rank, trying for each checkpoint the lowest level
// first. Collective over the application ranks.
//
// By default (Verification::whole, as FTI's FTI_Init) every file of a
// candidate is read whole and checked, its data and its partner copy or
// parity: what fails is rebuilt from the group's redundancy, or the next
// older checkpoint is tried, and FTI_Recover then only reads.
// With Verification::structure ([advanced] verify_at_init = 0) files are
// checked for what can be checked without reading the data (presence,
// size, an FTI-FF file's block records, a container's metadata blocks):
// their data is verified once, while FTI_Recover reads it. L2 and L3 files
// that fail these checks are rebuilt here. When data then fails while it is
// read, an L2 or L3 checkpoint is selected again verified whole, so that
// what is damaged is rebuilt (repair_checkpoint); an L1 or L4 checkpoint
// gives way to the next older one (Recovery::recover).
#pragma once

#include <optional>
#include <string>

#include "format/checkpoint_meta.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

struct RecoverySource {
    CheckpointRef ref;
    IoMode io = IoMode::posix;             // the format it was written in
    FileRecord record;                     // this rank's file
    fs::path path;                         // where this rank's file is
    std::optional<FileRecord> redundancy;  // L2/L3: the copy or parity kept here, after repair
    bool redundancy_unrecorded = false;    // the metadata lacks it (heads interrupted by a crash)
    bool data_verified = false;            // every member's files were read whole at selection
};

struct Selection {
    std::optional<RecoverySource> source;
    std::string report;  // why nothing was selected, checkpoint by checkpoint
};

// This rank's part of committed checkpoint `ref` (metadata `meta`), without
// any check: where its file is and its record. Not collective.
RecoverySource own_recovery_source(const Context& ctx, const CheckpointMeta& meta, const CheckpointRef& ref);

// How much of a candidate's files is read before it is selected.
enum class Verification {
    structure,  // presence, size and structure; the data when it is read
    whole,      // every byte of the data and of the redundancy kept
};

// `after`: the search resumes after this checkpoint, whose data failed.
Selection select_checkpoint(Context& ctx, Verification verification,
                            const std::optional<CheckpointRef>& after = std::nullopt);
// `failed`, an L2 or L3 checkpoint whose data failed while it was read,
// selected again with every member's data verified whole and what fails
// rebuilt from its redundancy; when that fails too, the next older one.
Selection repair_checkpoint(Context& ctx, const CheckpointRef& failed);

}  // namespace mlckpt::core
