#include "runtime/snapshot_scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "config/levels.hpp"

namespace mlckpt::core {

SnapshotScheduler::SnapshotScheduler(const std::array<double, 4>& minutes, int max_sync_interval, int fast_forward,
                                     std::function<void(const std::string&)> debug)
    : minutes_(minutes),
      max_sync_interval_(max_sync_interval),
      fast_forward_(fast_forward < 1 ? 1 : fast_forward),
      debug_(std::move(debug)) {
    for (double m : minutes_) {
        if (m > 0.0) tick_minutes_ = std::min(tick_minutes_, m);
    }
}

std::optional<int> SnapshotScheduler::on_iteration(const MeanOverRanks& mean_over_ranks, double now_seconds) {
    const double previous = iteration_start_;
    iteration_start_ = now_seconds;
    if (calls_ > 0) {
        total_seconds_ += now_seconds - previous;
        if (calls_ % sync_interval_ == 0) resync(mean_over_ranks);
    }
    ++calls_;
    checked_ = next_check_ == calls_;
    if (!checked_) return std::nullopt;

    // One more tick has passed (iterations longer than a tick: the ticks
    // the iterations took).
    const double tick_seconds = 60.0 * tick_minutes_;
    // From the agreed mean, not this rank's own time (as FTI), so that
    // every rank counts the same ticks.
    ticks_counted_ = global_mean_ > tick_seconds
                         ? static_cast<std::int64_t>(static_cast<double>(calls_) * global_mean_ / tick_seconds)
                         : ticks_counted_ + 1;
    const double minutes = static_cast<double>(ticks_counted_) * tick_minutes_;
    std::optional<int> level;
    for (std::size_t i = 0; i < kBaseLevels.size(); ++i) {
        if (minutes_[i] > 0.0 && minutes >= static_cast<double>(intervals_passed_[i]) * minutes_[i] * (1.0 - 1e-9)) {
            level = kBaseLevels[i];
            ++intervals_passed_[i];  // counted whether or not the checkpoint succeeds, as FTI
        }
    }
    last_check_ = next_check_;
    next_check_ += check_interval_;
    return level;
}

void SnapshotScheduler::resync(const MeanOverRanks& mean_over_ranks) {
    global_mean_ = mean_over_ranks(total_seconds_ / static_cast<double>(calls_));
    const double tick_seconds = 60.0 * tick_minutes_;
    if (global_mean_ > tick_seconds) {
        check_interval_ = 1;
    } else {
        // Bounded: iterations too short for the clock to see.
        const double per_tick = std::min(std::rint(tick_seconds / std::max(global_mean_, 1e-9)), 1e12);
        check_interval_ = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(per_tick / fast_forward_)));
    }
    // FTI keeps `next` when it is not behind this call's count; but the
    // count then grows by one before it is compared, so a `next` equal to it
    // (iterations that became slower) would never be met again and the job
    // would checkpoint no more. Only a later call is taken, and a next check
    // already overdue becomes the next call.
    const std::int64_t next = last_check_ + check_interval_ + (last_check_ == 0 ? 1 : 0);
    if (next > calls_) {
        next_check_ = next;
    } else if (next_check_ <= calls_) {
        next_check_ = calls_ + 1;
    }
    char line[200];
    std::snprintf(line, sizeof line,
                  "Current iter : %lld ckpt intv. : %lld . Next ckpt. at iter. %lld . Sync. intv. : %lld",
                  static_cast<long long>(calls_), static_cast<long long>(check_interval_),
                  static_cast<long long>(next_check_), static_cast<long long>(sync_interval_));
    if (debug_) debug_(line);
    if (sync_interval_ < check_interval_ / 2 && sync_interval_ < max_sync_interval_) {
        sync_interval_ *= 2;
        std::snprintf(line, sizeof line,
                      "Iteration frequency : %.2f sec/iter => %lld iter/min. Resync every %lld iter.", global_mean_,
                      static_cast<long long>(check_interval_), static_cast<long long>(sync_interval_));
        if (debug_) debug_(line);
        if (sync_interval_ == max_sync_interval_ && debug_) {
            debug_("Sync. intv. has reached max value => " + std::to_string(max_sync_interval_) + " iterations");
        }
    }
}

}  // namespace mlckpt::core
