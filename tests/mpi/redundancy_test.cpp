// L2 (partner copies) and L3 (Reed-Solomon) under node loss and damage:
// simulated nodes of 2 ranks, groups of 4 nodes. Node directories are really
// deleted and files really truncated or overwritten between launches; every
// recovery is compared bit for bit with what was written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "scenario.hpp"
#include "tool_run.hpp"

namespace mlckpt::test {
namespace {

ConfigOptions groups_of_four() {
    ConfigOptions o;
    o.node_size = 2;
    o.group_size = 4;
    return o;
}

// The same with the data verified while FTI_Recover reads it, not at
// FTI_Init ([advanced] verify_at_init = 0): each byte read once.
ConfigOptions groups_of_four_single_read() {
    ConfigOptions o = groups_of_four();
    o.advanced["verify_at_init"] = "0";
    return o;
}

// `mlckpt verify`, run on what the restart is about to find, says what the
// restart then does: the same rule decides both (recovery/restart_rules).
// Where nodes are separate, the others' storage is out of the tool's sight.
void verify_predicts(const std::string& cfg, int level, const std::string& refusal) {
    if (world_rank() != 0 || separate_nodes() != 0) return;
    const ToolRun r = run_tool({"verify", cfg});
    if (refusal.empty()) {
        EXPECT_NE(r.out.find("restart: checkpoint 1 (L" + std::to_string(level)), std::string::npos) << r.out;
    } else {
        EXPECT_NE(r.out.find("restart: no checkpoint"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find(refusal), std::string::npos) << r.out;
    }
}

// Phase 1: checkpoint at `level`; phase 2: lose `nodes`, then recover.
void survives(int level, std::initializer_list<int> nodes) {
    std::string cfg = config(groups_of_four());
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, level, 1);
    delete_nodes(nodes);
    verify_predicts(cfg, level, "");
    recover_then_finalize(cfg, 1);
}

// Phase 2 must fail with an explanation: FTI_LastError holds every piece of
// `error`, and `mlckpt verify`'s report holds `report` (the same text where
// empty).
struct Refusal {
    std::vector<std::string> error;
    std::string report;
};

void does_not_survive(int level, std::initializer_list<int> nodes, const Refusal& refusal) {
    std::string cfg = config(groups_of_four());
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, level, 1);
    delete_nodes(nodes);
    verify_predicts(cfg, level, refusal.report.empty() ? refusal.error.front() : refusal.report);
    if (!start(cfg, FTI_NREC)) return;
    const std::string error = FTI_LastError();
    for (const std::string& piece : refusal.error) EXPECT_NE(error.find(piece), std::string::npos) << error;
    EXPECT_EQ(FTI_Status(), 0);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// L1 keeps nothing beyond the node: the lost node's ranks have nothing to
// restart from, and the restart refuses, naming a file of the lost node,
// instead of starting afresh or recovering the other nodes' ranks alone.
TEST(L1, OneNodeLostIsRefused) {
    does_not_survive(FTI_L1, {1}, {{"cannot open", "/node1/"}, "damaged (missing)"});
}

TEST(L2, NoLoss) {
    survives(FTI_L2, {});
}
TEST(L2, OneNodeLost) {
    survives(FTI_L2, {1});
}
TEST(L2, TwoNonAdjacentNodesLost) {
    survives(FTI_L2, {0, 2});
}
TEST(L2, TwoAdjacentNodesLost) {
    does_not_survive(FTI_L2, {1, 2}, {{"and its partner copy on node 2 are both lost"}, ""});
}

TEST(L3, NoLoss) {
    survives(FTI_L3, {});
}
TEST(L3, OneNodeLost) {
    survives(FTI_L3, {3});
}
TEST(L3, HalfOfTheGroupLost) {
    survives(FTI_L3, {0, 1});
}
TEST(L3, HalfOfTheGroupPlusOneLost) {
    does_not_survive(FTI_L3, {0, 1, 3}, {{"lost 6 of its 8 files"}, ""});
}
// Eight nodes or more, two groups: each group rebuilds its own half.
TEST(L3, HalfOfEachGroupLost) {
    ASSERT_GE(world_size(), 16);
    survives(FTI_L3, {0, 1, 6, 7});
}

// L3 as Reed-Solomon sets ([basic] l3_failures = k): a group of four nodes
// survives any k lost nodes, and refuses k + 1, naming what is lost.
ConfigOptions sets_of_four(int failures) {
    ConfigOptions o = groups_of_four();
    o.basic["l3_failures"] = std::to_string(failures);
    return o;
}

void set_survives(int failures, std::initializer_list<int> nodes) {
    std::string cfg = config(sets_of_four(failures));
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L3, 1);
    delete_nodes(nodes);
    verify_predicts(cfg, FTI_L3, "");
    recover_then_finalize(cfg, 1);
}

void set_refuses(int failures, std::initializer_list<int> nodes) {
    std::string cfg = config(sets_of_four(failures));
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L3, 1);
    delete_nodes(nodes);
    const std::string why = "Reed-Solomon sets of 4 nodes with " + std::to_string(failures) + " parity chunk";
    verify_predicts(cfg, FTI_L3, why);
    if (!start(cfg, FTI_NREC)) return;
    const std::string error = FTI_LastError();
    for (const std::string& piece : {why, std::string("lost the data of rank")}) {
        EXPECT_NE(error.find(piece), std::string::npos) << error;
    }
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(L3Sets, TwoFailuresSurviveTwoLostNodes) {
    set_survives(2, {0, 2});
}
TEST(L3Sets, TwoFailuresSurviveTwoAdjacentLostNodes) {
    set_survives(2, {3, 0});
}
TEST(L3Sets, TwoFailuresRefuseThreeLostNodes) {
    set_refuses(2, {0, 1, 3});
}
TEST(L3Sets, OneFailureSurvivesOneLostNode) {
    set_survives(1, {1});
}
TEST(L3Sets, OneFailureRefusesTwoLostNodes) {
    set_refuses(1, {1, 2});
}
TEST(L3Sets, ThreeFailuresSurviveAllButOneNode) {
    set_survives(3, {0, 1, 3});
}

// Each node keeps k / (n - k) of the set's largest file: with one failure
// in a set of four, a third. A node's file overwritten and its parity
// truncated (one fragment of each stripe) are found and rebuilt bit for bit.
TEST(L3Sets, ParityIsAShareOfTheSetAndDamageIsRepaired) {
    std::string cfg = config(sets_of_four(1));
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L3, 1);
    // The groups: the ranks of each node index (even ranks, odd ranks).
    std::uintmax_t largest[2] = {0, 0};
    for (int rank = 0; rank < world_size(); ++rank) {
        largest[rank % 2] = std::max(largest[rank % 2], fs::file_size(the_file(data_file(1, rank))));
    }
    auto parity = files_matching("Ckpt1-RSed[0-9]+" + ckpt_ext_regex());
    ASSERT_EQ(parity.size(), static_cast<std::size_t>(world_size()));
    for (const fs::path& f : parity) {
        const int holder = std::stoi(f.filename().string().substr(std::string("Ckpt1-RSed").size()));
        EXPECT_EQ(fs::file_size(f), (largest[holder % 2] + 2) / 3) << f;
    }
    std::erase_if(parity, [](const fs::path& f) { return f.string().find("/node0/") == std::string::npos; });
    ASSERT_FALSE(parity.empty());
    const fs::path original = the_file(data_file(1, 0));  // on node 0
    const auto original_size = fs::file_size(original);
    const auto parity_size = fs::file_size(parity.front());
    world_barrier();
    if (world_rank() == 0) {
        overwrite_in_place(original, original_size / 3, 64);
        truncate_file(parity.front(), parity_size / 2);
    }
    world_barrier();
    if (!start(cfg)) return;
    MPI_Barrier(FTI_COMM_WORLD);
    EXPECT_EQ(fs::file_size(parity.front()), parity_size) << "parity rebuilt";
    Dataset d(app_rank());
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// Damage instead of loss: an original overwritten in place on one rank, a
// partner copy or parity file truncated on another; both are detected by
// their checksums and rebuilt, and the data comes back bit for bit.
void repairs_damage(int level) {
    std::string cfg = config(groups_of_four());
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, level, 1);
    std::string redundancy = level == 2 ? "Pcof" : "RSed";
    fs::path original = the_file(data_file(1, 0));  // on node 0
    auto on_node2 = files_matching("Ckpt1-" + redundancy + "[0-9]+" + ckpt_ext_regex());
    std::erase_if(on_node2, [](const fs::path& f) { return f.string().find("/node2/") == std::string::npos; });
    ASSERT_FALSE(on_node2.empty());
    fs::path extra = on_node2.front();
    auto original_size = fs::file_size(original);
    auto extra_size = fs::file_size(extra);
    world_barrier();  // every rank has the sizes before the damage
    if (world_rank() == 0) {
        overwrite_in_place(original, original_size / 3, 64);
        truncate_file(extra, extra_size / 2);
    }
    world_barrier();
    if (!start(cfg)) return;
    MPI_Barrier(FTI_COMM_WORLD);
    EXPECT_EQ(fs::file_size(extra), extra_size) << "redundancy rebuilt";
    Dataset d(app_rank());
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(L2, DamageIsRepaired) {
    repairs_damage(FTI_L2);
}
TEST(L3, DamageIsRepaired) {
    repairs_damage(FTI_L3);
}

// Data is verified while FTI_Recover reads it, so damage of the same size
// shows only then. The checkpoint is then verified whole and the damaged
// file rebuilt from the partner copy or parity: the newest checkpoint
// (version 2) is recovered, not the older L4 one (version 1) a fallback
// would give.
void repairs_damage_found_while_reading(int level) {
    std::string cfg = config(groups_of_four_single_read());
    if (phase() == 1) {
        if (!start(cfg)) return;
        static Dataset d(app_rank());  // the session points at it until the process ends
        d.protect();
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L4));
        d.fill(2);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, level));
        return crash();
    }
    fs::path damaged = the_file(data_file(2, 1));
    auto size = fs::file_size(damaged);
    world_barrier();  // every rank found the file before the damage
    if (world_rank() == 0) overwrite_in_place(damaged, size / 2, 32);
    world_barrier();
    recover_then_finalize(cfg, 2);
}

