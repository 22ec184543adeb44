// The loss rule of L3 as Reed-Solomon sets (levels/set_parity.cpp), which a
// restart and `mlckpt verify` apply: a set survives any k lost nodes, and
// k + 1 are refused with what was lost named. Collective encoding and repair
// are the MPI scenarios' (tests/mpi/redundancy_test.cpp, L3Sets).
#include <gtest/gtest.h>

#include <initializer_list>
#include <set>

#include "levels/redundancy.hpp"

namespace mlckpt::core {
namespace {

GroupView set_of(int n) {
    GroupView g;
    g.group_id = 3;
    for (int i = 0; i < n; ++i) {
        g.app_ranks.push_back(10 + i);
        g.nodes.push_back(100 + i);
    }
    return g;
}

// Every member's holdings with the nodes `lost` gone (their data and parity).
std::vector<Holdings> with_nodes_lost(int n, std::initializer_list<int> lost) {
    const std::set<int> gone(lost);
    std::vector<Holdings> held;
    for (int i = 0; i < n; ++i) held.push_back({!gone.contains(i), !gone.contains(i)});
    return held;
}

TEST(SetParity, SurvivesAnyKLostNodes) {
    for (int k = 1; k < 8; ++k) {
        const Redundancy* sets = set_parity(k);
        ASSERT_NE(sets, nullptr);
        // k distinct nodes of a set of 8, from each start, 3 apart.
        for (int start = 0; start < 8; ++start) {
            std::vector<Holdings> held = with_nodes_lost(8, {});
            for (int i = 0; i < k; ++i) held[static_cast<std::size_t>((start + 3 * i) % 8)] = {false, false};
            EXPECT_FALSE(sets->loss_beyond_repair(set_of(8), held)) << "k=" << k << " start " << start;
        }
    }
}

TEST(SetParity, RefusesKPlusOneLostNodesNamingThem) {
    const auto why = set_parity(2)->loss_beyond_repair(set_of(4), with_nodes_lost(4, {0, 1, 3}));
    ASSERT_TRUE(why);
    for (const char* piece : {"L3 group 3", "rank 10 (node 100)", "rank 13 (node 103)", "parity on node 100",
                              "Reed-Solomon sets of 4 nodes with 2 parity chunks", "survive the loss of 2 nodes"}) {
        EXPECT_NE(why->find(piece), std::string::npos) << piece << " in " << *why;
    }
}

TEST(SetParity, CountsLostFragmentsPerStripe) {
    // k = 1, n = 4: one node's data and another's parity are two fragments
    // of some stripe only if the parity is of a stripe the data is in.
    const Redundancy* xor_like = set_parity(1);
    std::vector<Holdings> held = with_nodes_lost(4, {});
    held[0].data_ok = false;
    held[0].redundancy_ok = false;  // node 0 lost: one fragment of every stripe
    EXPECT_FALSE(xor_like->loss_beyond_repair(set_of(4), held));
    held[2].redundancy_ok = false;  // node 2's parity is of stripe 2, where node 0 holds data
    EXPECT_TRUE(xor_like->loss_beyond_repair(set_of(4), held));
    held = with_nodes_lost(4, {});
    held[1].redundancy_ok = false;  // parity of stripe 1 only
    held[2].redundancy_ok = false;  // parity of stripe 2 only
    EXPECT_FALSE(xor_like->loss_beyond_repair(set_of(4), held)) << "two stripes, one fragment each";
}

TEST(SetParity, GroupsTooSmallAreNamed) {
    const auto why = set_parity(3)->loss_beyond_repair(set_of(3), with_nodes_lost(3, {}));
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("too few"), std::string::npos) << *why;
    EXPECT_EQ(set_parity(0), nullptr);
    EXPECT_EQ(set_parity(kMaxParityGroup), nullptr);
}

TEST(SetParity, SchemesChooseTheirRedundancy) {
    EXPECT_EQ(redundancy_of(RedundancyScheme{GroupRedundancy::reed_solomon, 2}), set_parity(2));
    EXPECT_STREQ(redundancy_of(RedundancyScheme{GroupRedundancy::reed_solomon, 0})->name(), "Reed-Solomon");
    EXPECT_STREQ(redundancy_of(RedundancyScheme{GroupRedundancy::partner_copy, 0})->name(), "partner copy");
    EXPECT_EQ(redundancy_of(RedundancyScheme{GroupRedundancy::none, 0}), nullptr);
    CheckpointMeta meta;
    meta.level = kL3;
    meta.set_failures = 1;
    EXPECT_EQ(redundancy_of(meta), set_parity(1)) << "a checkpoint's metadata says how its parity was made";
}

}  // namespace
}  // namespace mlckpt::core
