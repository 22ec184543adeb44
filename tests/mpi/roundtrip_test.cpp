// Checkpoint in one launch, recover bit for bit in the next, at L1 and L4.
#include <gtest/gtest.h>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

void roundtrip(int level) {
    std::string cfg = config();
    auto file_of = [level](int id, int rank) { return level == 4 ? l4_file(id, rank) : data_file(id, rank); };
    if (phase() == 1) {
        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        EXPECT_EQ(FTI_Status(), 0);
        Dataset d(app_rank());
        d.protect();
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, level));
        EXPECT_TRUE(config_says("failure = 1")) << "restart state recorded after the first checkpoint";
        d.fill(2);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, level));
        MPI_Barrier(FTI_COMM_WORLD);
        // The newer checkpoint replaced the older one, and sits where its level says.
        EXPECT_TRUE(removed_in_background(file_of(1, app_rank())));
        fs::path file = the_file(file_of(2, app_rank()));
        fs::path root = level == 4 ? global_dir() : local_dir();
        EXPECT_EQ(file.string().rfind(root.string(), 0), 0u) << file;
        return;  // crash: no FTI_Finalize
    }
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    EXPECT_EQ(FTI_Status(), 1);
    Dataset d(app_rank());
    d.protect();
    for (int v = 0; v < Dataset::kVariables; ++v) {
        EXPECT_EQ(FTI_GetStoredSize(v), static_cast<int64_t>(d.bytes_of(v))) << "variable " << v;
    }
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(2));
    EXPECT_EQ(FTI_Status(), 0);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    // A clean Finalize removes the checkpoints and clears the restart flag.
    EXPECT_TRUE(find_files(file_of(2, world_rank())).empty());
    EXPECT_TRUE(config_says("failure = 0"));
}

TEST(Roundtrip, L1) {
    roundtrip(FTI_L1);
}
TEST(Roundtrip, L4) {
    roundtrip(FTI_L4);
}

// Both levels in one run: a newer L1 checkpoint does not replace an L4 one,
// and a restart takes the newest.
TEST(Roundtrip, MixedLevels) {
    std::string cfg = config();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    d.protect();
    if (phase() == 1) {
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        d.fill(2);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L1));
        MPI_Barrier(FTI_COMM_WORLD);
        EXPECT_EQ(find_files(data_file(1, app_rank())).size(), 1u);
        EXPECT_EQ(find_files(data_file(2, app_rank())).size(), 1u);
        d.fill(3);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(3, FTI_L4));  // replaces both
        MPI_Barrier(FTI_COMM_WORLD);
        EXPECT_TRUE(removed_in_background(data_file(1, app_rank())));
        EXPECT_TRUE(removed_in_background(data_file(2, app_rank())));
        return;
    }
    EXPECT_EQ(FTI_Status(), 1);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(3));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

}  // namespace
}  // namespace mlckpt::test