TEST(L2, DamageFoundWhileReadingIsRepaired) {
    repairs_damage_found_while_reading(FTI_L2);
}
TEST(L3, DamageFoundWhileReadingIsRepaired) {
    repairs_damage_found_while_reading(FTI_L3);
}

// Restart reads partner copies and parity only when a rebuild needs them.
// Then damage in them, even of the same size, shows in the rebuilt file's
// checksum: node 0 is lost and every redundancy file on the other nodes is
// overwritten in place, so the restart refuses with the reason, never
// recovering wrong data.
void damaged_redundancy_is_caught_when_used(int level, const std::string& explanation) {
    std::string cfg = config(groups_of_four_single_read());
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, level, 1);
    std::string redundancy = level == 2 ? "Pcof" : "RSed";
    auto damaged = files_matching("Ckpt1-" + redundancy + "[0-9]+" + ckpt_ext_regex());
    std::erase_if(damaged, [](const fs::path& f) { return f.string().find("/node0/") != std::string::npos; });
    ASSERT_EQ(damaged.size(), 6u) << "two ranks on each of nodes 1..3";
    world_barrier();
    if (world_rank() == 0) {
        for (const fs::path& f : damaged) overwrite_in_place(f, fs::file_size(f) / 2, 100);
    }
    delete_nodes({0});
    if (!start(cfg, FTI_NREC)) return;
    // HDF5 files are checked whole when opened: a damaged partner copy
    // counts as lost before it is used.
    const std::string expected = io_mode() == "5" && level == 2 ? "are both lost" : explanation;
    EXPECT_NE(std::string(FTI_LastError()).find(expected), std::string::npos) << FTI_LastError();
    EXPECT_EQ(FTI_Status(), 0);
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(L2, DamagedCopyIsCaughtWhenUsed) {
    damaged_redundancy_is_caught_when_used(FTI_L2, "arrived with");
}
TEST(L3, DamagedParityIsCaughtWhenUsed) {
    damaged_redundancy_is_caught_when_used(FTI_L3, "does not match its checksum");
}

