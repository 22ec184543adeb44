#include "topology/node_discovery.hpp"

#include <algorithm>

namespace mlckpt::core {

Communicator host_of(MPI_Comm world) {
    int rank = 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm host = MPI_COMM_NULL;
    check_mpi(MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &host), "MPI_Comm_split_type");
    return Communicator(host);
}

std::vector<int> discovered_node_map(MPI_Comm world, MPI_Comm host) {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    int leader = rank;
    check_mpi(MPI_Bcast(&leader, 1, MPI_INT, 0, host), "MPI_Bcast");
    std::vector<int> leaders(static_cast<std::size_t>(size));
    check_mpi(MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, world), "MPI_Allgather");
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
