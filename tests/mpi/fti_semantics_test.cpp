// FTI's observable behaviour where FTI's own programs rely on it: ranks that
// recover by different calls, rolling back in place in a fresh run, a second
// FTI_Init, a size that differs at recovery (a warning, not an error), and
// head ranks released by FTI_ENDW.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

// L2 and L3 groups: two ranks per node, every node in one group (one rank:
// one node, no groups).
ConfigOptions grouped_options() {
    ConfigOptions o;
    o.node_size = world_size() % 2 == 0 ? 2 : 1;
    o.group_size = world_size() / o.node_size;
    return o;
}

// Even application ranks recover with FTI_Recover, odd ones variable by
// variable (last to first), as FTI's diffSizes program does. With
// `damaged`, a variable whose data fails its check gives FTI_NREC, and
// FTI_RecoverVarFinalize reads every variable again from the checkpoint
// that every rank turned to.
void recover_mixed(bool damaged = false) {
    if (app_rank() % 2 == 0) {
        ASSERT_FTI(FTI_SCES, FTI_Recover());
        return;
    }
    ASSERT_FTI(FTI_SCES, FTI_RecoverVarInit());
    for (int id = Dataset::kVariables - 1; id >= 0; --id) {
        int rc = FTI_RecoverVar(id);
        if (rc != FTI_SCES && damaged) {
            EXPECT_EQ(rc, FTI_NREC) << FTI_LastError();
            continue;
        }
        ASSERT_EQ(rc, FTI_SCES) << FTI_LastError();
    }
    ASSERT_FTI(FTI_SCES, FTI_RecoverVarFinalize());
}

void mixed_recovery(int level) {
    std::string cfg = config(grouped_options());
    if (phase() == 1) {
        checkpoint_then_crash(cfg, 1, level, 1);
        return;
    }
    if (!start(cfg)) return;
    EXPECT_EQ(FTI_Status(), 1);
    Dataset d(app_rank());
    d.protect();
    recover_mixed();
    EXPECT_TRUE(d.matches(1));
    EXPECT_EQ(FTI_Status(), 0);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(FtiSemantics, MixedRecoveryL1) {
    mixed_recovery(FTI_L1);
}
TEST(FtiSemantics, MixedRecoveryL2) {
    mixed_recovery(FTI_L2);
}
TEST(FtiSemantics, MixedRecoveryL3) {
    mixed_recovery(FTI_L3);
}
TEST(FtiSemantics, MixedRecoveryL4) {
    mixed_recovery(FTI_L4);
}

// The newest checkpoint's data is damaged on the last rank only: every rank,
// whichever way it recovers, turns to the older checkpoint together.
TEST(FtiSemantics, MixedRecoveryFallsBackTogether) {
    std::string cfg = config();
    if (phase() == 1) {
        write_l4_then_l1(cfg);
        world_barrier();
        if (world_rank() == 0) {
            fs::path f = the_file(data_file(2, world_size() - 1));
            overwrite_in_place(f, fs::file_size(f) / 2, 16);
        }
        return;
    }
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    d.protect();
    recover_mixed(true);
    EXPECT_TRUE(d.matches(1)) << "the L4 checkpoint, on every rank";
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// As in FTI: FTI_Recover (or the FTI_RecoverVar calls) in a run that has
// checkpointed rolls the protected data back to the newest checkpoint.
void rollback_in_place(int level) {
    std::string cfg = config(grouped_options());
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    d.protect();
    EXPECT_FTI(FTI_NREC, FTI_Recover());  // nothing to roll back to yet
    d.fill(1);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, level));
    d.fill(2);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1));
    d.fill(3);
    ASSERT_FTI(FTI_SCES, FTI_RecoverVarInit());
    for (int id = 0; id < Dataset::kVariables; ++id) ASSERT_FTI(FTI_SCES, FTI_RecoverVar(id));
    ASSERT_FTI(FTI_SCES, FTI_RecoverVarFinalize());
    EXPECT_TRUE(d.matches(1));
    d.fill(4);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, level));
    d.fill(5);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(4)) << "the newest checkpoint";
    EXPECT_EQ(FTI_Status(), 0);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(FtiSemantics, RollbackInPlaceL1) {
    rollback_in_place(FTI_L1);
}
TEST(FtiSemantics, RollbackInPlaceL2) {
    rollback_in_place(FTI_L2);
}
TEST(FtiSemantics, RollbackInPlaceL3) {
    rollback_in_place(FTI_L3);
}
TEST(FtiSemantics, RollbackInPlaceL4) {
    rollback_in_place(FTI_L4);
}

