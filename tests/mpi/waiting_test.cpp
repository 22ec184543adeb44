// Ranks that wait in the library's collective steps for a rank still at
// work leave their core: a polling wait would take the core the late rank,
// or this rank's own worker threads, need wherever a node has more busy
// threads than cores.
#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <sstream>

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

// What an earlier launch of this scenario printed (run_phases.sh keeps it).
std::string launch_output(int launch) {
    std::ifstream in(workdir() / ("phase" + std::to_string(launch) + ".log"));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Phase 1 waits past the bound; phase 2 reads what phase 1 printed.
bool launched_to_check_the_report() {
    return phase() == 2;
}

// A rank that computes far longer than [advanced] wait_timeout allows makes
// the ranks that wait for it inside the library abort the job, naming it.
TEST(Waiting, RankLateBeyondTheBoundIsNamed) {
    if (launched_to_check_the_report()) {
        if (world_rank() != 0) return;
        const std::string report = launch_output(1);
        EXPECT_NE(report.find("s in FTI_Checkpoint for the other 2 ranks of the application ranks (the checkpoint "
                              "level every rank asks for), longer than [advanced] wait_timeout = 10 s allows"),
                  std::string::npos)
            << report;
        EXPECT_NE(report.find("rank 1 does not answer from inside mlckpt"), std::string::npos) << report;
        // The other waiting rank answered the roll call.
        EXPECT_NE(report.find(": FTI_Checkpoint, waiting for the other 2 ranks of the application ranks"),
                  std::string::npos)
            << report;
        EXPECT_NE(report.find("aborting the job"), std::string::npos) << report;
        return;
    }
    ConfigOptions options;
    options.advanced["wait_timeout"] = "10";
    std::string cfg = config(options);
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    std::vector<int> data(1024, app_rank());
    ASSERT_FTI(FTI_SCES, FTI_Protect(0, data.data(), static_cast<int64_t>(data.size()), FTI_INTG));
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
    if (app_rank() == 1) {
        std::fprintf(stderr, "[rank 1] computing far past the bound\n");
        std::this_thread::sleep_for(std::chrono::minutes(10));  // the job is aborted meanwhile
    }
    FTI_Checkpoint(2, FTI_L1);
    ADD_FAILURE() << "rank " << app_rank() << " came back from a wait longer than the bound";
}

// A head that stops (here: SIGSTOP) leaves its application ranks waiting for
// its verdict: they abort the job, naming it.
TEST(Waiting, StoppedHeadIsNamed) {
    if (launched_to_check_the_report()) {
        if (world_rank() != 0) return;
        const std::string report = launch_output(1);
        EXPECT_NE(report.find("rank 1 waited 1"), std::string::npos) << report;  // 10 s or a little more
        EXPECT_NE(report.find("s in FTI_Finalize for rank 0 (the head's verdict on the checkpoint it post-processes), "
                              "longer than [advanced] wait_timeout = 10 s allows; rank 0 does not answer from inside "
                              "mlckpt"),
                  std::string::npos)
            << report;
        return;
    }
    // One node: world rank 0 is the head of rank 1. (With more nodes, the
    // other heads would wait for this one too, and whichever rank reaches
    // the bound first would name the rank it waits for, not the stopped one.)
    const fs::path pid_file = workdir() / ("pid." + std::to_string(world_rank()));
    std::ofstream(pid_file) << getpid() << "\n";
    std::string cfg = config({.node_size = 2,
                              .group_size = 1,
                              .basic = {{"head", "1"}, {"inline_l4", "0"}},
                              .advanced = {{"wait_timeout", "10"}}});
    int rc = FTI_Init(cfg.c_str(), MPI_COMM_WORLD);
    if (rc == FTI_HEAD) {
        ADD_FAILURE() << "head " << world_rank() << " returned: the job should have been aborted";
        return;
    }
    ASSERT_FTI(FTI_SCES, rc);
    std::vector<int> data(1024, app_rank());
    ASSERT_FTI(FTI_SCES, FTI_Protect(0, data.data(), static_cast<int64_t>(data.size()), FTI_INTG));
    if (world_rank() == 1) {
        pid_t head = 0;
        std::ifstream(workdir() / "pid.0") >> head;
        ASSERT_GT(head, 0);
        std::fprintf(stderr, "[rank 1] stopping its head (pid %d)\n", static_cast<int>(head));
        ASSERT_EQ(kill(head, SIGSTOP), 0);
    }
    FTI_Checkpoint(1, FTI_L4);  // handed over to the heads
    FTI_Finalize();             // waits for their verdict
    ADD_FAILURE() << "rank " << world_rank() << " came back from a wait longer than the bound";
}

}  // namespace
}  // namespace mlckpt::test
