#include "runtime/snapshot_scheduler.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace mlckpt::core {
namespace {

double same(double mine) {
    return mine;
}

// Calls FTI_Snapshot's schedule `calls` times with iterations of `seconds`
// and returns the calls (counted from 0, as FTI's programs print them) at
// which a level was due, with FTI's debug lines.
struct Schedule {
    std::vector<std::pair<int, int>> due;  // (call, level)
    std::vector<std::string> lines;
};
Schedule run(const std::array<double, 4>& minutes, int calls, double seconds, int fast_forward = 1,
             int max_sync = 512) {
    Schedule r;
    SnapshotScheduler s(minutes, max_sync, fast_forward, [&](const std::string& line) { r.lines.push_back(line); });
    double now = 100.0;
    for (int i = 0; i < calls; ++i) {
        const std::optional<int> level = s.on_iteration(same, now);
        if (level) r.due.emplace_back(i, *level);
        s.after_call(now);
        now += seconds;
    }
    return r;
}

// One-second iterations: 60 iterations a minute, checked every 60 calls.
TEST(SnapshotScheduler, ChecksOnceAMinuteOfIterations) {
    Schedule r = run({1, 0, 0, 0}, 200, 1.0);
    ASSERT_EQ(r.due.size(), 3u);
    EXPECT_EQ(r.due[0], std::make_pair(60, 1));  // FTI: the first check comes one call later
    EXPECT_EQ(r.due[1], std::make_pair(120, 1));
    EXPECT_EQ(r.due[2], std::make_pair(180, 1));
}

// The highest level whose minutes have passed; every due level's count advances.
TEST(SnapshotScheduler, HighestDueLevel) {
    Schedule r = run({1, 2, 0, 4}, 60 * 5 + 10, 1.0);
    std::vector<int> levels;
    for (auto [call, level] : r.due) levels.push_back(level);
    EXPECT_EQ(levels, (std::vector<int>{1, 2, 1, 4, 1}));
}

// [advanced] fast_forward divides the iterations of a minute, rounded up.
TEST(SnapshotScheduler, FastForwardDividesTheInterval) {
    Schedule r = run({1, 0, 0, 0}, 100, 1.0, 7);  // 60 / 7 = 8.6: every 9 calls
    ASSERT_GE(r.due.size(), 3u);
    EXPECT_EQ(r.due[1].first - r.due[0].first, 9);
    EXPECT_EQ(r.due[2].first - r.due[1].first, 9);
}

// Intervals below a minute (mlckpt only; FTI reads whole minutes): checks
// come every shortest interval's iterations.
TEST(SnapshotScheduler, IntervalsBelowAMinute) {
    Schedule r = run({0.005, 0, 0, 0.02}, 100, 0.01);  // 0.3 s and 1.2 s of 10 ms iterations
    ASSERT_GE(r.due.size(), 3u);
    EXPECT_EQ(r.due[0], std::make_pair(30, 1));
    EXPECT_EQ(r.due[1], std::make_pair(60, 1));
    EXPECT_EQ(r.due[2], std::make_pair(90, 1));
    Schedule longer = run({0.005, 0, 0, 0.02}, 130, 0.01);
    EXPECT_EQ(longer.due.back(), std::make_pair(120, 4));
}

// Iterations that become slower (a loaded machine) shrink the check
// interval; the next check must never fall behind the call count, or no
// checkpoint would ever follow (FTI's schedule can do that).
TEST(SnapshotScheduler, SlowerIterationsNeverStopTheChecks) {
    Schedule r;
    SnapshotScheduler s({0.002, 0, 0, 0}, 512, 1, [&](const std::string& line) { r.lines.push_back(line); });
    double now = 0.0;
    for (int i = 0; i < 200; ++i) {
        if (s.on_iteration(same, now)) r.due.emplace_back(i, 1);
        s.after_call(now);
        now += i < 20 ? 0.01 : 0.04;  // 12 iterations a tick, then 3
    }
    ASSERT_GE(r.due.size(), 10u);
    EXPECT_GE(r.due.back().first, 190);
}

// FTI's debug line at each sync: its iteration is a multiple of the sync
// interval, which doubles up to max_sync_intv (FTI's sync_intv suite).
TEST(SnapshotScheduler, SyncLinesAsFti) {
    Schedule r = run({1, 0, 0, 0}, 2000, 0.01, 1, 64);
    int syncs = 0;
    for (const std::string& line : r.lines) {
        long long iter = 0, intv = 0, next = 0, sync = 0;
        if (std::sscanf(line.c_str(),
                        "Current iter : %lld ckpt intv. : %lld . Next ckpt. at iter. %lld . Sync. intv. : %lld", &iter,
                        &intv, &next, &sync) != 4)
            continue;
        ++syncs;
        EXPECT_EQ(iter % sync, 0) << line;
        EXPECT_LE(sync, 64) << line;
        EXPECT_EQ(intv, 6000) << line;
    }
    EXPECT_GE(syncs, 30);
    EXPECT_EQ(r.lines.back().find("Current iter : 1984 "), 0u) << r.lines.back();
}

}  // namespace
}  // namespace mlckpt::core
