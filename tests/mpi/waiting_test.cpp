// Ranks that wait in the library's collective steps for a rank still at
// work leave their core: a polling wait would take the core the late rank,
// or this rank's own worker threads, need wherever a node has more busy
// threads than cores.
#include <sys/resource.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

double process_cpu_seconds() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
    };
    return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

TEST(Waiting, RanksWaitingForALateRankLeaveTheirCore) {
    std::string cfg = config();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    std::vector<int> data(1024, app_rank());
    ASSERT_FTI(FTI_SCES, FTI_Protect(0, data.data(), static_cast<int64_t>(data.size()), FTI_INTG));
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));  // the first one sets everything up
    MPI_Barrier(FTI_COMM_WORLD);
    // Rank 0 computes a while before it checkpoints: the others wait for it
    // in FTI_Checkpoint's first collective step.
    constexpr auto late = std::chrono::milliseconds(600);
    if (app_rank() == 0) std::this_thread::sleep_for(late);
    const double cpu_before = process_cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L1));
    const std::chrono::duration<double> waited = std::chrono::steady_clock::now() - start;
    const double cpu = process_cpu_seconds() - cpu_before;
    if (app_rank() != 0) {
        ASSERT_GE(waited.count(), 0.5 * std::chrono::duration<double>(late).count());
        // Polling would use about all of it (or its share of the cores).
        EXPECT_LT(cpu, 0.25 * waited.count())
            << "rank " << app_rank() << " used " << cpu << " s of CPU in " << waited.count() << " s of waiting";
    }
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

}  // namespace
}  // namespace mlckpt::test
