#include "store/context.hpp"

#include "compress/block_codec.hpp"

#include "config/cross_checks.hpp"
#include "mpi/collective.hpp"
#include "topology/node_discovery.hpp"

namespace mlckpt::core {

Context make_context(const Config& config, MPI_Comm world) {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    set_wait_bound(config.wait_timeout);
    Communicator host = host_of(world);
    std::vector<int> node_map;
    if (!config.local_test) node_map = discovered_node_map(world, host.get());
    Topology topo;
    run_collectively(world, [&] {
        if (config.local_test) node_map = simulated_node_map(size, config.node_size, config.path);
        topo = build_topology({node_map, config.node_size, config.group_size, config.head, config.path}, rank);
        check_groups(config, topo);
        check_container_files(config, topo);
    });
    Logger log(config.verbosity, topo.is_head ? rank : topo.app_rank, topo.app_rank == 0, rank);
    Context ctx{config, Levels(config), topo,          StorageLayout(config, config.exec_id, topo.app_to_world),
                log,    MPI_COMM_NULL,  MPI_COMM_NULL, {}};
    ctx.cpu_share = cpu_share(host.get());
    set_codec_threads(static_cast<std::size_t>(ctx.cpu_share.cpus));
    return ctx;
}

AppCommunicators open_app_communicators(Context& ctx, MPI_Comm user) {
    AppCommunicators c;
    c.app = Communicator(dup_comm(user, "the application ranks"));
    ctx.app = c.app.get();
    if (ctx.topo.groups_valid) {
        c.group = Communicator(split_comm(ctx.app, ctx.topo.group_id, ctx.topo.group_rank, "an L2/L3 group"));
        ctx.group = c.group.get();
    }
    return c;
}

}  // namespace mlckpt::core
