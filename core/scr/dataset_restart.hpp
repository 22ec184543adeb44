// Restarting from a dataset of application files (scr.h): each rank checks
// its files of one committed copy (size and CRC-32 against the metadata);
// at L2 and L3 a group that lost files rebuilds them with the level's own
// repair (the same partner copies and parity as FTI checkpoints, over each
// rank's files taken as one stream), and the files are then cut back out.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "format/checkpoint_meta.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

// One committed copy of a dataset: in the cache (L1-L3) or in the prefix (L4).
struct DatasetInfo {
    CheckpointRef ref;
    CheckpointMeta meta;
};

// A dataset a restart reads: this rank's files, where they verified.
struct LoadedDataset {
    DatasetInfo copy;
    std::vector<std::pair<FileRecord, fs::path>> files;
};

// Where rank `rank`'s file `record` of `copy` lives (on this rank's node for
// L1-L3; at the path the application named for L4).
fs::path dataset_file_path(const Context& ctx, const DatasetInfo& copy, const FileRecord& record);

// Collective. The copy ready to read, or nothing and (on every rank) the
// reason it cannot be used.
std::optional<LoadedDataset> load_dataset(Context& ctx, const DatasetInfo& copy, std::string& problem);

}  // namespace mlckpt::core
