// Everything a collective step needs: configuration, topology, layout, log,
// the library's own communicator over the application ranks, and the
// catalog of committed checkpoints.
#pragma once

#include <mpi.h>

#include "config/config.hpp"
#include "log/log.hpp"
#include "runtime/catalog.hpp"
#include "storage/layout.hpp"
#include "topology/topology.hpp"

namespace mlckpt::core {

struct Context {
    Config config;
    Topology topo;
    StorageLayout layout;
    Logger log;
    MPI_Comm app = MPI_COMM_NULL;  // library traffic among application ranks
    Catalog catalog;
    // Whether the configuration file already says "restart" (failure = 1).
    bool restart_recorded = false;

    int rank() const { return topo.app_rank; }
    std::size_t io_buffer_bytes() const {
        return static_cast<std::size_t>(config.block_size_kb) * 1024;
    }
    // Path of this rank's data file of a checkpoint written on `node`.
    fs::path data_path(const CheckpointRef& ref, int node) const {
        return layout.ckpt_dir(ref.level, ref.seq, node) /
               StorageLayout::data_file_name(ref.ckpt_id, rank());
    }
};

}  // namespace mlckpt::core
