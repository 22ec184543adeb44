// Who moves an application rank's staged files: a thread of the rank
// (head = 0) or the head of its node (head = 1). Both deliver the statuses
// of the rank's requests to its StageRequests; neither blocks the caller
// except finish(), at FTI_Finalize.
#pragma once

#include <mpi.h>

#include <list>
#include <memory>
#include <string>

#include "staging/stage_worker.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

class StageTransport {
  public:
    virtual ~StageTransport() = default;
    virtual void submit(StageJob job) = 0;
    // Applies the statuses that have arrived; never waits.
    virtual void poll(StageRequests& requests) = 0;
    // Waits until no request is pending or active.
    virtual void finish(StageRequests& requests) = 0;
};

// head = 0: the rank's own worker thread.
std::unique_ptr<StageTransport> thread_transport(const Context& ctx);
// head = 1: requests go to the node's head over `world` (general_tag, as
// its other requests); its statuses come back over `statuses` (stage_tag),
// a communicator of their own, so that they never meet the head's other
// messages.
std::unique_ptr<StageTransport> head_transport(const Context& ctx, MPI_Comm world, MPI_Comm statuses);

}  // namespace mlckpt::core
