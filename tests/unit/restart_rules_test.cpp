// The rules a restart chooses its checkpoint by (recovery/restart_rules),
// which the selector applies over the ranks and `mlckpt verify` over the
// files it finds: the groups read from a checkpoint's metadata are the
// topology's, and each level's loss rule refuses exactly what its repair
// cannot rebuild. The restarts themselves: tests/mpi/redundancy_test.cpp,
// which runs the tool on the same losses.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "common/error.hpp"
#include "levels/redundancy.hpp"
#include "recovery/restart_rules.hpp"
#include "topology/topology.hpp"

namespace mlckpt::core {
namespace {

// The metadata of a checkpoint at `level` by `nodes` nodes of `node_size`
// ranks (one of them a head with `head`), with its redundancy recorded.
CheckpointMeta meta_of(int level, int nodes, int node_size, int group_size, bool head) {
    CheckpointMeta m;
    m.level = level;
    m.node_size = node_size;
    m.group_size = group_size;
    const int per_node = node_size - (head ? 1 : 0);
    m.ranks = nodes * per_node;
    for (int rank = 0; rank < m.ranks; ++rank) {
        FileRecord f;
        f.rank = f.holder = rank;
        f.node = rank / per_node;
        f.type = "FULL";
        m.files.push_back(f);
        f.type = level == 2 ? "PARTNER" : "PARITY";
        m.redundancy.push_back(f);
    }
    return m;
}

TEST(RestartRules, GroupsReadFromTheMetadataAreTheTopologys) {
    for (bool head : {false, true}) {
        const int nodes = 8, node_size = 3, group_size = 4;
        const CheckpointMeta m = meta_of(2, nodes, node_size, group_size, head);
        const std::vector<GroupView> groups = groups_of(m);
        TopologyInput in;
        in.node_size = node_size;
        in.group_size = group_size;
        in.head = head;
        in.node_of_rank = simulated_node_map(nodes * node_size, node_size, "test");
        std::set<int> seen;
        for (int world = 0; world < nodes * node_size; ++world) {
            const Topology t = build_topology(in, world);
            if (t.is_head) continue;
            ASSERT_TRUE(t.groups_valid);
            auto g = std::find_if(groups.begin(), groups.end(),
                                  [&](const GroupView& v) { return v.group_id == t.group_id; });
            ASSERT_NE(g, groups.end()) << "group " << t.group_id;
            EXPECT_EQ(g->app_ranks, t.group_app_ranks) << "group " << t.group_id;
            EXPECT_EQ(g->nodes[static_cast<std::size_t>(t.group_rank)], t.node_id);
            seen.insert(t.group_id);
        }
        EXPECT_EQ(seen.size(), groups.size());
    }
}

TEST(RestartRules, NodesThatCannotFormTheGroupsAreNamed) {
    CheckpointMeta m = meta_of(3, 8, 2, 4, false);
    m.group_size = 3;
    try {
        groups_of(m);
        FAIL() << "8 nodes in groups of 3";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("do not form its groups"), std::string::npos) << e.what();
    }
    m = meta_of(3, 8, 2, 4, false);
    m.files.pop_back();
    m.redundancy.pop_back();
    EXPECT_THROW(groups_of(m), Error);  // rank 15's node is unknown
    // A hostile rank count is refused before anything is sized by it.
    m = meta_of(3, 8, 2, 4, false);
    m.ranks = 2'000'000'000;
    EXPECT_THROW(groups_of(m), Error);
}

// Nodes lost: their ranks' files and the redundancy they keep.
std::optional<std::string> loss(const CheckpointMeta& m, std::set<int> lost_nodes) {
    auto sound = [&](int rank) { return lost_nodes.count(m.files[static_cast<std::size_t>(rank)].node) == 0; };
    return grouped_loss_beyond_repair(m, sound, sound);
}

TEST(RestartRules, PartnerCopiesSurviveNodesThatAreNotNeighbours) {
    const CheckpointMeta m = meta_of(2, 8, 2, 4, false);
    EXPECT_FALSE(loss(m, {}));
    EXPECT_FALSE(loss(m, {1}));
    EXPECT_FALSE(loss(m, {0, 2}));
    EXPECT_FALSE(loss(m, {1, 3, 4, 6}));
    const std::optional<std::string> adjacent = loss(m, {1, 2});
    ASSERT_TRUE(adjacent);
    EXPECT_NE(adjacent->find("the file of rank 2 on node 1 and its partner copy on node 2 are both lost"),
              std::string::npos)
        << *adjacent;
    ASSERT_TRUE(loss(m, {3, 4, 5}));  // 4 and 5: neighbours in the second group
    EXPECT_TRUE(loss(m, {3, 0}));     // 3 and 0: neighbours around the ring
}

TEST(RestartRules, ParityToleratesHalfOfEachGroup) {
    const CheckpointMeta m = meta_of(3, 8, 2, 4, false);
    EXPECT_FALSE(loss(m, {0, 1}));
    EXPECT_FALSE(loss(m, {0, 1, 6, 7}));
    const std::optional<std::string> three = loss(m, {0, 1, 3});
    ASSERT_TRUE(three);
    EXPECT_NE(three->find("lost 6 of its 8 files"), std::string::npos) << *three;
    // A lost parity file counts as much as lost data.
    // Group 0 is ranks 0, 2, 4 and 6: two data files lost, then three parity files more.
    auto data_sound = [](int rank) { return rank != 0 && rank != 6; };
    auto parity_sound = [](int rank) { return rank != 0 && rank != 2 && rank != 4; };
    EXPECT_FALSE(grouped_loss_beyond_repair(m, data_sound, [](int) { return true; }));
    EXPECT_TRUE(grouped_loss_beyond_repair(m, data_sound, parity_sound));
}

TEST(RestartRules, ACheckpointFitsTheRunThatRestartsIt) {
    const CheckpointMeta m = meta_of(2, 8, 2, 4, false);
    EXPECT_FALSE(misfit(m, RunShape{16, 2, 4}));
    EXPECT_FALSE(misfit(m, RunShape{std::nullopt, 2, 4}));
    ASSERT_TRUE(misfit(m, RunShape{8, 2, 4}));
    EXPECT_NE(misfit(m, RunShape{8, 2, 4})->find("restart with the same number of ranks"), std::string::npos);
    EXPECT_TRUE(misfit(m, RunShape{16, 4, 4}));
    EXPECT_TRUE(misfit(m, RunShape{16, 2, 2}));
    EXPECT_TRUE(misfit(m, RunShape{16, 2, 4, false}));
    // Without redundancy the groups do not matter.
    const CheckpointMeta l4 = meta_of(4, 8, 2, 4, false);
    EXPECT_FALSE(misfit(l4, RunShape{16, 4, 2}));
}

TEST(RestartRules, NewestFirstThenLowestLevel) {
    std::vector<CheckpointRef> refs = {{1, 4, 1, false}, {2, 1, 2, false}, {2, 4, 2, false}, {3, 2, 3, false}};
    std::sort(refs.begin(), refs.end(), tried_before);
    EXPECT_EQ(refs[0].seq, 3u);
    EXPECT_EQ(refs[1].seq, 2u);
    EXPECT_EQ(refs[1].level, 1);
    EXPECT_EQ(refs[2].level, 4);
    EXPECT_EQ(refs[3].seq, 1u);
}

}  // namespace
}  // namespace mlckpt::core
