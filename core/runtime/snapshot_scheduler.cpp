#include "runtime/snapshot_scheduler.hpp"

#include <algorithm>
#include <cmath>

#include "mpi/collective.hpp"

namespace mlckpt::core {

std::uint64_t interval_iterations(double minutes, double mean_seconds, int fast_forward) {
    double iters = std::ceil(std::round(minutes * 60.0 / std::max(mean_seconds, 1e-9)) / std::max(fast_forward, 1));
    return static_cast<std::uint64_t>(std::clamp(iters, 1.0, 1e15));
}

int SnapshotScheduler::on_iteration(MPI_Comm comm, double now_seconds) {
    ++iteration_;
    if (iteration_ == 1) {
        start_seconds_ = now_seconds;
        return 0;
    }
    if (iteration_ == next_sync_) resync(comm, now_seconds);
    for (int level = 4; level >= 1; --level) {
        auto i = static_cast<std::size_t>(level - 1);
        if (interval_iters_[i] != 0 && iteration_ - last_ckpt_iter_[i] >= interval_iters_[i]) {
            return level;
        }
    }
    return 0;
}

void SnapshotScheduler::on_checkpoint(int level) {
    // A checkpoint at a level also restarts the clocks of the levels below.
    for (int l = 1; l <= std::min(level, 4); ++l) {
        last_ckpt_iter_[static_cast<std::size_t>(l - 1)] = iteration_;
    }
}

void SnapshotScheduler::resync(MPI_Comm comm, double now_seconds) {
    double local_mean = (now_seconds - start_seconds_) / static_cast<double>(iteration_ - 1);
    double mean = 0.0;
    allreduce(&local_mean, &mean, 1, MPI_DOUBLE, MPI_MAX, comm, "FTI_Snapshot's iteration length");
    for (std::size_t i = 0; i < 4; ++i) {
        if (minutes_[i] > 0.0) interval_iters_[i] = interval_iterations(minutes_[i], mean, fast_forward_);
    }
    sync_step_ = std::min(sync_step_ * 2, max_sync_step_);
    next_sync_ = iteration_ + sync_step_;
}

}  // namespace mlckpt::core
