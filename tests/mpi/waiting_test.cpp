// Ranks that wait in the library's collective steps for a rank still at
// work leave their core: a polling wait would take the core the late rank,
// or this rank's own worker threads, need wherever a node has more busy
// threads than cores.
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

using Clock = std::chrono::steady_clock;

// A thread's CPU time (by its CPU clock) and how often it gave up its CPU
// by blocking (voluntary context switches; a preemption or a yield is
// involuntary), at one moment.
struct ThreadCounters {
    Clock::time_point at;
    double cpu = 0;
    long blocked = -1;
    long preempted = -1;
};

ThreadCounters thread_counters(pid_t tid, clockid_t cpu_clock) {
    ThreadCounters c;
    c.at = Clock::now();
    timespec t{};
    clock_gettime(cpu_clock, &t);
    c.cpu = static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
    std::ifstream status("/proc/self/task/" + std::to_string(tid) + "/status");
    for (std::string line; std::getline(status, line);) {
        std::istringstream words(line);
        std::string key;
        long value = -1;
        words >> key >> value;
        if (key == "voluntary_ctxt_switches:") c.blocked = value;
        if (key == "nonvoluntary_ctxt_switches:") c.preempted = value;
    }
    return c;
}

// A waiting rank's thread, watched from another thread over a window well
// inside its wait (after it began, before the late rank came), so that
// nothing else the call does (its writes and syncs) is counted, must block
// between short stretches on the CPU: CPU time against the number of times
// it blocked, no wall time. A polling wait never blocks, however small or
// large its share of a core: CPU time against wall time (what this test
// measured before) is that share, which on a loaded machine is small for
// a polling wait too.
TEST(Waiting, RanksWaitingForALateRankLeaveTheirCore) {
    const pid_t tid = gettid();
    clockid_t cpu_clock{};
    ASSERT_EQ(pthread_getcpuclockid(pthread_self(), &cpu_clock), 0);
    if (thread_counters(tid, cpu_clock).blocked < 0) {
        GTEST_SKIP() << "no voluntary_ctxt_switches in /proc/self/task/<tid>/status";
    }
    std::string cfg = config();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    std::vector<int> data(1024, app_rank());
    ASSERT_FTI(FTI_SCES, FTI_Protect(0, data.data(), static_cast<int64_t>(data.size()), FTI_INTG));
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));  // the first one sets everything up
    MPI_Barrier(FTI_COMM_WORLD);
    // Rank 0 computes a while before it checkpoints: the others wait for it
    // in FTI_Checkpoint's first collective step.
    constexpr auto late = std::chrono::milliseconds(1000);
    constexpr auto window_start = std::chrono::milliseconds(200), window_end = std::chrono::milliseconds(600);
    const auto start = Clock::now();
    ThreadCounters first, last;
    std::thread watcher;
    if (app_rank() == 0) {
        std::this_thread::sleep_for(late);
    } else {
        watcher = std::thread([&] {
            std::this_thread::sleep_until(start + window_start);
            first = thread_counters(tid, cpu_clock);
            std::this_thread::sleep_until(start + window_end);
            last = thread_counters(tid, cpu_clock);
        });
    }
    // When rank 0 came to the checkpoint: one clock for every rank of the node.
    double came = std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L1));
    if (watcher.joinable()) watcher.join();
    MPI_Bcast(&came, 1, MPI_DOUBLE, 0, FTI_COMM_WORLD);
    if (app_rank() != 0) {
        ASSERT_LT(std::chrono::duration<double>(last.at.time_since_epoch()).count(), came)
            << "the window ended after rank 0 came to the checkpoint: it is not inside the wait";
        const double seconds = std::chrono::duration<double>(last.at - first.at).count();
        const double cpu = last.cpu - first.cpu;
        const long blocked = last.blocked - first.blocked;
        const long preempted = last.preempted - first.preempted;
        std::printf("[rank %d] %.3f s of waiting: %.4f s of CPU, blocked %ld times, preempted or yielded %ld times\n",
                    app_rank(), seconds, cpu, blocked, preempted);
        EXPECT_GT(blocked, 0) << "rank " << app_rank() << " never blocked in " << seconds << " s of waiting (" << cpu
                              << " s of CPU, preempted or yielded " << preempted << " times): it polls";
        // Napping between tests (0.1 ms) takes some 25 us of CPU each time,
        // a few times that under the sanitizers.
        if (blocked > 0) {
            EXPECT_LT(cpu / static_cast<double>(blocked), 1e-3)
                << "rank " << app_rank() << " used " << cpu << " s of CPU and blocked " << blocked << " times in "
                << seconds << " s of waiting";
        }
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
