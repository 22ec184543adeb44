// Fault injection: checkpoint files deleted, truncated or overwritten in
// place, node directories deleted, metadata damaged, ranks killed in the
// middle of a checkpoint, and restarts with another number of ranks. Every
// recovery is compared bit for bit with what was written.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <regex>
#include <vector>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

int last_rank() {
    return world_size() - 1;
}

// Applies `damage` on rank 0 between the launches, then expects the fallback.
template <typename Damage>
void fallback_scenario(Damage damage) {
    std::string cfg = config();
    if (phase() == 1) return write_l4_then_l1(cfg);
    if (world_rank() == 0) damage();
    world_barrier();
    recover_then_finalize(cfg, 1);
}

TEST(Faults, DeletedFileFallsBackToOlderCheckpoint) {
    fallback_scenario([] { ASSERT_TRUE(fs::remove(the_file(data_file(2, last_rank())))); });
}

// The last node's local storage is gone (on separate nodes: its disk).
TEST(Faults, DeletedNodeDirectoryFallsBack) {
    std::string cfg = config();
    if (phase() == 1) return write_l4_then_l1(cfg);
    const int nodes = world_size() % 2 == 0 ? world_size() / 2 : world_size();
    delete_nodes({nodes - 1});
    recover_then_finalize(cfg, 1);
}

TEST(Faults, TruncatedFileFallsBack) {
    fallback_scenario([] {
        fs::path f = the_file(data_file(2, last_rank()));
        truncate_file(f, fs::file_size(f) / 2);
    });
}

TEST(Faults, OverwrittenFileFallsBack) {
    fallback_scenario([] {
        fs::path f = the_file(data_file(2, last_rank()));
        overwrite_in_place(f, fs::file_size(f) / 2, 16);
    });
}

// Damaged metadata is restored from its copy beside the data, and the
// restart recovers the newest checkpoint.
TEST(Faults, DamagedMetadataIsRestoredFromItsCopy) {
    std::string cfg = config();
    if (phase() == 1) return write_l4_then_l1(cfg);
    if (world_rank() == 0) {
        auto metas = files_below(meta_dir(), [](const fs::path& f) { return f.filename() == "ckpt2.l1.meta"; });
        ASSERT_EQ(metas.size(), 1u);
        overwrite_in_place(metas[0], 40, 4);
    }
    world_barrier();
    recover_then_finalize(cfg, 2);
}

