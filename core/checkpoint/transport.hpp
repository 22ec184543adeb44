// How the level's work left after a commit leaves the application's
// thread, chosen once at FTI_Init: to the node's head
// (checkpoint/head_transport), or to the rank's own worker thread
// (checkpoint/worker_transport). Levels done inline have none: their work
// is done by the writer before the commit.
#pragma once

#include "format/checkpoint_meta.hpp"

namespace mlckpt::core {

class Transport {
  public:
    virtual ~Transport() = default;
    // Hands checkpoint `ref`, committed with this rank's file `record`
    // alone, over to complete it to `level`.
    virtual void hand_over(const CheckpointRef& ref, int level, const FileRecord& record) = 0;
    // Collective: the outcome of what was handed over, acted upon.
    virtual void settle() = 0;
    // Whether something handed over waits for settle().
    virtual bool pending() const = 0;
};

}  // namespace mlckpt::core
