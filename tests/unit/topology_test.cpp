#include "topology/topology.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace mlckpt::core {
namespace {

Topology at(int world, int node_size, int group_size, bool head, int rank) {
    return build_topology({simulated_node_map(world, node_size, "c.fti"), node_size, group_size, head, "c.fti"}, rank);
}

TEST(Topology, SimulatedNodesWithoutHeads) {
    // 8 ranks, 2 per node -> 4 nodes; groups of 4 nodes.
    for (int r = 0; r < 8; ++r) {
        Topology t = at(8, 2, 4, false, r);
        EXPECT_EQ(t.nodes, 4);
        EXPECT_EQ(t.node_id, r / 2);
        EXPECT_FALSE(t.is_head);
        EXPECT_EQ(t.app_rank, r);
        EXPECT_EQ(t.app_size, 8);
        EXPECT_EQ(t.node_index, r % 2);
        ASSERT_TRUE(t.groups_valid) << t.groups_problem;
        EXPECT_EQ(t.group_rank, r / 2);
        EXPECT_EQ(t.group_id, r % 2);
        // Group = same node index on each of the 4 nodes, in ring order.
        std::vector<int> expected;
        for (int n = 0; n < 4; ++n) expected.push_back(n * 2 + r % 2);
        EXPECT_EQ(t.group_app_ranks, expected);
        EXPECT_EQ(t.right_app_rank, ((r / 2 + 1) % 4) * 2 + r % 2);
        EXPECT_EQ(t.left_app_rank, ((r / 2 + 3) % 4) * 2 + r % 2);
        // The partner is always on another node.
        EXPECT_NE(t.right_app_rank / 2, t.node_id);
    }
}

TEST(Topology, HeadsAreExcludedFromApplicationRanks) {
    // 12 ranks, 3 per node (1 head + 2 application ranks) -> 4 nodes, 8 app ranks.
    int heads = 0;
    for (int r = 0; r < 12; ++r) {
        Topology t = at(12, 3, 2, true, r);
        EXPECT_EQ(t.app_size, 8);
        EXPECT_EQ(t.app_per_node, 2);
        EXPECT_EQ(t.head_world_rank, (r / 3) * 3);
        if (r % 3 == 0) {
            ++heads;
            EXPECT_TRUE(t.is_head);
            EXPECT_EQ(t.app_rank, -1);
        } else {
            EXPECT_FALSE(t.is_head);
            EXPECT_EQ(t.app_rank, (r / 3) * 2 + (r % 3 - 1));
            EXPECT_EQ(t.app_to_world[static_cast<std::size_t>(t.app_rank)], r);
            EXPECT_EQ(t.node_app_world_ranks, (std::vector<int>{(r / 3) * 3 + 1, (r / 3) * 3 + 2}));
            // Groups of 2 nodes: nodes {0,1} and {2,3}.
            EXPECT_EQ(t.group_app_ranks.size(), 2u);
            EXPECT_EQ(t.right_app_rank, t.left_app_rank);
        }
    }
    EXPECT_EQ(heads, 4);
}

TEST(Topology, DiscoveredNodeMapWithRoundRobinPlacement) {
    // Ranks placed round-robin over 2 nodes: 0,2,4,6 on node 0.
    std::vector<int> map = {0, 1, 0, 1, 0, 1, 0, 1};
    Topology t = build_topology({map, 4, 2, true, "c.fti"}, 2);
    EXPECT_EQ(t.node_id, 0);
    EXPECT_FALSE(t.is_head);
    EXPECT_EQ(t.head_world_rank, 0);
    EXPECT_EQ(t.node_app_world_ranks, (std::vector<int>{2, 4, 6}));
    EXPECT_EQ(t.app_rank, 0);
    Topology h = build_topology({map, 4, 2, true, "c.fti"}, 1);
    EXPECT_TRUE(h.is_head);
}

TEST(Topology, GroupsUnavailableWhenGroupSizeDoesNotDivideNodes) {
    Topology t = at(6, 2, 2, false, 0);  // 3 nodes
    EXPECT_FALSE(t.groups_valid);
    EXPECT_EQ(t.groups_problem, "group_size = 2 does not divide the 3 nodes of the run");
    Topology single = at(2, 2, 4, false, 0);  // 1 node
    EXPECT_EQ(single.groups_problem, "group_size = 4 does not divide the 1 node of the run");
    Topology one = at(4, 2, 1, false, 0);
    EXPECT_FALSE(one.groups_valid);
    EXPECT_NE(one.groups_problem.find("group_size = 1"), std::string::npos);
}

TEST(Topology, SingleRank) {
    Topology t = at(1, 1, 1, false, 0);
    EXPECT_EQ(t.nodes, 1);
    EXPECT_EQ(t.app_size, 1);
    EXPECT_EQ(t.app_rank, 0);
}

TEST(Topology, NodeSizeMustDivideRanks) {
    try {
        simulated_node_map(6, 4, "c.fti");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::config);
        EXPECT_STREQ(e.what(),
                     "c.fti: [basic] node_size = '4': does not divide the 6 ranks of the run "
                     "(local_test = 1 simulates nodes of node_size ranks); allowed: a divisor of 6");
    }
}

TEST(Topology, EveryNodeMustHoldNodeSizeRanks) {
    std::vector<int> map = {0, 0, 0, 1};
    try {
        build_topology({map, 2, 1, false, "c.fti"}, 0);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("node 0 runs 3 ranks"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace mlckpt::core
