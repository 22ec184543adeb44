#include "levels/redundancy.hpp"

#include "mpi/collective.hpp"

namespace mlckpt::core {

GroupMember own_member(const Topology& t, MPI_Comm group) {
    GroupMember m{group,     t.group_rank,    t.group_size,      t.group_id, t.app_rank,
                  t.node_id, t.left_app_rank, t.group_app_ranks, {}};
    for (int app : m.app_ranks) m.nodes.push_back(t.app_node[static_cast<std::size_t>(app)]);
    return m;
}

GroupMember head_member(const Topology& t, MPI_Comm sector, int node_index) {
    const int k = t.group_size;
    const int first_node = (t.node_id / k) * k;
    GroupMember m;
    m.comm = sector;
    m.position = t.node_id % k;
    m.size = k;
    m.group_id = (t.node_id / k) * t.app_per_node + node_index;
    m.app_rank = t.app_rank_of_node(t.node_id, node_index);
    m.node = t.node_id;
    for (int p = 0; p < k; ++p) {
        m.app_ranks.push_back(t.app_rank_of_node(first_node + p, node_index));
        m.nodes.push_back(first_node + p);
    }
    m.left_app_rank = m.app_ranks[static_cast<std::size_t>((m.position + k - 1) % k)];
    return m;
}

std::vector<Holdings> gather_holdings(const GroupMember& m, const Holdings& mine) {
    int flags[2] = {mine.data_ok, mine.redundancy_ok};
    std::vector<int> all(static_cast<std::size_t>(2 * m.size));
    allgather(flags, all.data(), 2, MPI_INT, m.comm, "which files of the group verified");
    std::vector<Holdings> out;
    for (std::size_t i = 0; i < all.size(); i += 2) out.push_back({all[i] != 0, all[i + 1] != 0});
    return out;
}

}  // namespace mlckpt::core
