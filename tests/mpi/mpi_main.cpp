// main() of the MPI tests: MPI around gtest, launch arguments --phase and
// --workdir, full output on rank 0 and failures only on the other ranks, and
// a non-zero exit code on every rank when any rank failed (an abort when a
// rank failed with its session still open). A test that skips itself
// (GTEST_SKIP: what it needs is not there) ends the launch with exit code 77
// on every rank, which run_phases.sh turns into CTest's skip of the whole
// scenario: never a pass.
#include <mpi.h>

#include <gtest/gtest.h>
#include <cstdio>
#include <cstring>

#include "scenario.hpp"

namespace {

class FailurePrinter : public testing::EmptyTestEventListener {
  public:
    explicit FailurePrinter(int rank) : rank_(rank) {}
    void OnTestPartResult(const testing::TestPartResult& r) override {
        if (!r.failed()) return;
        std::fprintf(stderr, "[rank %d] %s:%d: Failure\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                     r.line_number(), r.summary());
    }

  private:
    int rank_;
};

}  // namespace

int main(int argc, char** argv) {
    const int wanted = mlckpt::test::mpi_thread_level();
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, wanted, &provided);
    if (provided < wanted) {
        std::fprintf(stderr, "MPI provides thread level %d where the test needs %d\n", provided, wanted);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    testing::InitGoogleTest(&argc, argv);
    int phase = 1;
    std::string workdir = ".";
    for (int i = 1; i < argc; ++i) {
        if (std::strncmp(argv[i], "--phase=", 8) == 0) phase = std::atoi(argv[i] + 8);
        if (std::strncmp(argv[i], "--workdir=", 10) == 0) workdir = argv[i] + 10;
    }
    mlckpt::test::set_launch_arguments(phase, workdir);

    int rank = mlckpt::test::world_rank();
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    if (rank != 0) {
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new FailurePrinter(rank));
    }
    int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
    // A scenario registered under a name that matches no test must fail,
    // not pass having checked nothing.
    if (testing::UnitTest::GetInstance()->test_to_run_count() == 0) {
        if (rank == 0) std::fprintf(stderr, "no test matches --gtest_filter: the scenario checks nothing\n");
        failed = 1;
    }
    // A head-mode test that failed before FTI_Finalize would leave the head
    // ranks waiting for it: release them. (A test that passes ends as it
    // means to: FTI_Finalize, a kill, or FTI_ENDW as FTI's programs do.)
    if (failed && mlckpt::test::heads_mode() && mlckpt::test::session_open()) FTI_Finalize();
    // A rank that failed with its session still open may have left the
    // others waiting in a collective call (FTI_Finalize, a checkpoint): end
    // the run now rather than at the test's timeout.
    if (failed && mlckpt::test::session_open()) {
        std::fprintf(stderr, "[rank %d] failed before FTI_Finalize: aborting the run\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const int skipped = testing::UnitTest::GetInstance()->skipped_test_count() > 0 ? 1 : 0;
    const int mine[2] = {failed, skipped};
    int any[2] = {0, 0};
    MPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const bool skip = any[0] == 0 && any[1] != 0;
    // Printed before MPI_Finalize: Open MPI forwards no output after it.
    if (skip && rank == 0) std::printf("%s\n", mlckpt::test::kSkippedMarker);
    std::fflush(stdout);
    MPI_Finalize();
    return any[0] != 0 ? 1 : skip ? mlckpt::test::kSkippedExitCode : 0;
}
