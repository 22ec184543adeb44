// Chooses the checkpoint to restart from: the newest committed one whose
// files verify on every rank (size and CRC-32, or the FTI-FF hashes), trying for each checkpoint the
// lowest level first. Collective over the application ranks.
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

Selection select_checkpoint(Context& ctx);

}  // namespace mlckpt::core
