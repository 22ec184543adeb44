#include "topology/node_discovery.hpp"

#include <algorithm>

namespace mlckpt::core {

Communicator host_of(MPI_Comm world) {
    int rank = 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm host = MPI_COMM_NULL;
    barrier(world, "every rank before the ranks of each host are found");  // no nonblocking split: see split_comm
    check_mpi(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host), "MPI_Comm_split_type");
    MPI_Comm_set_name(host, "the ranks of a host");
    return Communicator(host);
}

std::vector<int> discovered_node_map(MPI_Comm world, MPI_Comm host) {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    int leader = rank;
    bcast(&leader, 1, MPI_INT, 0, host, "the first rank of the host");
    std::vector<int> leaders(static_cast<std::size_t>(size));
    allgather(&leader, leaders.data(), 1, MPI_INT, world, "the first rank of every host");
    std::vector<int> sorted = leaders;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    std::vector<int> map(leaders.size());
    for (std::size_t r = 0; r < leaders.size(); ++r) {
        map[r] = static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), leaders[r]) - sorted.begin());
    }
    return map;
}

}  // namespace mlckpt::core
