// The level a checkpoint call is taken at: the same on every rank, one that
// FTI accepts, and one this run can take.
#pragma once

#include "store/context.hpp"

namespace mlckpt::core {

// Collective over the application ranks: `level` as it is taken (FTI_L4_DCP
// without dCP is L4; levels 5 to 7 are L1 to L3, as FTI). Throws the same
// usage Error on every rank when the ranks disagree, the level is invalid,
// or its redundancy has no valid groups.
int agreed_level(const Context& ctx, int level);

}  // namespace mlckpt::core