// FTI's corner cases: FTI_Init again without FTI_Finalize starts over,
// quietly (the protected variables and types are forgotten, as in FTI);
// once the run has checkpointed it is a restart from there; and a new
// FTI_Init after FTI_Finalize may read another configuration.
TEST(FtiSemantics, SecondInitStartsOver) {
    std::string cfg = config();
    // The session points at them until the process ends.
    static std::unique_ptr<Dataset> first, second, third, fourth;
    first = std::make_unique<Dataset>(world_rank());
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    first->protect();
    first->fill(1);
    int rc = FTI_SCES;
    std::string out = output_of([&] { rc = FTI_Init(cfg.c_str(), MPI_COMM_WORLD); });
    ASSERT_EQ(rc, FTI_SCES) << FTI_LastError();
    EXPECT_EQ(out.find("Warning"), std::string::npos) << out;
    EXPECT_EQ(out.find("Error"), std::string::npos) << out;
    EXPECT_TRUE(first->matches(1)) << "the application's memory is its own";
    EXPECT_EQ(FTI_Status(), 0);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));  // nothing protected any more: an empty checkpoint

    second = std::make_unique<Dataset>(world_rank());
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    EXPECT_EQ(FTI_Status(), 1) << "the configuration says failure = 1: a restart";
    second->protect();
    second->fill(2);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L1));
    second->fill(3);

    // Again: the restart is from checkpoint 2.
    third = std::make_unique<Dataset>(world_rank());
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    EXPECT_EQ(FTI_Status(), 1);
    third->protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(third->matches(2));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());

    // After FTI_Finalize, another configuration.
    ConfigOptions other;
    other.basic["ckpt_dir"] = (workdir() / "other-local").string();
    other.basic["glbl_dir"] = (workdir() / "other-global").string();
    other.basic["meta_dir"] = (workdir() / "other-meta").string();
    std::string cfg2 = config(other);  // rewrites the file
    fourth = std::make_unique<Dataset>(world_rank());
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg2.c_str(), MPI_COMM_WORLD));
    EXPECT_EQ(FTI_Status(), 0);
    fourth->protect();
    fourth->fill(4);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
    EXPECT_EQ(files_below(workdir() / "other-global", [](const fs::path&) { return true; }).empty(), false);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// A size that differs from the stored one is something FTI's programs