// With its copy damaged too, damaged metadata is not trusted, but its
// checkpoint's files are not deleted as leftovers either: they may be
// recoverable by hand. The restart falls back to the older checkpoint.
TEST(Faults, DamagedMetadataFallsBack) {
    std::string cfg = config();
    if (phase() == 1) return write_l4_then_l1(cfg);
    if (world_rank() == 0) {
        auto metas = files_matching("ckpt2\\.l1\\.meta");
        ASSERT_EQ(metas.size(), 2u) << "the metadata and its copy";
        for (const fs::path& meta : metas) overwrite_in_place(meta, 40, 4);
    }
    world_barrier();
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    MPI_Barrier(FTI_COMM_WORLD);
    EXPECT_EQ(find_files(data_file(2, app_rank())).size(), 1u) << "data of the damaged checkpoint kept";
    Dataset d(app_rank());
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// The only checkpoint is damaged: the restart fails, naming the file. The
// run finalizes without checkpointing; the file and the restart state stay
// as they were, so that once the file is repaired, relaunching restarts.
void only_checkpoint_corrupt(bool verify_at_init) {
    ConfigOptions options;
    options.advanced["verify_at_init"] = verify_at_init ? "1" : "0";
    std::string cfg = config(options);
    int victim = last_rank();
    const fs::path kept = workdir() / "as-damaged";
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L1, 1);
    if (phase() == 3) {
        if (world_rank() == 0) {
            auto damaged =
                files_below(local_dir(), [&](const fs::path& f) { return f.filename() == data_file(1, victim); });
            ASSERT_EQ(damaged.size(), 1u);
            overwrite_in_place(damaged[0], 100, 1);  // flipped back
        }
        world_barrier();
        return recover_then_finalize(cfg, 1);
    }
    if (world_rank() == 0) {
        overwrite_in_place(the_file(data_file(1, victim)), 100, 1);
        copy_tree(local_dir(), kept);
    }
    world_barrier();
    std::unique_ptr<Dataset> d;
    if (verify_at_init) {
        // As FTI: FTI_Init reads the data, finds nothing recoverable and
        // says so, with FTI's two warnings on every rank (FTI's suites look
        // for "Error" in them, and for no Error line); the application goes
        // on as a fresh run.
        int rc = FTI_SCES;
        const std::string out = output_of([&] { rc = FTI_Init(cfg.c_str(), MPI_COMM_WORLD); });
        EXPECT_EQ(rc, FTI_NREC);
        char line[96];
        std::snprintf(line, sizeof line, "Warning - %06d ] : FTI failed to recover the checkpoint files.", app_rank());
        const std::size_t failed = out.find(line);
        EXPECT_NE(failed, std::string::npos) << out;
        EXPECT_NE(out.find("] : Error => ", failed), std::string::npos) << out;
        EXPECT_EQ(out.find("FTI Error"), std::string::npos) << out;
        std::string message = FTI_LastError();
        EXPECT_NE(message.find(data_file(1, victim)), std::string::npos) << message;
        EXPECT_NE(message.find("fails its checksum"), std::string::npos) << message;
        EXPECT_EQ(FTI_Status(), 0);
        d = std::make_unique<Dataset>(app_rank());
        d->protect();
    } else {
        // The file looks whole: the damage shows when FTI_Recover reads it.
        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        EXPECT_EQ(FTI_Status(), 1);
        d = std::make_unique<Dataset>(app_rank());
        d->protect();
        EXPECT_FTI(FTI_NREC, FTI_Recover());
        std::string message = FTI_LastError();
        EXPECT_NE(message.find(data_file(1, victim)), std::string::npos) << message;
        EXPECT_NE(message.find("fails its checksum"), std::string::npos) << message;
        EXPECT_NE(message.find("no older committed checkpoint"), std::string::npos) << message;
        EXPECT_EQ(FTI_Status(), 0);
    }
    EXPECT_FTI(FTI_NREC, FTI_Recover());
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    // A failed restart deletes nothing and keeps the restart state.
    if (world_rank() == 0) {
        EXPECT_TRUE(same_files(local_dir(), kept));
    }
    EXPECT_TRUE(config_says("failure = 1"));
}

// The only checkpoint is damaged on one rank (FTI's verify_log_disrupt).
TEST(Faults, OnlyCheckpointCorruptIsNamed) {
    only_checkpoint_corrupt(true);
}
TEST(Faults, OnlyCheckpointCorruptIsNamedAtRecoverWithSingleRead) {
    only_checkpoint_corrupt(false);
}

// After a crash, the metadata directory of the execution is lost (a cleanup
// script, a purge, a mistake). The relaunch restores it from the copy kept
// beside the data and restarts.
void restored_metadata_scenario(int level) {
    std::string cfg = config();
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, level, 1);
    if (world_rank() == 0) {
        // The heads keep the L1 copy of an L4 checkpoint, a checkpoint too.
        const std::size_t checkpoints = heads_mode() && level == FTI_L4 ? 2 : 1;
        ASSERT_EQ(files_matching("ckpt1\\.l[14]\\.meta").size(), 2 * checkpoints) << "the metadata and its copy";
        for (const auto& entry : fs::directory_iterator(meta_dir())) fs::remove_all(entry.path());
    }
    world_barrier();
    recover_then_finalize(cfg, 1);
}

TEST(Faults, LostMetadataIsRestoredForL1) {
    restored_metadata_scenario(FTI_L1);
}

