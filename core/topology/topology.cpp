#include "topology/topology.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "common/plural.hpp"

namespace mlckpt::core {

namespace {

std::vector<std::vector<int>> ranks_by_node(const std::vector<int>& node_of_rank, int nodes) {
    std::vector<std::vector<int>> by_node(static_cast<std::size_t>(nodes));
    for (std::size_t r = 0; r < node_of_rank.size(); ++r) {
        by_node[static_cast<std::size_t>(node_of_rank[r])].push_back(static_cast<int>(r));
    }
    return by_node;
}

void assign_groups(Topology& t, int group_size) {
    t.group_size = group_size;
    if (t.nodes % group_size != 0) {
        t.groups_problem = "group_size = " + std::to_string(group_size) + " does not divide the " +
                           plural(static_cast<std::size_t>(t.nodes), "node") + " of the run";
        return;
    }
    if (group_size < 2) {
        t.groups_problem =
            "group_size = 1: partner copies and parity need groups of at least 2 "
            "nodes";
        return;
    }
    t.groups_valid = true;
    if (t.is_head) return;
    int sector = t.node_id / group_size;
    t.group_rank = t.node_id % group_size;
    t.group_id = sector * t.app_per_node + t.node_index;
    for (int k = 0; k < group_size; ++k) {
        t.group_app_ranks.push_back(t.app_rank_of_node(sector * group_size + k, t.node_index));
    }
    auto at = [&](int pos) { return t.group_app_ranks[static_cast<std::size_t>((pos + group_size) % group_size)]; };
    t.left_app_rank = at(t.group_rank - 1);
    t.right_app_rank = at(t.group_rank + 1);
}

}  // namespace

int Topology::app_rank_of_node(int node, int index) const {
    return node_app_ranks[static_cast<std::size_t>(node)][static_cast<std::size_t>(index)];
}

std::vector<int> simulated_node_map(int world_size, int node_size, const std::string& config_path) {
    if (world_size % node_size != 0) {
        fail(ErrorKind::config, config_path + ": [basic] node_size = '" + std::to_string(node_size) +
                                    "': does not divide the " + plural(static_cast<std::size_t>(world_size), "rank") +
                                    " of the run (local_test = 1 simulates nodes of node_size ranks); "
                                    "allowed: a divisor of " +
                                    std::to_string(world_size));
    }
    std::vector<int> map(static_cast<std::size_t>(world_size));
    for (int r = 0; r < world_size; ++r) map[static_cast<std::size_t>(r)] = r / node_size;
    return map;
}

Topology build_topology(const TopologyInput& in, int world_rank) {
    Topology t;
    t.world_size = static_cast<int>(in.node_of_rank.size());
    t.world_rank = world_rank;
    t.nodes = in.node_of_rank.empty() ? 0 : *std::max_element(in.node_of_rank.begin(), in.node_of_rank.end()) + 1;
    t.node_id = in.node_of_rank.at(static_cast<std::size_t>(world_rank));

    auto by_node = ranks_by_node(in.node_of_rank, t.nodes);
    for (int n = 0; n < t.nodes; ++n) {
        int count = static_cast<int>(by_node[static_cast<std::size_t>(n)].size());
        if (count != in.node_size) {
            fail(ErrorKind::config, in.config_path + ": [basic] node_size = '" + std::to_string(in.node_size) +
                                        "': node " + std::to_string(n) + " runs " + std::to_string(count) +
                                        " ranks; allowed: the number of ranks on every node");
        }
    }

    // Application ranks keep the order of the world ranks, as FTI_COMM_WORLD
    // is split with the world rank as key; heads are the lowest world rank of
    // each node.
    t.app_per_node = in.node_size - (in.head ? 1 : 0);
    t.app_size = t.app_per_node * t.nodes;
    std::vector<bool> is_head_rank(static_cast<std::size_t>(t.world_size), false);
    if (in.head) {
        for (const auto& ranks : by_node) is_head_rank[static_cast<std::size_t>(ranks.front())] = true;
    }
    t.node_app_ranks.assign(static_cast<std::size_t>(t.nodes), {});
    for (int r = 0; r < t.world_size; ++r) {
        if (is_head_rank[static_cast<std::size_t>(r)]) continue;
        int app = static_cast<int>(t.app_to_world.size());
        t.app_to_world.push_back(r);
        t.app_node.push_back(in.node_of_rank[static_cast<std::size_t>(r)]);
        t.node_app_ranks[static_cast<std::size_t>(in.node_of_rank[static_cast<std::size_t>(r)])].push_back(app);
        if (r == world_rank) t.app_rank = app;
    }
    const auto& mine = by_node[static_cast<std::size_t>(t.node_id)];
    t.head_world_rank = in.head ? mine.front() : -1;
    t.is_head = in.head && world_rank == mine.front();
    t.node_app_world_ranks.assign(mine.begin() + (in.head ? 1 : 0), mine.end());
    const auto& node_apps = t.node_app_ranks[static_cast<std::size_t>(t.node_id)];
    auto pos = std::find(node_apps.begin(), node_apps.end(), t.app_rank);
    t.node_index = t.is_head ? -1 : static_cast<int>(pos - node_apps.begin());

    assign_groups(t, in.group_size);
    return t;
}

}  // namespace mlckpt::core
