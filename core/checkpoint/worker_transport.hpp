// The level's work after the commit done by a thread of the rank itself
// (head = 0 with inline_l<L> = 0, or async_snapshot): a promotion job
// (checkpoint/background_promotion) of the rank's BackgroundJobs, settled
// with the other jobs (Checkpoints::settle).
#pragma once

#include "checkpoint/background_jobs.hpp"
#include "checkpoint/completion.hpp"
#include "checkpoint/transport.hpp"

namespace mlckpt::core {

class WorkerTransport final : public Transport {
  public:
    WorkerTransport(const Context& ctx, BackgroundJobs& jobs, Completion& completion)
        : ctx_(ctx), jobs_(jobs), completion_(completion) {}

    void hand_over(const CheckpointRef& ref, int level, const FileRecord& record) override;
    void settle() override {}  // the jobs' settle does it
    bool pending() const override { return false; }

  private:
    const Context& ctx_;
    BackgroundJobs& jobs_;
    Completion& completion_;
};

}  // namespace mlckpt::core
