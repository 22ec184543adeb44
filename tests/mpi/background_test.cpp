// Checkpoints completed after the commit by each rank's own worker thread:
// head = 0 and inline_l2..l4 = 0 (registered as BACKGROUND scenarios), and
// checkpoints written from an in-memory snapshot (async_snapshot = 1,
// SNAPSHOT scenarios); each with MPI_THREAD_SINGLE, where the communication
// waits for the next call, and with MPI_THREAD_MULTIPLE, where the worker
// does it all.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

// One node per rank, groups of four: 4 ranks are one L2/L3 group, 8 two.
ConfigOptions one_rank_per_node() {
    ConfigOptions o;
    o.node_size = 1;
    o.group_size = 4;
    return o;
}

// Phase 1: two checkpoints at `level`, the data changed as soon as each
// call returns; once the second is promoted, the first is gone. Phase 2:
// a node lost (all of them at L4), the second recovered bit for bit.
void round_trip(int level) {
    ASSERT_TRUE(background_mode() || snapshot_mode()) << "registered as a BACKGROUND or SNAPSHOT scenario";
    std::string cfg = config(one_rank_per_node());
    if (phase() == 1) {
        ASSERT_TRUE(start(cfg));
        static Dataset d(app_rank());  // the session points at it until the kill
        d.protect();
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, level));
        d.fill(2);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, level));
        d.fill(3);  // at once: the checkpoint holds what the call saw
        ASSERT_FTI(FTI_SCES, FTI_WaitBackground());
        EXPECT_FTI(FTI_SCES, FTI_WaitBackground());  // nothing left to wait for: at once
        const std::string older = level == 4 ? l4_file(1, app_rank()) : data_file(1, app_rank());
        EXPECT_TRUE(removed_in_background(older)) << "checkpoint 1 retired once checkpoint 2 was promoted";
        if (level == 4) {
            fs::path file = the_file(l4_file(2, app_rank()));
            EXPECT_EQ(file.string().rfind(global_dir().string(), 0), 0u) << file;
        }
        return crash();
    }
    if (level == 4) {
        if (world_rank() == 0) fs::remove_all(local_dir());
        world_barrier();
    } else if (level != 1) {
        delete_nodes({1});
    }
    recover_then_finalize(cfg, 2);
}

TEST(Background, RoundTripL1) {
    round_trip(FTI_L1);
}

TEST(Background, RoundTripL2) {
    round_trip(FTI_L2);
}
TEST(Background, RoundTripL3) {
    round_trip(FTI_L3);
}
TEST(Background, RoundTripL4) {
    round_trip(FTI_L4);
}

// Phase 1 of the kill scenarios (the fault point comes with the scenario,
// for checkpoint 2): checkpoint 1 completed, then checkpoint 2, the data
// changed as soon as the call returns, and FTI_Finalize, which waits for the
// background work where a rank is killed.
void killed_after_two_checkpoints(const std::string& cfg, int level) {
    ASSERT_NE(std::getenv("MLCKPT_FAULT_INJECT"), nullptr) << "registered with a fault point";
    ASSERT_TRUE(start(cfg));
    Dataset d(app_rank());
    d.protect();
    d.fill(1);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, level));
    ASSERT_FTI(FTI_SCES, FTI_WaitBackground());
    mark("first-checkpoint-done");
    d.fill(2);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, level));
    d.fill(3);
    FTI_Finalize();
    ADD_FAILURE() << "a process should have been killed";
}

// A rank killed at a step of the promotion of checkpoint 2 (the fault point
// comes with the scenario): checkpoint 2 was committed before its level's
// work began, so the relaunch recovers it, and the promotion's leftovers
// are gone. With the node-local files lost as well, the relaunch falls
// back to checkpoint 1, which the failed promotion left in place.
void killed_during_promotion(int level, bool nodes_lost) {
    ASSERT_TRUE(background_mode() || snapshot_mode()) << "registered as a BACKGROUND or SNAPSHOT scenario";
    std::string cfg = config(one_rank_per_node());
    if (phase() == 1) return killed_after_two_checkpoints(cfg, level);
    ::unsetenv("MLCKPT_FAULT_INJECT");
    ASSERT_TRUE(marked("first-checkpoint-done"));
    if (nodes_lost) {  // L4: checkpoint 1 was never retired
        if (world_rank() == 0) fs::remove_all(local_dir());
        world_barrier();
        return recover_then_finalize(cfg, 1);
    }
    ASSERT_TRUE(start(cfg));
    EXPECT_EQ(FTI_Status(), 1);
    if (level == 4) {
        // An uncommitted promotion leaves nothing that a later run could take for a checkpoint.
        EXPECT_TRUE(files_below(global_dir(), [](const fs::path& f) {
                        return f.filename().string().find("Ckpt2-") != std::string::npos;
                    }).empty());
    }
    Dataset d(app_rank());
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(2));
    // The relaunched run promotes its own checkpoints again.
    d.fill(4);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(3, level));
    ASSERT_FTI(FTI_SCES, FTI_WaitBackground());
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
}