// handle (FTI_Realloc, then recover again): a warning, never an error line.
TEST(FtiSemantics, SizeMismatchIsAWarning) {
    std::string cfg = config();
    const std::size_t stored = 1000 + 10 * static_cast<std::size_t>(world_rank());
    static std::vector<int> values;
    if (phase() == 1) {
        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        values.assign(stored, 7 + world_rank());
        ASSERT_FTI(FTI_SCES, FTI_Protect(1, values.data(), static_cast<int64_t>(values.size()), FTI_INTG));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
        return;
    }
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    auto* buffer = static_cast<int*>(std::malloc(10 * sizeof(int)));
    ASSERT_FTI(FTI_SCES, FTI_Protect(1, buffer, 10, FTI_INTG));
    std::string out = output_of([&] {
        if (app_rank() % 2 == 0) {
            EXPECT_FTI(FTI_NREC, FTI_Recover());
        } else {
            ASSERT_FTI(FTI_SCES, FTI_RecoverVarInit());
            EXPECT_FTI(FTI_NREC, FTI_RecoverVar(1));
        }
    });
    EXPECT_NE(out.find("Warning"), std::string::npos) << out;
    EXPECT_EQ(out.find("Error"), std::string::npos) << out;
    EXPECT_EQ(FTI_GetStoredSize(1), static_cast<int64_t>(stored * sizeof(int)));
    buffer = static_cast<int*>(FTI_Realloc(1, buffer));
    ASSERT_NE(buffer, nullptr) << FTI_LastError();
    if (app_rank() % 2 == 0) {
        ASSERT_FTI(FTI_SCES, FTI_Recover());
    } else {
        ASSERT_FTI(FTI_SCES, FTI_RecoverVar(1));
        ASSERT_FTI(FTI_SCES, FTI_RecoverVarFinalize());
    }
    for (std::size_t i = 0; i < stored; ++i) ASSERT_EQ(buffer[i], 7 + world_rank()) << i;
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    std::free(buffer);
}

// FTI's diffSizes program: rank r stored 100 + 10 r ints; the restart
// protects 100 on every rank, so rank 0 recovers at once while the others
// are refused for the size, FTI_Realloc and recover again, even ranks with
// FTI_Recover and odd ones variable by variable. Every rank must end with
// its data, whether FTI_Init verified the checkpoint (FTI's way) or the
// data is checked while it is read (verify_at_init = 0, whose agreement
// every rank must join the same number of times).
void retried_mixed_recovery(int level, bool verify_at_init) {
    ConfigOptions options = grouped_options();
    options.advanced["verify_at_init"] = verify_at_init ? "1" : "0";
    std::string cfg = config(options);
    static std::vector<int> kept;
    int step = 0;
    if (!start(cfg)) return;
    const std::size_t stored = 100 + 10 * static_cast<std::size_t>(app_rank());
    if (phase() == 1) {
        kept.assign(stored, 0);
        for (std::size_t i = 0; i < stored; ++i) kept[i] = static_cast<int>(i) * (app_rank() + 1);
        step = 42;
        ASSERT_FTI(FTI_SCES, FTI_Protect(1, &step, 1, FTI_INTG));
        ASSERT_FTI(FTI_SCES, FTI_Protect(2, kept.data(), static_cast<int64_t>(kept.size()), FTI_INTG));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, level));
        crash();
        return;
    }
    ASSERT_EQ(FTI_Status(), 1);
    auto* buffer = static_cast<int*>(std::calloc(100, sizeof(int)));
    ASSERT_FTI(FTI_SCES, FTI_Protect(1, &step, 1, FTI_INTG));
    ASSERT_FTI(FTI_SCES, FTI_Protect(2, buffer, 100, FTI_INTG));
    auto recover = [] {
        if (app_rank() % 2 == 0) return FTI_Recover();
        int rc = FTI_RecoverVarInit();
        rc += FTI_RecoverVar(1);
        rc += FTI_RecoverVar(2);
        rc += FTI_RecoverVarFinalize();
        return rc;
    };
    int rc = recover();
    EXPECT_EQ(rc != FTI_SCES, app_rank() != 0) << FTI_LastError();
    if (rc != FTI_SCES) {
        buffer = static_cast<int*>(FTI_Realloc(2, buffer));
        ASSERT_NE(buffer, nullptr) << FTI_LastError();
        ASSERT_FTI(FTI_SCES, recover());
    }
    EXPECT_EQ(step, 42);
    for (std::size_t i = 0; i < stored; ++i) ASSERT_EQ(buffer[i], static_cast<int>(i) * (app_rank() + 1)) << i;
    EXPECT_EQ(FTI_Status(), 0);
    // The next collective calls meet: nothing was left unmatched.
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, level));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
    std::free(buffer);
}