// Redundancy is regenerated at restart, so the next failure is survivable:
// lose every partner copy / parity file, restart (from the originals), crash
// again; then lose every original and restart from the regenerated redundancy.
void regenerates(int level) {
    std::string cfg = config(groups_of_four());
    std::string redundancy = level == 2 ? "Pcof" : "RSed";
    const auto ranks = static_cast<std::size_t>(app_ranks_expected());
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, level, 1);
    if (phase() == 2) {
        if (world_rank() == 0) {
            auto extra = files_matching("Ckpt1-" + redundancy + "[0-9]+" + ckpt_ext_regex());
            ASSERT_EQ(extra.size(), ranks);
            for (const auto& f : extra) fs::remove(f);
        }
        world_barrier();
        if (!start(cfg)) return;
        MPI_Barrier(FTI_COMM_WORLD);
        EXPECT_EQ(files_matching("Ckpt1-" + redundancy + "[0-9]+" + ckpt_ext_regex()).size(), ranks);
        static Dataset d(app_rank());
        d.protect();
        ASSERT_FTI(FTI_SCES, FTI_Recover());
        EXPECT_TRUE(d.matches(1));
        return crash();  // crash again
    }
    if (world_rank() == 0) {
        auto originals = files_matching("Ckpt1-Rank[0-9]+" + ckpt_ext_regex());
        ASSERT_EQ(originals.size(), ranks);
        for (const auto& f : originals) fs::remove(f);
    }
    world_barrier();
    recover_then_finalize(cfg, 1);
}