// With a snapshot: a rank killed while its worker writes checkpoint 2 from
// the copy (after_data_write): nothing of it was committed, and the
// relaunch recovers checkpoint 1.
TEST(Background, KilledWhileWritingTheSnapshot) {
    ASSERT_TRUE(snapshot_mode()) << "registered as a SNAPSHOT scenario";
    std::string cfg = config(one_rank_per_node());
    if (phase() == 1) return killed_after_two_checkpoints(cfg, FTI_L4);
    ::unsetenv("MLCKPT_FAULT_INJECT");
    ASSERT_TRUE(marked("first-checkpoint-done"));
    recover_then_finalize(cfg, 1);
}

// FTI_Finalize waits for the promotion: with keep_last_ckpt, the checkpoint
// it keeps is the promoted L4 one, which the relaunch finds with every
// node-local file lost.
TEST(Background, FinalizeWaitsForThePromotion) {
    ASSERT_TRUE(background_mode() || snapshot_mode()) << "registered as a BACKGROUND or SNAPSHOT scenario";
    ConfigOptions o = one_rank_per_node();
    o.basic["keep_last_ckpt"] = "1";
    std::string cfg = config(o);
    if (phase() == 1) {
        ASSERT_TRUE(start(cfg));
        Dataset d(app_rank());
        d.protect();
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        d.fill(2);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4));
        d.fill(3);
        EXPECT_FTI(FTI_SCES, FTI_Finalize());
        return;
    }
    if (world_rank() == 0) fs::remove_all(local_dir());
    world_barrier();
    recover_then_finalize(cfg, 2, 2);
}

// A run that ends with MPI_Finalize alone, as FTI's own test programs do
// to leave their checkpoints for the next launch, right after checkpoint 2
// returned: MPI_Finalize first finishes the background work up to its
// commit. Checkpoint 2 is recovered, except with a snapshot and no
// MPI_THREAD_MULTIPLE, where its commit would be the next call's: there
// checkpoint 1 is.
TEST(Background, EndWithoutFinalizeKeepsTheCommits) {
    ASSERT_TRUE(background_mode() || snapshot_mode()) << "registered as a BACKGROUND or SNAPSHOT scenario";
    std::string cfg = config(one_rank_per_node());
    if (phase() == 1) {
        ASSERT_TRUE(start(cfg));
        static Dataset d(app_rank());  // the session points at it until the process ends
        d.protect();
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        ASSERT_FTI(FTI_SCES, FTI_WaitBackground());
        d.fill(2);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4));
        d.fill(3);
        return;  // main() calls MPI_Finalize
    }
    const bool committed = !snapshot_mode() || mpi_thread_level() == MPI_THREAD_MULTIPLE;
    recover_then_finalize(cfg, committed ? 2 : 1);
}

// Data beyond the budget (async_snapshot_mb = 1, 3 MiB per rank): the
// checkpoint is written before FTI_Checkpoint returns, as without a
// snapshot; what fits goes through the snapshot again.
TEST(Background, SnapshotOverTheBudgetIsWrittenAtOnce) {
    ASSERT_TRUE(snapshot_mode()) << "registered as a SNAPSHOT scenario";
    ConfigOptions o = one_rank_per_node();
    o.basic["async_snapshot_mb"] = "1";
    std::string cfg = config(o);
    ASSERT_TRUE(start(cfg));
    LargeDataset data;
    data.protect();
    data.fill(1);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
    EXPECT_EQ(find_files(data_file(1, app_rank())).size(), 1u) << "written before the call returned";
    data.fill(2);
    ASSERT_FTI(FTI_SCES, FTI_Protect(10, data.large.data(), 1000, FTI_ULNG));  // now within the budget
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L1));
    data.fill(3);
    ASSERT_FTI(FTI_SCES, FTI_WaitBackground());
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(data.d.matches(2)) << "the snapshot holds what the call saw";
    for (std::size_t i = 0; i < 1000; ++i) ASSERT_EQ(data.large[i], pattern(app_rank(), 10, 2, i)) << i;
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(Background, KilledDuringPromotionL2) {
    killed_during_promotion(FTI_L2, false);
}
TEST(Background, KilledDuringPromotionL4) {
    killed_during_promotion(FTI_L4, false);
}
TEST(Background, KilledDuringPromotionThenNodesLostL4) {
    killed_during_promotion(FTI_L4, true);
}