TEST(FtiSemantics, RetriedMixedRecoveryEndsL1) {
    retried_mixed_recovery(FTI_L1, true);
}
TEST(FtiSemantics, RetriedMixedRecoveryEndsL2) {
    retried_mixed_recovery(FTI_L2, true);
}
TEST(FtiSemantics, RetriedMixedRecoveryEndsL3) {
    retried_mixed_recovery(FTI_L3, true);
}
TEST(FtiSemantics, RetriedMixedRecoveryEndsL4) {
    retried_mixed_recovery(FTI_L4, true);
}
TEST(FtiSemantics, RetriedMixedRecoveryEndsSingleReadL1) {
    retried_mixed_recovery(FTI_L1, false);
}
TEST(FtiSemantics, RetriedMixedRecoveryEndsSingleReadL2) {
    retried_mixed_recovery(FTI_L2, false);
}

// FTI's information lines where the same event happens, as FTI's suites and
// job scripts look for them (application rank 0 prints them).
TEST(FtiSemantics, InformationLines) {
    std::string cfg = config();
    static std::vector<double> values(1000);
    const bool zero = world_rank() == 0;  // application rank 0: no heads here
    auto expect_lines = [zero](const std::string& out, std::initializer_list<const char*> lines) {
        if (!zero) return;
        for (const char* line : lines) EXPECT_NE(out.find(line), std::string::npos) << line << " in:\n" << out;
    };
    if (phase() == 1) {
        std::string out = output_of([&] {
            ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
            ASSERT_FTI(FTI_SCES, FTI_Protect(3, values.data(), 1000, FTI_DBLE));
            ASSERT_FTI(FTI_SCES, FTI_Protect(3, values.data(), 1000, FTI_DBLE));
            ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L1));
            ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4));
        });
        expect_lines(
            out, {"[ FTI  Information ] : The execution ID is: ", "[ FTI  Information ] : FTI has been initialized.",
                  "[ FTI  Information ] : Variable ID 3 to protect (Stored in CPU). Current ckpt. size per "
                  "rank is 0.01MB.",
                  "Ckpt. ID 1 (L1) (0.01 MB/proc) taken in ", "Ckpt. ID 2 (L4) (0.01 MB/proc) taken in "});
        if (zero) {
            EXPECT_EQ(out.find("reseted"), std::string::npos) << "protecting again: a debug line";
        }
        return;
    }
    std::string out = output_of([&] {
        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        ASSERT_FTI(FTI_SCES, FTI_Protect(3, values.data(), 1000, FTI_DBLE));
        ASSERT_FTI(FTI_SCES, FTI_Recover());
        ASSERT_FTI(FTI_SCES, FTI_Finalize());
    });
    expect_lines(out, {"[ FTI  Information ] : This is a restart. The execution ID is: ",
                       "[ FTI  Information ] : Recovering successfully from level 4 with Ckpt. 2.",
                       "[ FTI  Information ] : FTI has been finalized."});
}

