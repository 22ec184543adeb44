// Decides when FTI_Snapshot checkpoints, from the intervals ckpt_l1..l4 in
// minutes. Like FTI it turns minutes into iterations using the mean length
// of an iteration, agreed by all ranks at sync points (iterations 2, 6, 14,
// 30, ...: the gap doubles up to max_sync_intv, then stays): between them
// every rank decides the same thing from its iteration count alone.
// [advanced] fast_forward divides the intervals in iterations (rounded up),
// as in FTI, to make a test run checkpoint more often.
#pragma once

#include <mpi.h>

#include <array>
#include <cstdint>

namespace mlckpt::core {

// Iterations between checkpoints of a level every `minutes`, for iterations
// of `mean_seconds`, divided by `fast_forward` (rounded up); at least 1.
std::uint64_t interval_iterations(double minutes, double mean_seconds, int fast_forward);

class SnapshotScheduler {
  public:
    SnapshotScheduler(const std::array<double, 4>& minutes, int max_sync_interval, int fast_forward = 1)
        : minutes_(minutes),
          max_sync_step_(static_cast<std::uint64_t>(max_sync_interval)),
          fast_forward_(fast_forward) {}

    // Collective at sync points. Returns the level due now (0 = none): the
    // highest level whose interval has elapsed.
    int on_iteration(MPI_Comm comm, double now_seconds);
    // Records a checkpoint taken at `level` at the current iteration.
    void on_checkpoint(int level);

  private:
    void resync(MPI_Comm comm, double now_seconds);

    std::array<double, 4> minutes_;
    std::array<std::uint64_t, 4> interval_iters_{};  // 0 = level off
    std::array<std::uint64_t, 4> last_ckpt_iter_{};
    std::uint64_t iteration_ = 0;
    std::uint64_t next_sync_ = 2;
    std::uint64_t sync_step_ = 2;
    std::uint64_t max_sync_step_;
    int fast_forward_;
    double start_seconds_ = 0.0;
};

}  // namespace mlckpt::core
