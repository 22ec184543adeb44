// A checkpoint's metadata as one application rank needs it at restart.
// Rank 0 reads and parses the file once and sends each rank only its part:
// the header, the rank's FULL record and the redundancy record it holds; at
// L2/L3 the members of a group then exchange their FULL records, which a
// rebuild reads. A rank receives O(group size) records whatever the number
// of ranks; only rank 0 handles all N, once.
#pragma once

#include <functional>

#include "format/checkpoint_meta.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

struct RankMeta {
    // The checkpoint's header; `files` holds this rank's FULL record (and,
    // with MetaScope::group at L2/L3, those of its group's members),
    // `redundancy` the record this rank holds, if any.
    CheckpointMeta meta;
    // Whether the file records every holder's redundancy (a restart that
    // rebuilt some has not recorded it yet).
    bool redundancy_recorded = true;
};

enum class MetaScope { own, group };

// Collective over ctx.app. `check` runs on rank 0 against the whole
// metadata before anything is sent; its Error, or that of a file that
// cannot be read or parsed, reaches every rank.
RankMeta distribute_meta(const Context& ctx, const CheckpointRef& ref, MetaScope scope,
                         const std::function<void(const CheckpointMeta&)>& check = {});

// The same for a dataset of scr.h, whose ranks may have several files or
// none: the header, every FULL record of this rank and the redundancy it
// holds. Collective over ctx.app.
CheckpointMeta distribute_dataset_meta(const Context& ctx, const CheckpointRef& ref);

}  // namespace mlckpt::core