// FTI's debug lines that FTI's programs and suites parse, at verbosity 1:
// the node flag (nodeFlag.c: one process per node and level, not for dCP),
// FTI_Snapshot's sync lines (sync_intv) and the order of the dCP line.
TEST(FtiSemantics, DebugLinesAsFti) {
    ConfigOptions o = grouped_options();
    o.basic["verbosity"] = "1";
    o.basic["enable_dcp"] = "1";
    o.basic["ckpt_l1"] = "1";
    std::string cfg = config(o);
    static std::vector<double> values(1000);
    std::string out = output_of([&] {
        ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
        ASSERT_FTI(FTI_SCES, FTI_Protect(3, values.data(), 1000, FTI_DBLE));
        for (int level = 1; level <= 4; ++level) ASSERT_FTI(FTI_DONE, FTI_Checkpoint(level, level));
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(5, FTI_L4_DCP));
        for (int i = 0; i < 5; ++i) ASSERT_NE(FTI_Snapshot(), FTI_NSCS) << FTI_LastError();
        ASSERT_FTI(FTI_SCES, FTI_Finalize());
    });
    const int node_size = world_size() % 2 == 0 ? 2 : 1;
    char prefix[64];
    std::snprintf(prefix, sizeof prefix, "[FTI Debug - %06d] : ", world_rank());
    int flags = 0;
    for (std::size_t at = out.find("Has nodeFlag"); at != std::string::npos; at = out.find("Has nodeFlag", at + 1)) {
        ++flags;
    }
    if (world_rank() % node_size == 0) {
        EXPECT_EQ(flags, 4) << out;
        for (int level = 1; level <= 4; ++level) {
            std::string line = std::string(prefix) +
                               "Has nodeFlag = 1 and nodeID = " + std::to_string(world_rank() / node_size) +
                               ". CkptLvel = " + std::to_string(level) + ".";
            EXPECT_NE(out.find(line), std::string::npos) << line << " in:\n" << out;
        }
    } else {
        EXPECT_EQ(flags, 0) << out;
    }
    // FTI_Snapshot measures at iterations 1, 2, 4: its line, FTI's 24 fields.
    EXPECT_NE(out.find(std::string(prefix) + "Current iter : 1 ckpt intv. : "), std::string::npos) << out;
    EXPECT_NE(out.find(std::string(prefix) + "Current iter : 4 ckpt intv. : "), std::string::npos) << out;
    if (world_rank() == 0) {
        const std::size_t ckpt = out.find("Ckpt. ID 5 (L4)");
        const std::size_t dcp = out.find("dCP share: ");
        ASSERT_NE(ckpt, std::string::npos) << out;
        ASSERT_NE(dcp, std::string::npos) << out;
        EXPECT_LT(ckpt, dcp) << "FTI prints the dCP line after the checkpoint's";
    }
}

// FTI's programs end a run with head ranks without FTI_Finalize: they wait
// for the head's verdict on the last checkpoint (an int on general_tag),
// send FTI_ENDW on final_tag to their node's head and meet it in an
// MPI_Barrier on MPI_COMM_WORLD (node_size 2: a head and a rank a node).
int head_verdict() {
    int level = 0;
    MPI_Recv(&level, 1, MPI_INT, world_rank() - world_rank() % 2, 2612, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return level;
}
void end_with_endw() {
    int end = FTI_ENDW;
    MPI_Send(&end, 1, MPI_INT, world_rank() - world_rank() % 2, 3107, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
}

// FTI_Init in a run that ends with FTI_ENDW: the application rank's data,
// protected (it outlives the test: the session points at it until the
// process ends), or null on a head, back after that run's barrier.
Dataset* start_for_endw(const std::string& cfg) {
    int rc = FTI_Init(cfg.c_str(), MPI_COMM_WORLD);
    if (rc == FTI_HEAD) {
        EXPECT_EQ(world_rank() % 2, 0);
        EXPECT_FTI(FTI_SCES, FTI_Finalize());
        return nullptr;
    }
    EXPECT_EQ(rc, FTI_SCES) << FTI_LastError();
    if (rc != FTI_SCES) return nullptr;
    static std::unique_ptr<Dataset> d;
    d = std::make_unique<Dataset>(app_rank());
    d->protect();
    return d.get();
}

// Such a run's last checkpoint is where the next launch restarts.
TEST(FtiSemantics, HeadsReleasedByEndw) {
    ASSERT_TRUE(heads_mode()) << "registered as a HEADS scenario";
    std::string cfg = config(grouped_options());
    if (phase() == 1) {
        Dataset* d = start_for_endw(cfg);
        if (d == nullptr) return;
        d->fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L2));
        EXPECT_EQ(head_verdict(), FTI_L2) << "the head's verdict: the level it completed";
        end_with_endw();
        return;  // no FTI_Finalize: the checkpoint stays
    }
    recover_then_finalize(cfg, 1);
}

