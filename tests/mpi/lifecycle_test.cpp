// Named variables, incremental checkpoints, keep_last_ckpt / keep_l4_ckpt,
// FTI_Snapshot's interval scheduling, head ranks, and FTI_Init's word on a
// rank bound to a single CPU.
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

TEST(Named, IdsSurviveRestart) {
    std::string cfg = config();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    std::vector<double> temperature(300 + static_cast<std::size_t>(app_rank()));
    std::vector<int> steps(3);
    if (phase() == 1) {
        int t = FTI_setIDFromString("temperature");
        int s = FTI_setIDFromString("time steps");
        ASSERT_GE(t, 0) << FTI_LastError();
        ASSERT_GE(s, 0) << FTI_LastError();
        EXPECT_NE(t, s);
        EXPECT_EQ(FTI_setIDFromString("temperature"), t);
        EXPECT_EQ(FTI_getIDFromString("time steps"), s);
        EXPECT_FTI(FTI_NSCS, FTI_getIDFromString("pressure"));
        EXPECT_NE(std::string(FTI_LastError()).find("no variable is named 'pressure'"), std::string::npos);
        for (std::size_t i = 0; i < temperature.size(); ++i) temperature[i] = static_cast<double>(i) * 0.5;
        steps = {7, 8, 9};
        ASSERT_FTI(FTI_SCES, FTI_Protect(t, temperature.data(), static_cast<int64_t>(temperature.size()), FTI_DBLE));
        ASSERT_FTI(FTI_SCES, FTI_Protect(s, steps.data(), 3, FTI_INTG));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
        return;
    }
    // The names come back from the checkpoint before anything is protected.
    int t = FTI_getIDFromString("temperature");
    int s = FTI_getIDFromString("time steps");
    ASSERT_GE(t, 0) << FTI_LastError();
    ASSERT_GE(s, 0) << FTI_LastError();
    EXPECT_EQ(FTI_setIDFromString("temperature"), t);
    ASSERT_FTI(FTI_SCES, FTI_Protect(t, temperature.data(), static_cast<int64_t>(temperature.size()), FTI_DBLE));
    ASSERT_FTI(FTI_SCES, FTI_Protect(s, steps.data(), 3, FTI_INTG));
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_EQ(steps, (std::vector<int>{7, 8, 9}));
    EXPECT_EQ(temperature.back(), static_cast<double>(temperature.size() - 1) * 0.5);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(Icp, VariablesOneAtATime) {
    std::string cfg = config();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    d.protect();
    if (phase() == 1) {
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        d.fill(2);
        ASSERT_FTI(FTI_SCES, FTI_InitICP(2, FTI_L1, true));
        EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(5, FTI_L1));  // not while an ICP is open
        for (int id = Dataset::kVariables - 1; id >= 0; --id) ASSERT_FTI(FTI_SCES, FTI_AddVarICP(id));
        EXPECT_FTI(FTI_NSCS, FTI_AddVarICP(0));  // twice
        ASSERT_FTI(FTI_DONE, FTI_FinalizeICP());

        // An incomplete ICP is discarded; the previous checkpoint stays.
        d.fill(3);
        ASSERT_FTI(FTI_SCES, FTI_InitICP(3, FTI_L1, true));
        ASSERT_FTI(FTI_SCES, FTI_AddVarICP(0));
        ASSERT_FTI(FTI_SCES, FTI_AddVarICP(1));
        EXPECT_FTI(FTI_NSCS, FTI_FinalizeICP());
        EXPECT_NE(std::string(FTI_LastError()).find("protected variables 2, 3, 4 were not added"), std::string::npos)
            << FTI_LastError();
        MPI_Barrier(FTI_COMM_WORLD);
        EXPECT_TRUE(find_files(data_file(3, app_rank())).empty());
        EXPECT_EQ(find_files(data_file(2, app_rank())).size(), 1u);

        // An inactive ICP does nothing.
        ASSERT_FTI(FTI_SCES, FTI_InitICP(4, FTI_L1, false));
        ASSERT_FTI(FTI_SCES, FTI_AddVarICP(0));
        ASSERT_FTI(FTI_SCES, FTI_FinalizeICP());
        MPI_Barrier(FTI_COMM_WORLD);
        EXPECT_TRUE(find_files(data_file(4, app_rank())).empty());
        return;
    }
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(2));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(KeepLast, RestartsFromL4) {
    ConfigOptions o;
    o.basic["keep_last_ckpt"] = "1";
    std::string cfg = config(o);
    if (phase() == 1) {
        if (!start(cfg)) return world_barrier();  // a head, once the application ranks finalized
        Dataset d(app_rank());
        d.protect();
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
        d.fill(2);
        // With heads, an L4 checkpoint that they complete, keeping its L1
        // copy: the L4 checkpoint is the one kept.
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, heads_mode() ? FTI_L4 : FTI_L1));
        int rank = app_rank();
        ASSERT_FTI(FTI_SCES, FTI_Finalize());
        world_barrier();
        EXPECT_TRUE(config_says("failure = 2"));
        // Flushed to the global directory; nothing left on the nodes (the
        // file is found once).
        fs::path kept = the_file(l4_file(2, rank));
        EXPECT_EQ(kept.string().rfind(global_dir().string(), 0), 0u) << kept;
        return;
    }
    recover_then_finalize(cfg, 2, 2);
}

