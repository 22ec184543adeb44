// Recovery without checkpoint metadata. FTI-FF files describe themselves, so
// when the metadata directory holds nothing for the execution (lost, or
// never written because of a crash right before the first commit), the
// checkpoint directories of L1 and L4 are scanned: the newest checkpoint
// whose FTI-FF file verifies on every rank, with the same checkpoint id, is
// used and its metadata written again. Collective over the application ranks.
#pragma once

#include <optional>
#include <string>

#include "recovery/selector.hpp"

namespace mlckpt::core {

// The checkpoint found, or nullopt with `report` saying why not.
std::optional<RecoverySource> scan_self_describing_checkpoints(Context& ctx, std::string& report);

}  // namespace mlckpt::core
