// The rules by which a restart chooses its checkpoint, apart from the
// collective work of checking the files: the selector (recovery/selector)
// follows them over the ranks, and `mlckpt verify`, which says what a
// restart would use, over the files it finds. Not collective.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "format/checkpoint_meta.hpp"
#include "storage/checkpoint_ref.hpp"

namespace mlckpt::core {

// The order a restart tries committed checkpoints in: the newest first and,
// of one checkpoint, the lowest level first.
bool tried_before(const CheckpointRef& a, const CheckpointRef& b);

// What of the restarting run a checkpoint must fit.
struct RunShape {
    std::optional<int> app_ranks;  // unknown to a tool looking at the files
    int node_size = 0;
    int group_size = 0;
    bool groups_valid = true;  // the run's topology forms groups of group_size nodes
};

// Why the checkpoint of `meta` cannot be restarted by `run`, or nothing.
std::optional<std::string> misfit(const CheckpointMeta& meta, const RunShape& run);

// Why the data of the L2 or L3 checkpoint of `meta` cannot be rebuilt from
// what is sound (`data_sound(rank)`: the rank's file; `redundancy_sound(holder)`:
// the partner copy or parity that rank keeps), or nothing: each group's
// rule, as its level's repair applies it.
std::optional<std::string> grouped_loss_beyond_repair(const CheckpointMeta& meta,
                                                      const std::function<bool(int)>& data_sound,
                                                      const std::function<bool(int)>& redundancy_sound);

}  // namespace mlckpt::core