TEST(KeepL4, ArchivesEveryL4Checkpoint) {
    ConfigOptions o;
    o.basic["keep_l4_ckpt"] = "1";
    std::string cfg = config(o);
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    d.protect();
    int rank = app_rank();
    for (int id = 1; id <= 3; ++id) {
        d.fill(id);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(id, FTI_L4));
    }
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    // Where FTI puts them and FTI's keepl4 suite looks:
    // <glbl_dir>/<exec_id>/l4_archive/Ckpt<id>-Rank<r>.fti, side by side.
    for (int id = 1; id <= 3; ++id) {
        fs::path f = the_file(data_file(id, rank));
        EXPECT_EQ(f.parent_path().filename(), "l4_archive") << f;
        EXPECT_EQ(f.parent_path().parent_path().parent_path(), global_dir()) << f;
    }
    // Only the archive is left of the L4 checkpoints: no ckpt<seq> directory,
    // and nothing but l4_archive in the execution's global directory, as FTI
    // leaves it.
    if (world_rank() == 0) {
        const fs::path exec_dir = the_file(data_file(1, 0)).parent_path().parent_path();
        std::vector<std::string> left;
        for (const auto& entry : fs::directory_iterator(exec_dir)) left.push_back(entry.path().filename().string());
        EXPECT_EQ(left, std::vector<std::string>{"l4_archive"}) << exec_dir;
        for (const auto& entry : fs::recursive_directory_iterator(global_dir())) {
            EXPECT_FALSE(entry.is_directory() && entry.path().filename().string().rfind("ckpt", 0) == 0)
                << entry.path();
        }
    }
    EXPECT_TRUE(config_says("failure = 0"));
}

