// Roles of every rank: nodes, heads, application ranks, and the groups and
// partner rings that L2 and L3 use. Pure computation, no MPI.
#pragma once

#include <string>
#include <vector>

namespace mlckpt::core {

struct TopologyInput {
    std::vector<int> node_of_rank;  // world rank -> node id (0..nodes-1)
    int node_size = 1;              // ranks per node, heads included
    int group_size = 1;             // nodes per group
    bool head = false;              // one head rank per node
    std::string config_path;        // for error messages
};

struct Topology {
    int world_size = 0;
    int world_rank = 0;
    int nodes = 0;
    int node_id = 0;

    bool is_head = false;
    int head_world_rank = -1;  // of my node; -1 without heads
    int app_size = 0;          // application ranks in total
    int app_rank = -1;         // rank in FTI_COMM_WORLD (world order, heads skipped); -1 for heads
    int app_per_node = 0;
    int node_index = -1;                           // my index among the application ranks of my node
    std::vector<int> node_app_world_ranks;         // world ranks of my node's application ranks
    std::vector<int> app_to_world;                 // application rank -> world rank
    std::vector<std::vector<int>> node_app_ranks;  // node -> its application ranks, ascending
    std::vector<int> app_node;                     // application rank -> node

    // Groups: group_size nodes each; one group per node index within them.
    bool groups_valid = false;
    std::string groups_problem;  // why groups are unavailable, when they are
    int group_size = 0;
    int group_id = -1;
    int group_rank = -1;               // position of my node in the group ring
    std::vector<int> group_app_ranks;  // application ranks of the group, ring order
    int left_app_rank = -1;            // previous node in the ring, same node index
    int right_app_rank = -1;           // next node in the ring: my partner

    int app_rank_of_node(int node, int index) const;
};

// Local-test node map: node = rank / node_size. Throws a config Error when
// node_size does not divide the number of ranks.
std::vector<int> simulated_node_map(int world_size, int node_size, const std::string& config_path);

// Throws a config Error when a node does not hold exactly node_size ranks.
Topology build_topology(const TopologyInput& input, int world_rank);

}  // namespace mlckpt::core
