// What a rank prints when it waited longer than [advanced] wait_timeout:
// whom it waited for, in which step, and what the ranks it asked answered.
#include <gtest/gtest.h>

#include "mpi/bounded_wait.hpp"

namespace mlckpt::core {
namespace {

TEST(WaitReport, NamesTheStepThePeerAndTheBound) {
    EXPECT_EQ(wait_report(3, 1800.7, "FTI_Finalize", "rank 0 (the head's verdict)", {0}, {""}, 1800),
              "rank 3 waited 1800 s in FTI_Finalize for rank 0 (the head's verdict), longer than [advanced] "
              "wait_timeout = 1800 s allows; rank 0 does not answer from inside mlckpt (computing, blocked in the "
              "application, or gone); aborting the job");
}

TEST(WaitReport, GroupsTheAnswersAndShortensRunsOfRanks) {
    const std::string waiting = "FTI_Checkpoint, waiting for the other 7 ranks of the application ranks (agreeing)";
    std::string report = wait_report(0, 60, "FTI_Checkpoint", "the other 7 ranks of the application ranks (agreeing)",
                                     {1, 2, 3, 4, 5, 6, 7}, {waiting, waiting, "", waiting, waiting, "", waiting}, 60);
    EXPECT_NE(report.find("; ranks 3, 6 do not answer from inside mlckpt"), std::string::npos) << report;
    EXPECT_NE(report.find("; ranks 1-2, 4-5, 7: " + waiting), std::string::npos) << report;
}

TEST(WaitReport, ListsAtMostSixteenRunsOfRanks) {
    std::vector<int> asked;
    for (int r = 0; r < 100; r += 2) asked.push_back(r);  // 50 runs of one rank each
    std::string report =
        wait_report(1, 5, "FTI_Checkpoint", "everybody", asked, std::vector<std::string>(asked.size()), 5);
    EXPECT_NE(report.find("ranks 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30 and 34 more do not answer"),
              std::string::npos)
        << report;
}

TEST(WaitReport, WithoutARollCallNamesTheWaitOnly) {
    EXPECT_EQ(wait_report(0, 12, "FTI_Init", "another rank (a barrier)", {}, {}, 10),
              "rank 0 waited 12 s in FTI_Init for another rank (a barrier), longer than [advanced] wait_timeout = "
              "10 s allows; aborting the job");
}

}  // namespace
}  // namespace mlckpt::core