TEST(Snapshot, ShortIntervals) {
    ConfigOptions o;
    o.basic["ckpt_l1"] = "0.002";  // 0.12 s
    o.basic["ckpt_l4"] = "0.005";  // 0.3 s
    std::string cfg = config(o);
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    int iteration = 0;
    ASSERT_FTI(FTI_SCES, FTI_Protect(10, &iteration, 1, FTI_INTG));
    d.protect();
    if (phase() == 1) {
        int taken = 0;
        for (iteration = 1; iteration <= 80; ++iteration) {
            d.fill(iteration);
            int rc = FTI_Snapshot();
            ASSERT_TRUE(rc == FTI_SCES || rc == FTI_DONE) << rc << ": " << FTI_LastError();
            taken += rc == FTI_DONE;
            ::usleep(10000);
        }
        EXPECT_GE(taken, 3);
        MPI_Barrier(FTI_COMM_WORLD);
        EXPECT_FALSE(fs::is_empty(global_dir())) << "an L4 snapshot was taken";
        return;
    }
    EXPECT_EQ(FTI_Status(), 1);
    EXPECT_FTI(FTI_SCES, FTI_Snapshot());  // on a restart, Snapshot recovers
    EXPECT_EQ(FTI_Status(), 0);
    EXPECT_GT(iteration, 1);
    EXPECT_LE(iteration, 80);
    EXPECT_TRUE(d.matches(iteration)) << "iteration " << iteration;
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(Heads, ApplicationCommunicatorExcludesHeads) {
    ConfigOptions o;
    o.basic["head"] = "1";
    o.basic["keep_heads_alive"] = "1";
    o.node_size = 2;
    std::string cfg = config(o);
    int rc = FTI_Init(cfg.c_str(), MPI_COMM_WORLD);
    if (rc == FTI_HEAD) {
        // Back only after every application rank of the node finalized.
        EXPECT_EQ(world_rank() % 2, 0);
        EXPECT_EQ(FTI_COMM_WORLD, MPI_COMM_NULL);
        EXPECT_FTI(FTI_SCES, FTI_Finalize());
        return;
    }
    ASSERT_EQ(rc, FTI_SCES) << FTI_LastError();
    EXPECT_EQ(world_rank() % 2, 1);
    int size = 0;
    MPI_Comm_size(FTI_COMM_WORLD, &size);
    EXPECT_EQ(size, world_size() / 2);
    EXPECT_EQ(app_rank(), world_rank() / 2);
    Dataset d(app_rank());
    d.protect();
    d.fill(4);
    EXPECT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
    EXPECT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4));
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
}

// FTI_Init failing on the application ranks must not leave the heads blocked:
// every rank, heads included, returns FTI_NSCS with the reason.
TEST(Heads, FailedInitReleasesHeads) {
    fs::path blocker = workdir() / "a-regular-file";
    if (world_rank() == 0) std::ofstream(blocker) << "x";
    ConfigOptions o;
    o.basic["head"] = "1";
    o.node_size = 2;
    o.basic["ckpt_dir"] = (blocker / "sub").string();
    std::string cfg = config(o);
    EXPECT_FTI(FTI_NSCS, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    EXPECT_NE(std::string(FTI_LastError()).find("[basic] ckpt_dir is not a writable directory"), std::string::npos)
        << FTI_LastError();
}

// Launched with Open MPI's binding policy forced to `core` or `none`
// (MLCKPT_TEST_BINDING): one rank bound to a core of a machine with more
// makes FTI_Init name the fix on rank 0; one unbound rank, nothing.
TEST(Binding, InitSaysWhenARankIsBoundToOneCpu) {
    const char* binding = std::getenv("MLCKPT_TEST_BINDING");
    ASSERT_NE(binding, nullptr) << "MLCKPT_TEST_BINDING (core or none) is not set";
    const bool bound = std::string(binding) == "core";
    if (bound && sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "one CPU: none to spare";
    std::string cfg = config();
    if (world_rank() == 0) testing::internal::CaptureStdout();
    const int rc = FTI_Init(cfg.c_str(), MPI_COMM_WORLD);
    const std::string out = world_rank() == 0 ? testing::internal::GetCapturedStdout() : "";
    ASSERT_EQ(rc, FTI_SCES) << FTI_LastError();
    static const std::regex hint(R"(rank 0 is bound to a single CPU while \d+ CPUs? of its host (is|are) bound to no )"
                                 R"(rank: .*mpiexec --map-by ppr:<ranks>:node:pe=<cores>, or --bind-to none)");
    if (world_rank() == 0) {
        EXPECT_EQ(std::regex_search(out, hint), bound) << out;
    }
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

}  // namespace
}  // namespace mlckpt::test
