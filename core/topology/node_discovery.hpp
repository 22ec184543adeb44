// Which ranks share a node, from the hardware (local_test = 0).
#pragma once

#include <mpi.h>

#include <vector>

#include "mpi/collective.hpp"

namespace mlckpt::core {

// The ranks of `world` that share this rank's memory (its host).
Communicator host_of(MPI_Comm world);

// Collective over `world`. The node of every world rank, numbered from 0 in
// the order of the nodes' lowest ranks: ranks that share memory (`host`,
// from host_of) share a node.
std::vector<int> discovered_node_map(MPI_Comm world, MPI_Comm host);

}  // namespace mlckpt::core