// FTI's heads retire what a checkpoint supersedes before they send their
// verdict on it: a program that reads the verdict on its last checkpoint
// and ends, as FTI's corner-case programs do, finds that checkpoint's files
// alone: at L4 the global files and the L1 copy the heads flushed, which
// they keep, as FTI's do. The restart recovers from that copy, even once
// the L4 files are lost.
TEST(FtiSemantics, HeadsRetireBeforeTheirVerdict) {
    ASSERT_TRUE(heads_mode()) << "registered as a HEADS scenario";
    std::string cfg = config(grouped_options());
    if (phase() == 1) {
        Dataset* d = start_for_endw(cfg);
        if (d == nullptr) return;
        for (int level = FTI_L1; level <= FTI_L4; ++level) {
            d->fill(level);
            ASSERT_FTI(FTI_DONE, FTI_Checkpoint(level, level));
        }
        EXPECT_EQ(head_verdict(), FTI_L4);
        MPI_Barrier(FTI_COMM_WORLD);  // every head has sent its verdict
        if (app_rank() == 0) {
            for (const fs::path& file : files_below(local_dir(), [](const fs::path&) { return true; })) {
                const bool l1_copy =
                    file.parent_path().filename() == "l1" && file.filename().string().rfind("Ckpt4-", 0) == 0;
                const bool meta_copy = file.parent_path().filename() == "meta" && file.filename() == "ckpt4.l1.meta";
                EXPECT_TRUE(l1_copy || meta_copy)
                    << file << ": only the L1 copy of checkpoint 4 (and its metadata's copy) is left on the nodes";
            }
            for (const fs::path& meta : files_below(meta_dir(), [](const fs::path&) { return true; })) {
                EXPECT_TRUE(meta.filename() == "ckpt4.l4.meta" || meta.filename() == "ckpt4.l1.meta") << meta;
            }
        }
        end_with_endw();
        return;  // no FTI_Finalize: the checkpoint stays
    }
    if (world_rank() == 0) fs::remove_all(global_dir());  // the L4 files are lost
    world_barrier();
    recover_then_finalize(cfg, FTI_L4);
}

// The checkpoint a restart selected stays readable until the application
// collects the heads' verdict on a newer one, even when the heads complete
// it to a level that supersedes the selected one (docs/api.md): the heads
// retire the rest, the application ranks retire it.
TEST(FtiSemantics, HeadsLeaveTheRestartsCheckpointUntilTheVerdict) {
    ASSERT_TRUE(heads_mode()) << "registered as a HEADS scenario";
    std::string cfg = config(grouped_options());
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L2, 1);
    if (!start(cfg)) return;
    EXPECT_EQ(FTI_Status(), 1);
    Dataset d(app_rank());
    d.protect();
    d.fill(2);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L4));
    EXPECT_EQ(head_verdict(), FTI_L4);
    EXPECT_EQ(FTI_Status(), 1);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1)) << "the restart's checkpoint, not the newer one";
    end_with_endw();
}

