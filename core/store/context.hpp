// Everything a collective step needs: configuration, topology, layout, log,
// the library's own communicator over the application ranks, and the
// catalog of committed checkpoints.
#pragma once

#include <mpi.h>

#include <memory>

#include "config/config.hpp"
#include "config/levels.hpp"
#include "io/background_work.hpp"
#include "levels/redundancy.hpp"
#include "log/log.hpp"
#include "mpi/collective.hpp"
#include "storage/layout.hpp"
#include "store/catalog.hpp"
#include "topology/cpu_share.hpp"
#include "topology/topology.hpp"

namespace mlckpt::core {

struct Context {
    // Read once, never changed: behaviour is steered by arguments, not by
    // changing the configuration.
    const Config config;
    const Levels levels;  // what the configuration makes of each level
    Topology topo;
    StorageLayout layout;
    Logger log;
    MPI_Comm app = MPI_COMM_NULL;    // library traffic among application ranks
    MPI_Comm group = MPI_COMM_NULL;  // this rank's L2/L3 group, ranked by ring position
    Catalog catalog;
    // Whether the configuration file already says "restart" (failure = 1).
    bool restart_recorded = false;
    // The first sequence number this run commits, once FTI_Init loaded the
    // catalog (0 before, and on heads): the checkpoints below it are earlier
    // runs', whose L4 differential files may have other names (DcpNames).
    std::uint64_t run_first_seq = 0;
    // Removes retired checkpoints and applies L4 differential journals while
    // the application goes on; drained before the next checkpoint writes
    // anything (but the removals that checkpoint's own call queued) and at
    // FTI_Finalize.
    std::unique_ptr<BackgroundWork> background = std::make_unique<BackgroundWork>();
    // ckpt_io = 4: the alignment of container chunks, [advanced]
    // container_block_size or, when that is 0, glbl_dir's block size (read
    // once at FTI_Init: Session).
    int container_block_size = 0;
    // The CPUs this rank may keep busy without taking one from another rank
    // of its host: threads for passes over the protected data.
    CpuShare cpu_share{};

    int rank() const { return topo.app_rank; }
    // What the L2/L3 work needs of the run.
    RedundancyIo redundancy_io() const { return {&layout, config.ckpt_tag, io_buffer_bytes()}; }
    std::size_t io_buffer_bytes() const { return static_cast<std::size_t>(config.block_size_kb) * 1024; }
    // Path of the data file of application rank `owner` kept on `node`.
    fs::path data_path_for(const CheckpointRef& ref, int owner, int node) const {
        return layout.data_file(ref, owner, node);
    }
    // The redo journal of this rank's L4 differential file.
    fs::path dcp_journal_path() const { return fs::path(data_path_for({0, kDcpLevel, 0}, rank(), 0)) += ".journal"; }
    // Path of the redundancy file application rank `holder` keeps (the
    // partner copy of its left neighbour's file at L2, its parity at L3);
    // empty for other levels.
    fs::path redundancy_path_for(const CheckpointRef& ref, int holder, int node) const {
        return layout.redundancy_file(ref, holder, node);
    }
    fs::path data_path(const CheckpointRef& ref, int node) const { return data_path_for(ref, rank(), node); }
    fs::path redundancy_path(const CheckpointRef& ref, int node) const {
        return redundancy_path_for(ref, rank(), node);
    }
};

// Collective over `world` (every rank passes the same configuration): the
// nodes (simulated with local_test, else discovered), checked against the
// configuration, and the layout of execution config.exec_id. Throws a
// config Error on every rank when the two do not fit.
Context make_context(const Config& config, MPI_Comm world);

// The library's communicators of the application ranks: `app`, a
// duplicate of `user`, and this rank's L2/L3 group when the topology has
// groups; ctx.app and ctx.group point at them. Collective over `user`.
struct AppCommunicators {
    Communicator app;
    Communicator group;
};
AppCommunicators open_app_communicators(Context& ctx, MPI_Comm user);

}  // namespace mlckpt::core
