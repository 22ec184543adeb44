// The separate nodes of the "multinode" scenarios are real enough to catch a
// library that reaches another node's storage: each node has its own
// hostname and shared-memory domain, and its own local storage that the
// other nodes' processes do not see (tests/support/node_agent.sh).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "scenario.hpp"

namespace mlckpt::test {
namespace {

TEST(SeparateNodes, EachNodeHasItsOwnNameAndStorage) {
    const int nodes = separate_nodes();
    ASSERT_GT(nodes, 1) << "registered with NODES";
    const int per_node = world_size() / nodes;
    const int my_node = world_rank() / per_node;  // the launch fills the nodes in rank order

    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    MPI_Get_processor_name(name, &length);
    std::vector<char> all(static_cast<std::size_t>(world_size()) * MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
    std::set<std::string> names;
    for (int r = 0; r < world_size(); ++r) {
        const std::string other(&all[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
        names.insert(other);
        EXPECT_EQ(other == name, r / per_node == my_node) << "rank " << r << " runs on " << other;
    }
    EXPECT_EQ(names.size(), static_cast<std::size_t>(nodes));

    MPI_Comm host = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank(), MPI_INFO_NULL, &host);
    int host_size = 0;
    MPI_Comm_size(host, &host_size);
    MPI_Comm_free(&host);
    EXPECT_EQ(host_size, per_node) << "one shared-memory domain per node";

    // Each rank leaves a mark in the node-local path; each node sees its own
    // ranks' marks there and no other's.
    fs::create_directories(local_dir());
    std::ofstream(local_dir() / ("mark-" + std::to_string(world_rank()))) << name;
    MPI_Barrier(MPI_COMM_WORLD);
    std::set<std::string> seen;
    for (const fs::directory_entry& e : fs::directory_iterator(local_dir())) seen.insert(e.path().filename());
    std::set<std::string> expected;
    for (int r = my_node * per_node; r < (my_node + 1) * per_node; ++r) expected.insert("mark-" + std::to_string(r));
    EXPECT_EQ(seen, expected) << "the node-local path of node " << my_node;
    MPI_Barrier(MPI_COMM_WORLD);
}

}  // namespace
}  // namespace mlckpt::test