TEST(Faults, LostMetadataIsRestoredForL4) {
    restored_metadata_scenario(FTI_L4);
}

// The same, with the copy lost too. Without metadata POSIX files cannot be
// verified, so the relaunch restarts from nothing, but it deletes nothing
// either, however often it is relaunched; once the metadata is restored by
// hand, it restarts.
void lost_metadata_scenario(int level) {
    std::string cfg = config();
    const fs::path pristine_local = workdir() / "pristine-local";
    const fs::path pristine_global = workdir() / "pristine-global";
    const fs::path meta_backup = workdir() / "meta-backup";
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, level, 1);
    if (phase() == 2 && world_rank() == 0) {
        copy_tree(meta_dir(), meta_backup);
        for (const auto& entry : fs::directory_iterator(meta_dir())) fs::remove_all(entry.path());
        for (const fs::path& copy : files_matching("ckpt1\\.l[14]\\.meta")) {
            if (copy.string().find(meta_backup.string()) != 0) fs::remove(copy);
        }
        copy_tree(local_dir(), pristine_local);
        copy_tree(global_dir(), pristine_global);
    }
    if (phase() == 4) {
        if (world_rank() == 0) copy_tree(meta_backup, meta_dir());
        world_barrier();
        return recover_then_finalize(cfg, 1);
    }
    world_barrier();
    EXPECT_FTI(FTI_NREC, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    std::string message = FTI_LastError();
    EXPECT_NE(message.find("its metadata is missing"), std::string::npos) << message;
    EXPECT_NE(message.find("left in place"), std::string::npos) << message;
    EXPECT_NE(message.find(level == FTI_L4 ? "L4 checkpoint 1 (" : "L1 checkpoint 1 on "), std::string::npos)
        << message;
    EXPECT_EQ(FTI_Status(), 0);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    world_barrier();
    if (world_rank() == 0) {
        EXPECT_TRUE(same_files(local_dir(), pristine_local));
        EXPECT_TRUE(same_files(global_dir(), pristine_global));
    }
    EXPECT_TRUE(config_says("failure = 1"));
}

TEST(Faults, LostMetadataKeepsTheL1Data) {
    lost_metadata_scenario(FTI_L1);
}

TEST(Faults, LostMetadataKeepsTheL4Data) {
    lost_metadata_scenario(FTI_L4);
}

// A rank is killed at a fault point while checkpoint 2 is being written; the
// relaunch must recover checkpoint 1 and clear the leftovers of checkpoint 2.
// `second_id`: the id the application gives checkpoint 2; with 1, it repeats
// checkpoint 1's, whose files it must never touch (they keep FTI's place in
// the level's directory, the new ones go into a directory of their own).
void killed_scenario(const char* point, int victim, int level, int second_id = 2) {
    std::string cfg = config();
    if (phase() == 1) {
        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        Dataset d(app_rank());
        d.protect();
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, level));
        mark("first-checkpoint-done");
        std::string spec = std::string(point) + ":" + std::to_string(victim) + ":2";
        ::setenv("MLCKPT_FAULT_INJECT", spec.c_str(), 1);
        d.fill(2);
        FTI_Checkpoint(second_id, level);
        ADD_FAILURE() << "rank " << victim << " should have been killed";
        return;
    }
    ASSERT_TRUE(marked("first-checkpoint-done"));
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    EXPECT_EQ(FTI_Status(), 1);
    MPI_Barrier(FTI_COMM_WORLD);
    if (second_id == 1) {
        const fs::path kept = the_file(data_file(1, app_rank()));
        const std::string level_dir = kept.parent_path().filename().string();
        EXPECT_TRUE(level_dir == "l1" || level_dir == "l4") << kept << ": checkpoint 1 is where FTI keeps it";
        const std::regex own_dir("ckpt[0-9]+");
        EXPECT_TRUE(files_below(workdir(),
                                [&](const fs::path& f) {
                                    return std::regex_match(f.parent_path().filename().string(), own_dir);
                                })
                        .empty())
            << "leftovers of the killed checkpoint, in its own directory";
    } else {
        EXPECT_TRUE(find_files(data_file(2, app_rank())).empty()) << "leftovers of the killed checkpoint";
    }
    EXPECT_TRUE(find_files(data_file(second_id, app_rank()) + ".tmp").empty());
    Dataset d(app_rank());
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(Faults, RankKilledAfterWritingItsFile) {
    killed_scenario("after_data_write", last_rank(), FTI_L1);
}

