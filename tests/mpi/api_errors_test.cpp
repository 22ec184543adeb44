// Misuse of the API and bad configurations: each gets FTI_NSCS (or FTI_NREC)
// and a message naming what was wrong, never a crash or a hang.
#include <gtest/gtest.h>

#include <fstream>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

bool last_error_has(const std::string& text) {
    return std::string(FTI_LastError()).find(text) != std::string::npos;
}

TEST(Api, CallsBeforeInit) {
    int x = 0;
    EXPECT_FTI(FTI_NSCS, FTI_Protect(0, &x, 1, FTI_INTG));
    EXPECT_TRUE(last_error_has("FTI_Protect: the library is not initialized: call FTI_Init first")) << FTI_LastError();
    EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(1, FTI_L1));
    EXPECT_FTI(FTI_NSCS, FTI_Recover());
    EXPECT_FTI(FTI_NSCS, FTI_Snapshot());
    EXPECT_FTI(FTI_NSCS, FTI_Status());
    EXPECT_FTI(FTI_NSCS, FTI_Finalize());
    EXPECT_FTI(FTI_NSCS, FTI_RecoverVarInit());
    EXPECT_EQ(FTI_GetStoredSize(0), 0);
    EXPECT_EQ(FTI_Realloc(0, &x), nullptr);
    EXPECT_FTI(FTI_NSCS, FTI_Init(nullptr, MPI_COMM_WORLD));
    EXPECT_TRUE(last_error_has("configuration file path is NULL"));
    EXPECT_EQ(FTI_COMM_WORLD, MPI_COMM_NULL);
}

TEST(Api, InvalidArguments) {
    std::string cfg = config();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    int x[4] = {1, 2, 3, 4};
    EXPECT_FTI(FTI_NSCS, FTI_Protect(0, x, -1, FTI_INTG));
    EXPECT_TRUE(last_error_has("count -1 is negative"));
    EXPECT_FTI(FTI_NSCS, FTI_Protect(0, nullptr, 4, FTI_INTG));
    EXPECT_TRUE(last_error_has("null pointer for 4 elements"));
    EXPECT_FTI(FTI_NSCS, FTI_Protect(0, x, 4, 12345));
    EXPECT_TRUE(last_error_has("unknown data type handle 12345"));
    EXPECT_FTI(FTI_NSCS, FTI_Protect(-3, x, 4, FTI_INTG));
    EXPECT_TRUE(last_error_has("variable id -3 is invalid"));
    EXPECT_FTI(FTI_NSCS, FTI_InitType(nullptr, 8));
    fti_id_t t = 0;
    EXPECT_FTI(FTI_NSCS, FTI_InitType(&t, 0));
    fti_id_t composite = FTI_InitCompositeType("pair", 16, nullptr);
    ASSERT_GE(composite, 0) << FTI_LastError();
    EXPECT_FTI(FTI_SCES, FTI_AddScalarField(composite, "a", FTI_DBLE, 0));
    int dims[1] = {2};
    EXPECT_FTI(FTI_SCES, FTI_AddVectorField(composite, "b", FTI_INTG, 8, 1, dims));
    EXPECT_FTI(FTI_NSCS, FTI_AddVectorField(composite, "c", FTI_INTG, 8, 1, nullptr));
    EXPECT_FTI(FTI_NSCS, FTI_AddScalarField(composite, "d", FTI_DBLE, 12));
    EXPECT_TRUE(last_error_has("ends at byte 20"));

    ASSERT_FTI(FTI_SCES, FTI_Protect(0, x, 4, FTI_INTG));
    EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(1, 10));
    EXPECT_TRUE(last_error_has("checkpoint level 10 is invalid"));
    EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(1, 0));
    EXPECT_TRUE(last_error_has("checkpoint level 0 is invalid"));
    EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(1, FTI_L2));
    EXPECT_TRUE(last_error_has("level 2 (partner copy) needs groups, but group_size = 1"));
    EXPECT_FTI(FTI_NREC, FTI_Recover());
    EXPECT_TRUE(last_error_has("there is no checkpoint to recover from"));
    EXPECT_EQ(FTI_Realloc(0, x), nullptr);
    EXPECT_FTI(FTI_NSCS, FTI_setIDFromString(nullptr));
    EXPECT_FTI(FTI_NSCS, FTI_AddVarICP(0));
    EXPECT_FTI(FTI_NSCS, FTI_FinalizeICP());
    EXPECT_FTI(FTI_NSCS, FTI_RecoverVarFinalize());
    // Still fully usable after all of that.
    EXPECT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(Api, VersionQuery) {
    EXPECT_EQ(FTI_VersionNumber(), MLCKPT_VERSION_NUMBER);
    std::string v = FTI_VersionString();
    EXPECT_EQ(v, std::to_string(MLCKPT_VERSION_MAJOR) + "." + std::to_string(MLCKPT_VERSION_MINOR) + "." +
                     std::to_string(MLCKPT_VERSION_PATCH));
    EXPECT_STREQ(FTI_LastError(), "");
}

