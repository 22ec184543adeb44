// Decides when FTI_Snapshot checkpoints, on FTI's schedule, so that a job
// checkpoints at the same iterations under mlckpt as under FTI (FTI's
// sync_intv suite checks them in FTI's debug lines).
//
// Every call counts an iteration. At sync iterations (multiples of the
// sync interval, which starts at 1 and doubles while it is below half the
// check interval, up to max_sync_intv) the ranks agree on the mean length
// of an iteration, and the check interval becomes the iterations of one
// tick (at least 1), divided by [advanced] fast_forward, rounded up. At
// each check (one every check interval) a tick is counted, and a level is
// due once its ckpt_l<L> minutes have passed once more; the highest due
// level is taken. A tick is FTI's minute; intervals below a minute (which
// mlckpt accepts, FTI does not) shorten it to the shortest interval.
// Between sync iterations every rank decides the same thing from its call
// count alone.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace mlckpt::core {

class SnapshotScheduler {
  public:
    // `debug` receives FTI's debug lines (verbosity 1).
    // `minutes`: ckpt_l<L> of each of kBaseLevels (config/levels.hpp), in order.
    SnapshotScheduler(const std::array<double, 4>& minutes, int max_sync_interval, int fast_forward,
                      std::function<void(const std::string&)> debug = {});

    // The mean of a value over the ranks (collective).
    using MeanOverRanks = std::function<double(double)>;
    // Collective at sync iterations (mean_over_ranks is called there).
    // Returns the level due now, if any.
    std::optional<int> on_iteration(const MeanOverRanks& mean_over_ranks, double now_seconds);
    // At the end of the call: after a check the timer restarts, so that a
    // checkpoint's own time is no iteration's.
    void after_call(double now_seconds) {
        if (checked_) iteration_start_ = now_seconds;
    }

  private:
    void resync(const MeanOverRanks& mean_over_ranks);

    std::array<double, 4> minutes_;  // ckpt_l1..l4; 0 = off
    std::array<std::int64_t, 4> intervals_passed_{1, 1, 1, 1};
    std::int64_t calls_ = 0;  // iterations counted so far
    std::int64_t check_interval_ = 1;
    std::int64_t next_check_ = 0;
    std::int64_t last_check_ = 0;
    std::int64_t sync_interval_ = 1;
    std::int64_t max_sync_interval_;
    int fast_forward_;
    double iteration_start_ = 0.0;
    double total_seconds_ = 0.0;
    double global_mean_ = 0.0;
    double tick_minutes_ = 1.0;
    std::int64_t ticks_counted_ = 0;
    bool checked_ = false;  // the last call was a check
    std::function<void(const std::string&)> debug_;
};

}  // namespace mlckpt::core
