// A head's part in staging (head = 1, enable_staging = 1): it moves the
// files its node's application ranks send (FTI_SendFile) on a thread of its
// own, so that its checkpoint work goes on meanwhile, and reports each
// request's progress to its rank: two ints (id, FTI_SI_* status) on
// stage_tag over the staging communicator.
#pragma once

#include <mpi.h>

#include <set>
#include <string>

#include "staging/stage_worker.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

class HeadStaging {
  public:
    HeadStaging(const Context& ctx, MPI_Comm statuses) : ctx_(ctx), statuses_(statuses), worker_(ctx.log) {}

    // Takes a request from world rank `source`; false when `text` is not one.
    bool accept(int source, const std::string& text);
    // Sends the statuses reported since the last call (from the idle loop).
    void forward();
    // `source` has finalized or ended: what is left for it is dropped.
    void ended(int source) { ended_.insert(source); }
    // Before the head returns: every accepted file is moved.
    void finish();

  private:
    const Context& ctx_;
    MPI_Comm statuses_;
    std::set<int> ended_;
    StageWorker worker_;  // last: its thread ends first
};

}  // namespace mlckpt::core