// Phase 2 of the rebuild scenarios: rank 0 damages `files` in place,
// keeping their originals; the restart recovers the data, and once an L1
// checkpoint is taken (which supersedes no L2/L3 checkpoint) every file is
// as written again.
void damaged_then_rebuilt(const std::string& cfg, const std::vector<fs::path>& files) {
    const fs::path originals = workdir() / "original-redundancy";
    world_barrier();  // every rank found the files before the damage
    if (world_rank() == 0) {
        fs::create_directories(originals);
        for (const fs::path& f : files) {
            fs::copy_file(f, originals / f.filename(), fs::copy_options::overwrite_existing);
            overwrite_in_place(f, fs::file_size(f) / 2, 64);
        }
    }
    world_barrier();
    if (!start(cfg)) return;
    static Dataset d(app_rank());
    d.protect();
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    EXPECT_TRUE(d.matches(1));
    d.fill(2);
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(2, FTI_L1));
    MPI_Barrier(FTI_COMM_WORLD);
    if (app_rank() == 0) {
        for (const fs::path& f : files) {
            std::ifstream a(originals / f.filename(), std::ios::binary), b(f, std::ios::binary);
            std::string before((std::istreambuf_iterator<char>(a)), {});
            std::string after((std::istreambuf_iterator<char>(b)), {});
            EXPECT_TRUE(before == after) << f << " was not rebuilt";
        }
    }
}