TEST(Faults, RankZeroKilledBeforeMetadataCommit) {
    killed_scenario("before_meta_commit", 0, FTI_L4);
}

TEST(Faults, RankKilledWhileRepeatingAnId) {
    killed_scenario("after_data_write", last_rank(), FTI_L1, 1);
}

TEST(Faults, RankZeroKilledBeforeCommittingARepeatedId) {
    killed_scenario("before_meta_commit", 0, FTI_L4, 1);
}

// The disk fills up under one rank while checkpoint 2 is written (its
// file-size limit makes every write past 1 MiB fail, with EFBIG where a full
// disk gives ENOSPC). Checkpoint 2 fails on every rank with the reason, the
// run goes on, and checkpoint 1 stays whole: the relaunch recovers it and
// finds nothing of checkpoint 2. A 3 MiB variable makes the FTI-FF variant
// write its chunk around the page cache, so the direct path fails too.
void full_disk_scenario(int level) {
    ConfigOptions groups;  // L2/L3: one group of four one-rank nodes
    if (level != FTI_L1) {
        groups.node_size = 1;
        groups.group_size = 4;
    }
    std::string cfg = config(groups);
    const int victim = last_rank();
    if (phase() == 1) {
        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        static LargeDataset data;  // the session points at it until the process ends
        data.protect();
        data.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, level));
        data.fill(2);
        with_file_size_limit(app_rank() == victim, 1u << 20, [&] { EXPECT_FTI(FTI_NSCS, FTI_Checkpoint(2, level)); });
        std::string message = FTI_LastError();
        if (app_rank() == victim) {
            EXPECT_NE(message.find("File too large"), std::string::npos) << message;
            EXPECT_NE(message.find(data_file(2, victim)), std::string::npos) << message;
        } else {
            EXPECT_NE(message.find("rank " + std::to_string(victim)), std::string::npos) << message;
        }
        return;  // ends as a crash would
    }
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    EXPECT_EQ(FTI_Status(), 1);
    MPI_Barrier(FTI_COMM_WORLD);
    EXPECT_TRUE(find_files(data_file(2, app_rank())).empty()) << "leftovers of the failed checkpoint";
    EXPECT_TRUE(find_files(data_file(2, app_rank()) + ".tmp").empty());
    LargeDataset data;
    data.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(data.matches(1)) << "recovered data differs from checkpoint 1";
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(Faults, FullDiskKeepsThePreviousCheckpoint) {
    full_disk_scenario(FTI_L1);
}

// The same at L2 and L3, whose partner copies and parity are written after
// the data: the failure must reach every rank of the group, not hang it.
TEST(Faults, FullDiskKeepsThePreviousCheckpointL2) {
    full_disk_scenario(FTI_L2);
}

TEST(Faults, FullDiskKeepsThePreviousCheckpointL3) {
    full_disk_scenario(FTI_L3);
}

TEST(Faults, DifferentRankCountIsRefused) {
    std::string cfg = config();
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L1, 1);
    EXPECT_FTI(FTI_NREC, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    std::string message = FTI_LastError();
    EXPECT_NE(message.find("written by 4 application ranks, this run has 8"), std::string::npos) << message;
    EXPECT_EQ(FTI_Status(), 0);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

}  // namespace
}  // namespace mlckpt::test
