#include "runtime/snapshot_scheduler.hpp"

#include <gtest/gtest.h>

namespace mlckpt::core {
namespace {

TEST(SnapshotScheduler, MinutesBecomeIterations) {
    EXPECT_EQ(interval_iterations(1.0, 0.5, 1), 120u);  // one minute of half-second iterations
    EXPECT_EQ(interval_iterations(0.5, 2.0, 1), 15u);
    EXPECT_EQ(interval_iterations(1.0, 600.0, 1), 1u) << "at least every iteration";
}

// [advanced] fast_forward divides the interval in iterations, rounded up, as in FTI.
TEST(SnapshotScheduler, FastForwardDividesTheInterval) {
    EXPECT_EQ(interval_iterations(1.0, 0.5, 5), 24u);
    EXPECT_EQ(interval_iterations(1.0, 0.5, 7), 18u);  // 120 / 7 = 17.1, rounded up
    EXPECT_EQ(interval_iterations(1.0, 60.0, 10), 1u);
}

}  // namespace
}  // namespace mlckpt::core