// A partner copy or parity file damaged while the data files are intact,
// with verify_at_init = 0: found after the restart (on the background
// thread) and rebuilt before the next checkpoint, so the checkpoint is
// protected again as its level says.
void damaged_redundancy_is_rebuilt(int level) {
    std::string cfg = config(groups_of_four_single_read());
    std::string redundancy = level == 2 ? "Pcof" : "RSed";
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, level, 1);
    std::vector<fs::path> files = files_matching("Ckpt1-" + redundancy + "[0-9]+" + ckpt_ext_regex());
    std::erase_if(files, [](const fs::path& f) { return f.string().find("/node2/") == std::string::npos; });
    ASSERT_FALSE(files.empty());
    damaged_then_rebuilt(cfg, {files.front()});
    if (session_open()) ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// Every partner copy or parity file of the group damaged in place, the
// data files intact (FTI's "corrupt partner all"): the restart recovers the
// data, the redundancy is rebuilt (at FTI_Init, or before the next
// checkpoint with verify_at_init = 0), and the job goes on checkpointing at
// the same level and finalizes.
void all_redundancy_damaged(int level, bool verify_at_init) {
    std::string cfg = config(verify_at_init ? groups_of_four() : groups_of_four_single_read());
    std::string redundancy = level == 2 ? "Pcof" : "RSed";
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, level, 1);
    std::vector<fs::path> files = files_matching("Ckpt1-" + redundancy + "[0-9]+" + ckpt_ext_regex());
    ASSERT_EQ(files.size(), static_cast<std::size_t>(app_ranks_expected()));
    damaged_then_rebuilt(cfg, files);
    if (!session_open()) return;
    ASSERT_FTI(FTI_DONE, FTI_Checkpoint(3, level));
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

TEST(L2, EveryCopyDamagedIsRebuilt) {
    all_redundancy_damaged(FTI_L2, true);
}
TEST(L3, EveryParityDamagedIsRebuilt) {
    all_redundancy_damaged(FTI_L3, true);
}
TEST(L2, EveryCopyDamagedIsRebuiltWithSingleRead) {
    all_redundancy_damaged(FTI_L2, false);
}
TEST(L3, EveryParityDamagedIsRebuiltWithSingleRead) {
    all_redundancy_damaged(FTI_L3, false);
}

TEST(L2, DamagedCopyIsRebuiltAfterTheRestart) {
    damaged_redundancy_is_rebuilt(FTI_L2);
}
TEST(L3, DamagedParityIsRebuiltAfterTheRestart) {
    damaged_redundancy_is_rebuilt(FTI_L3);
}

TEST(L2, RedundancyIsRegenerated) {
    regenerates(FTI_L2);
}
TEST(L3, RedundancyIsRegenerated) {
    regenerates(FTI_L3);
}

// A rank killed while the redundancy of checkpoint 2 is being made: the
// relaunch recovers checkpoint 1.
// With heads the new checkpoint is committed before the head works on it,
// so the relaunch recovers it (and makes its redundancy, recorded in its
// metadata so that a later node loss is survivable).
void killed_during_redundancy(int level) {
    std::string cfg = config(groups_of_four());
    if (phase() == 1) {
        // Set in every process before FTI_Init: in head mode a head dies.
        std::string spec = "during_redundancy:" + std::to_string(app_ranks_expected() - 1) + ":2";
        ::setenv("MLCKPT_FAULT_INJECT", spec.c_str(), 1);
        if (!start(cfg)) return;
        Dataset d(app_rank());
        d.protect();
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, level));
        mark("first-checkpoint-done");
        d.fill(2);
        FTI_Checkpoint(2, level);
        if (promoted_after_commit()) FTI_Finalize();  // waits for the head or the worker, which dies
        ADD_FAILURE() << "a process should have been killed";
        return;
    }
    const int version = promoted_after_commit() ? 2 : 1;
    if (phase() == 2) {
        // Recovers, rebuilding (in head mode: making for the first time) the
        // redundancy of that checkpoint, then crashes again.
        ASSERT_TRUE(marked("first-checkpoint-done"));
        if (!start(cfg)) return;
        static Dataset d(app_rank());
        d.protect();
        ASSERT_FTI(FTI_SCES, FTI_Recover());
        EXPECT_TRUE(d.matches(version));
        return crash();
    }
    // The rebuilt redundancy was recorded: it now survives the loss of a node.
    delete_nodes({1});
    recover_then_finalize(cfg, version);
}