// glbl_dir is a 4 MiB file system. Checkpoint 1 (small) reaches L4;
// checkpoint 2 (3 MiB more per rank) does not fit. The failure is reported
// by the next checkpoint call, whose own checkpoint is taken (with a
// snapshot, the promotion starts once the snapshot is written: the failure
// is reported by FTI_WaitBackground); checkpoint 1 is kept at L4 and
// checkpoint 2 stays recoverable at L1.
// Phase 2 recovers checkpoint 3 (the newest, at L1); phase 3, with every
// node-local file lost, falls back to checkpoint 1.
TEST(Background, FullGlobalDirIsReported) {
    ASSERT_TRUE(background_mode() || snapshot_mode()) << "registered as a BACKGROUND or SNAPSHOT scenario";
    const fs::path small = workdir() / "small-glbl";
    ConfigOptions o = one_rank_per_node();
    o.basic["glbl_dir"] = small.string();
    if (phase() == 1) {
        unmount_small_file_system(small);
        static SmallFileSystem glbl(small, "4m");
        if (!glbl.mounted()) GTEST_SKIP() << "mounting a small file system is not allowed here";
        glbl.keep();  // the later launches read it
        std::string cfg = config(o);
        ASSERT_TRUE(start(cfg));
        static LargeDataset data;
        data.d.protect();
        data.d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        ASSERT_FTI(FTI_SCES, FTI_WaitBackground());
        data.protect();  // now 3 MiB more per rank
        data.fill(2);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4));
        data.fill(3);
        EXPECT_FTI(FTI_NSCS, snapshot_mode() ? FTI_WaitBackground() : FTI_Checkpoint(3, FTI_L4));
        const std::string error = FTI_LastError();
        if (snapshot_mode()) EXPECT_FTI(FTI_DONE, FTI_Checkpoint(3, FTI_L4));
        EXPECT_NE(error.find("the background promotion of checkpoint 2 to L4 failed"), std::string::npos) << error;
        EXPECT_NE(error.find("it stays recoverable at L1"), std::string::npos) << error;
        EXPECT_EQ(find_files(l4_file(1, app_rank())).size(), 1u) << "checkpoint 1 kept at L4";
        EXPECT_TRUE(
            files_below(small,
                        [](const fs::path& f) { return f.filename().string().find("Ckpt2-") != std::string::npos; })
                .empty())
            << "nothing of the failed promotion left in glbl_dir";
        // FTI_WaitBackground reports the failure of checkpoint 3's promotion.
        EXPECT_FTI(FTI_NSCS, FTI_WaitBackground());
        EXPECT_NE(std::string(FTI_LastError()).find("promotion of checkpoint 3 to L4 failed"), std::string::npos)
            << FTI_LastError();
        EXPECT_FTI(FTI_SCES, FTI_WaitBackground());  // reported once
        return crash();
    }
    std::string cfg = config(o);
    if (phase() == 2) {
        ASSERT_TRUE(start(cfg));
        EXPECT_EQ(FTI_Status(), 1);
        static LargeDataset data;
        data.protect();
        ASSERT_FTI(FTI_SCES, FTI_Recover());
        EXPECT_TRUE(data.matches(3));
        return crash();
    }
    if (world_rank() == 0) fs::remove_all(local_dir());
    world_barrier();
    ASSERT_TRUE(start(cfg));
    EXPECT_EQ(FTI_Status(), 1);
    Dataset d(app_rank());
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1));
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    unmount_small_file_system(small);
}

// What the process holds does not grow with the number of checkpoints:
// after 200 L4 checkpoints with background promotion, the resident memory
// is within 8 MiB of what it was after 20 (not checked under
// AddressSanitizer, whose quarantine holds freed memory; its leak check
// covers that build), and no worker thread is left.
std::size_t status_field(const std::string& name) {
    std::ifstream in("/proc/self/status");
    std::string key;
    std::size_t value = 0;
    while (in >> key) {
        if (key == name + ":") {
            in >> value;
            return value;
        }
        in.ignore(1 << 12, '\n');
    }
    return 0;
}

TEST(Background, ManyCheckpointsKeepMemoryFlat) {
    ASSERT_TRUE(background_mode() || snapshot_mode()) << "registered as a BACKGROUND or SNAPSHOT scenario";
    std::string cfg = config(one_rank_per_node());
    ASSERT_TRUE(start(cfg));
    Dataset d(app_rank());
    d.protect();
    std::size_t rss_at_20 = 0;
    std::size_t threads_at_20 = 0;  // one of them may be a worker
    for (int i = 1; i <= 200; ++i) {
        d.fill(i);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(i, FTI_L4));
        if (i == 20) {
            rss_at_20 = status_field("VmRSS");
            threads_at_20 = status_field("Threads");
        }
    }
    ASSERT_FTI(FTI_SCES, FTI_WaitBackground());
#if !defined(__SANITIZE_ADDRESS__)  // AddressSanitizer keeps freed memory in quarantine (up to 256 MiB)
    EXPECT_LT(status_field("VmRSS"), rss_at_20 + 8 * 1024) << "kB";
#else
    (void)rss_at_20;
#endif
    EXPECT_LE(status_field("Threads"), threads_at_20) << "worker threads are joined";
    EXPECT_TRUE(removed_in_background(data_file(199, app_rank())));
    const std::string newest = l4_file(200, app_rank());
    EXPECT_EQ(files_below(global_dir(), [&](const fs::path& f) { return f.filename() == newest; }).size(), 1u);
    EXPECT_FTI(FTI_SCES, FTI_Finalize());
}

}  // namespace
}  // namespace mlckpt::test