// The entries of `dir`, sorted, but the hidden directory .retired, where
// retired files wait for their removal. FTI's diffSizes program reads
// every name in the level's directory (hidden ones too) that has "Rank" in
// it as a file of the last checkpoint.
std::vector<std::string> visible_names(const fs::path& dir) {
    std::vector<std::string> names;
    for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
        const std::string name = e.path().filename().string();
        if (name != ".retired" || !e.is_directory()) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

// The one file named `name` that is not retired (those wait in .retired
// for their removal in the background).
fs::path live_file(const std::string& name) {
    std::vector<fs::path> found = find_files(name);
    std::erase_if(found, [](const fs::path& p) { return p.parent_path().filename() == ".retired"; });
    EXPECT_EQ(found.size(), 1u) << name;
    return found.empty() ? fs::path() : found.front();
}

std::string contents(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Checkpoint files are where FTI keeps them, directly in the level's
// directory, under FTI's names: a partner copy is named after the rank that
// keeps it, so FTI's suites, which take a node's first file name for a
// rank (`ls l2 | head -1`), damage the files they mean to. As soon as a
// checkpoint returns, the level's directory shows its files alone, as
// FTI's diffSizes program checks. A checkpoint whose id repeats that of a
// live one goes into a directory of its own, and the restart recovers it.
TEST(FtiSemantics, FilesWhereFtiKeepsThem) {
    std::string cfg = config(grouped_options());  // 8 ranks: 4 nodes of 2, one ring per node index
    if (phase() == 2) return recover_then_finalize(cfg, 3);
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    d.protect();
    d.fill(1);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(3, FTI_L2));
    world_barrier();
    if (world_rank() == 0) {
        const fs::path l2 = live_file(data_file(3, 0)).parent_path();
        EXPECT_EQ(l2.filename(), "l2") << l2;
        EXPECT_EQ(visible_names(l2), (std::vector<std::string>{"Ckpt3-Pcof0.fti", "Ckpt3-Pcof1.fti", "Ckpt3-Rank0.fti",
                                                               "Ckpt3-Rank1.fti"}));
        // Rank 0 keeps the copy of its left neighbour in the ring 0, 2, 4, 6.
        EXPECT_EQ(contents(l2 / "Ckpt3-Pcof0.fti"), contents(live_file(data_file(3, 6))));
    }
    world_barrier();
    d.fill(2);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(4, FTI_L2));
    world_barrier();
    if (world_rank() == 0) {
        const fs::path l2 = live_file(data_file(4, 0)).parent_path();
        EXPECT_EQ(visible_names(l2), (std::vector<std::string>{"Ckpt4-Pcof0.fti", "Ckpt4-Pcof1.fti", "Ckpt4-Rank0.fti",
                                                               "Ckpt4-Rank1.fti"}));
    }
    world_barrier();
    d.fill(3);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(4, FTI_L2));
    world_barrier();
    if (world_rank() == 0) {
        const fs::path found = live_file(data_file(4, 0));
        EXPECT_EQ(found.parent_path().filename(), "ckpt3") << found;
        EXPECT_EQ(found.parent_path().parent_path().filename(), "l2") << found;
        EXPECT_EQ(visible_names(found.parent_path().parent_path()), (std::vector<std::string>{"ckpt3"}));
    }
    world_barrier();
    // No FTI_Finalize: the checkpoint stays for the restart.
}

// Files carry the names FTI gives them: after the rank in FTI_Init's
// communicator, heads included. FTI's suites pick a node's victims by those
// names; damaged as FTI's L2 "non-adjacent" case damages them (a rank's
// file, and on another node a copy of another rank's file), the checkpoint
// is rebuilt and recovered.
TEST(FtiSemantics, FilesNamedAfterTheRanksOfFtiInit) {
    std::string cfg = config(grouped_options());  // 4 nodes of 2 ranks, one ring per node index
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L2, 1);
    if (world_rank() == 0) {
        const int per_node = app_ranks_expected() / 4;
        std::vector<std::string> expected;
        for (int r = 0; r < per_node; ++r) {
            expected.push_back(data_file(1, r));
            expected.push_back(partner_file(1, r));
        }
        std::sort(expected.begin(), expected.end());
        const fs::path l2 = live_file(data_file(1, 0)).parent_path();
        EXPECT_EQ(visible_names(l2), expected);
        // Rank 0 keeps the copy of its left neighbour in its ring: the rank
        // of its node index on the last node.
        EXPECT_EQ(contents(l2 / partner_file(1, 0)), contents(live_file(data_file(1, 3 * per_node))));
        fs::remove(l2 / data_file(1, 0));
        fs::remove(live_file(partner_file(1, 2 * per_node)));  // on node 2: node 1's file
    }
    world_barrier();
    recover_then_finalize(cfg, 1);
}

}  // namespace
}  // namespace mlckpt::test