TEST(L2, KilledWhileCopying) {
    killed_during_redundancy(FTI_L2);
}
TEST(L3, KilledWhileEncoding) {
    killed_during_redundancy(FTI_L3);
}

// A whole node's files lost where one rank wrote an empty file: padding and
// zero sizes survive encoding and decoding.
TEST(L3, EmptyFileOnALostNode) {
    std::string cfg = config(groups_of_four());
    if (phase() == 2) delete_nodes({1});
    ASSERT_FTI(FTI_SCES, FTI_Init(cfg.c_str(), MPI_COMM_WORLD));
    Dataset d(app_rank());
    const bool empty = app_rank() == 2;  // on node 1
    if (empty) {
        ASSERT_FTI(FTI_SCES, FTI_Protect(4, nullptr, 0, FTI_DBLE));
    } else {
        d.protect();
    }
    if (phase() == 1) {
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L3));
        return;
    }
    EXPECT_EQ(FTI_Status(), 1);
    ASSERT_FTI(FTI_SCES, FTI_Recover());
    if (!empty) {
        EXPECT_TRUE(d.matches(1));
    }
    ASSERT_FTI(FTI_SCES, FTI_Finalize());
}

// L4, written directly or (head mode) committed at L1 and flushed by the
// heads: every node-local directory can go.
TEST(L4, SurvivesTheLossOfEveryNode) {
    std::string cfg = config(groups_of_four());
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L4, 1);
    // Only L4 files count: in head mode the L1 files that the flush made
    // redundant are removed in the background, and the crash may come
    // before they are all gone (FTI_Init removes the rest). A file per
    // rank, or the one shared file (ckpt_io 2 and 4).
    std::set<std::string> expected;
    for (int r = 0; r < app_ranks_expected(); ++r) expected.insert(l4_file(1, r));
    auto l4 = files_below(global_dir(), [&](const fs::path& f) { return expected.count(f.filename().string()) > 0; });
    EXPECT_EQ(l4.size(), expected.size());
    world_barrier();  // everybody has looked before rank 0 deletes
    delete_every_node();
    recover_then_finalize(cfg, 1);
}

// The extremes of group_size: rings of 2 nodes, and Reed-Solomon over 16
// nodes (one rank each) that loses 8 of them.
TEST(L2, GroupOfTwo) {
    ConfigOptions o;
    o.node_size = 2;
    o.group_size = 2;
    std::string cfg = config(o);
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L2, 1);
    delete_nodes({1});
    recover_then_finalize(cfg, 1);
}

TEST(L3, GroupOfSixteenLosesHalf) {
    ConfigOptions o;
    o.node_size = 1;
    o.group_size = 16;
    std::string cfg = config(o);
    if (phase() == 1) return checkpoint_then_crash(cfg, 1, FTI_L3, 1);
    delete_nodes({0, 2, 4, 6, 8, 10, 12, 14});
    recover_then_finalize(cfg, 1);
}

// keep_last_ckpt flushes an L3 checkpoint to L4 at Finalize.
TEST(L3, KeptAtFinalizeFromL3) {
    ConfigOptions o = groups_of_four();
    o.basic["keep_last_ckpt"] = "1";
    std::string cfg = config(o);
    if (phase() == 1) {
        if (!start(cfg)) return;
        Dataset d(app_rank());
        d.protect();
        d.fill(1);
        ASSERT_FTI(FTI_DONE, FTI_Checkpoint(1, FTI_L3));
        ASSERT_FTI(FTI_SCES, FTI_Finalize());
        return;
    }
    if (world_rank() == 0) fs::remove_all(local_dir());
    world_barrier();
    recover_then_finalize(cfg, 1, 2);
}

}  // namespace
}  // namespace mlckpt::test
