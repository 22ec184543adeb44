#include "checkpoint/agreed_level.hpp"

#include <string>

#include "config/api_level.hpp"
#include "config/levels.hpp"

namespace mlckpt::core {

int agreed_level(const Context& ctx, int level) {
    ApiLevel taken;
    run_collectively(ctx.app, [&] {
        // Every rank must ask for the same level, or the collective steps would diverge.
        int bounds[2] = {-level, level};
        int agreed[2] = {0, 0};
        // Ranks arrive as their computing ends.
        allreduce(bounds, agreed, 2, MPI_INT, MPI_MAX, ctx.app, "the checkpoint level every rank asks for");
        if (-agreed[0] != agreed[1]) {
            fail(ErrorKind::usage, "ranks asked for different checkpoint levels (" + std::to_string(-agreed[0]) +
                                       " to " + std::to_string(agreed[1]) + "); every rank must pass the same level");
        }
        taken = parse_api_level(level, ctx.config.enable_dcp, ctx.config.path);
    });
    if (!taken.warning.empty() && ctx.rank() == 0) ctx.log.warning(taken.warning);
    if (is_single_file_level(taken.level)) return taken.level;
    run_collectively(ctx.app, [&] {
        if (has_group_redundancy(taken.level) && !ctx.topo.groups_valid) {
            fail(ErrorKind::usage, "level " + std::to_string(taken.level) + " (" +
                                       redundancy_name(redundancy_kind(taken.level)) + ") needs groups, but " +
                                       ctx.topo.groups_problem + " (" + ctx.config.path + " [basic] group_size)");
        }
        if (const auto problem = group_size_problem(ctx.levels[taken.level].redundancy, ctx.topo.group_size)) {
            fail(ErrorKind::usage, "level " + std::to_string(taken.level) + " (" +
                                       redundancy_name(redundancy_kind(taken.level)) + ") cannot use groups of " +
                                       std::to_string(ctx.topo.group_size) + " nodes: " + *problem + " (" +
                                       ctx.config.path + " [basic] group_size)");
        }
    });
    return taken.level;
}

}  // namespace mlckpt::core
