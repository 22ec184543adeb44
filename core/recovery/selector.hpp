// Chooses the checkpoint to restart from: the newest committed one whose
// files are sound on every rank, trying for each checkpoint the lowest level
// first. Collective over the application ranks.
//
// L2 and L3 files are verified whole (size and CRC-32, or the FTI-FF
// hashes), since what is damaged must be rebuilt from the redundancy before
// anything is read. L1 and L4 files are checked for what can be checked
// without reading the data (presence, size, an FTI-FF file's block records,
// a container's metadata blocks): their data is verified once, while
// FTI_Recover reads it, and a checkpoint whose data fails then gives way to
// the next one (Session::recover).
#pragma once

#include <optional>
#include <string>

#include "meta/checkpoint_meta.hpp"
#include "runtime/context.hpp"

namespace mlckpt::core {

struct RecoverySource {
    CheckpointRef ref;
    IoMode io = IoMode::posix;  // the format it was written in
    FileRecord record;  // this rank's file
    fs::path path;      // where this rank's file is
    std::optional<FileRecord> redundancy;  // L2/L3: the copy or parity kept here, after repair
    bool redundancy_unrecorded = false;    // the metadata lacks it (heads interrupted by a crash)
};

struct Selection {
    std::optional<RecoverySource> source;
    std::string report;  // why nothing was selected, checkpoint by checkpoint
};

// `after`: the search resumes after this checkpoint, whose data failed.
Selection select_checkpoint(Context& ctx, const std::optional<CheckpointRef>& after = std::nullopt);

}  // namespace mlckpt::core