// Rank 0 cannot rewrite [restart] at Finalize: every rank learns it, none hangs.
TEST(Api, FinalizeFailureReachesEveryRank) {
    std::string cfg = config();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    int x = 7;
    ASSERT_FTI(FTI_SCES, FTI_Protect(0, &x, 1, FTI_INTG));
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
    if (world_rank() == 0) fs::remove(cfg);
    world_barrier();
    EXPECT_FTI(FTI_NSCS, FTI_Finalize());
    EXPECT_TRUE(last_error_has("cannot open '" + cfg + "'")) << FTI_LastError();
    EXPECT_EQ(FTI_COMM_WORLD, MPI_COMM_NULL);
}

// Init with a configuration that must be refused, then a good one that works.
void expect_refused(const ConfigOptions& bad, const std::string& expected) {
    std::string path = config(bad);
    EXPECT_FTI(FTI_NSCS, FTI_Init(path.c_str(), MPI_COMM_WORLD));
    EXPECT_TRUE(last_error_has(expected)) << FTI_LastError();
    EXPECT_EQ(FTI_COMM_WORLD, MPI_COMM_WORLD) << "as in FTI: the communicator the application gave";
    if (world_rank() == 0) fs::remove(path);
    world_barrier();
}

TEST(ConfigErrors, UnknownKey) {
    ConfigOptions o;
    o.basic["ckpt_l5"] = "1";
    expect_refused(o, "[basic] unknown key 'ckpt_l5'; allowed keys: head, node_size");
}

TEST(ConfigErrors, OutOfRange) {
    ConfigOptions o;
    o.basic["verbosity"] = "9";
    expect_refused(o, "[basic] verbosity = '9': out of range; allowed: an integer from 1 to 3");
}

TEST(ConfigErrors, NodeSizeMustDivideRanks) {
    ConfigOptions o;
    o.node_size = 3;
    expect_refused(o, "[basic] node_size = '3': does not divide the 4 ranks of the run");
}

TEST(ConfigErrors, UnwritableCheckpointDirectory) {
    fs::path blocker = workdir() / "a-regular-file";
    if (world_rank() == 0) std::ofstream(blocker) << "x";
    ConfigOptions o;
    o.basic["ckpt_dir"] = (blocker / "sub").string();
    expect_refused(o, "[basic] ckpt_dir is not a writable directory");
    // The failed FTI_Init leaves no directory of the execution it began.
    if (world_rank() == 0) {
        for (const fs::path& dir : {meta_dir(), global_dir()}) {
            EXPECT_TRUE(!fs::exists(dir) || fs::is_empty(dir)) << dir << " holds what the failed FTI_Init made";
        }
    }
}

TEST(ConfigErrors, ContainerOptions) {
    ConfigOptions o;
    o.basic["ckpt_io"] = "4";
    o.advanced["container_files"] = std::to_string(app_ranks_expected() + 1);
    expect_refused(o, "[advanced] container_files = '" + std::to_string(app_ranks_expected() + 1) +
                          "': more files than the " + std::to_string(app_ranks_expected()) +
                          " application ranks; allowed: 1 to " + std::to_string(app_ranks_expected()));
}

TEST(ConfigErrors, ContainerBlockSizeMustBeAPowerOfTwo) {
    ConfigOptions o;
    o.advanced["container_block_size"] = "1000";
    expect_refused(o,
                   "[advanced] container_block_size = '1000': not a power of two of at least 512; allowed: 0 (the "
                   "file system's block size) or a power of two from 512 to 1073741824");
}

}  // namespace
}  // namespace mlckpt::test
