#include "levels/redundancy.hpp"

#include <map>

#include "common/error.hpp"
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

std::vector<GroupView> groups_of(const CheckpointMeta& meta) {
    auto refuse = [](const std::string& why) {
        fail(ErrorKind::corrupt, "the nodes the metadata records do not form its groups: " + why);
    };
    const int k = meta.group_size;
    if (k < 1 || meta.ranks < 1) {
        refuse("it gives group_size = " + std::to_string(k) + " for " + std::to_string(meta.ranks) + " ranks");
    }
    // Every rank is placed by a record: more ranks than records is a
    // damaged count, never a table to allocate.
    if (static_cast<std::size_t>(meta.ranks) > meta.files.size() + meta.redundancy.size()) {
        refuse("it gives " + std::to_string(meta.ranks) + " ranks and records " +
               std::to_string(meta.files.size() + meta.redundancy.size()) + " files");
    }
    // Each rank's node: where its files are, else where it keeps its
    // redundancy; the application ranks of a node in rank order.
    std::vector<int> node_of(static_cast<std::size_t>(meta.ranks), -1);
    auto place = [&](int rank, int node) {
        if (rank >= 0 && rank < meta.ranks && node_of[static_cast<std::size_t>(rank)] < 0)
            node_of[static_cast<std::size_t>(rank)] = node;
    };
    for (const FileRecord& f : meta.files) place(f.rank, f.node);
    for (const FileRecord& r : meta.redundancy) place(r.holder, r.node);
    std::map<int, std::vector<int>> ranks_on;
    for (int rank = 0; rank < meta.ranks; ++rank) {
        const int node = node_of[static_cast<std::size_t>(rank)];
        if (node < 0) refuse("it records no file of rank " + std::to_string(rank));
        ranks_on[node].push_back(rank);
    }
    const int nodes = static_cast<int>(ranks_on.size());
    const std::size_t per_node = ranks_on.begin()->second.size();
    if (ranks_on.rbegin()->first != nodes - 1 || nodes % k != 0) {
        refuse(std::to_string(nodes) + " nodes numbered up to " + std::to_string(ranks_on.rbegin()->first) +
               ", in groups of " + std::to_string(k));
    }
    for (const auto& [node, ranks] : ranks_on) {
        if (ranks.size() != per_node) {
            refuse("node " + std::to_string(node) + " has " + std::to_string(ranks.size()) + " ranks, node 0 " +
                   std::to_string(per_node));
        }
    }
    std::vector<GroupView> groups;
    for (int sector = 0; sector < nodes / k; ++sector) {
        for (std::size_t index = 0; index < per_node; ++index) {
            GroupView g;
            g.group_id = sector * static_cast<int>(per_node) + static_cast<int>(index);
            for (int p = 0; p < k; ++p) {
                g.app_ranks.push_back(ranks_on[sector * k + p][index]);
                g.nodes.push_back(sector * k + p);
            }
            groups.push_back(std::move(g));
        }
    }
    return groups;
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
