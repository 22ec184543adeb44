#include "checkpoint/agreed_level.hpp"

#include <string>

#include "checkpoint/global_file.hpp"
#include "levels/redundancy.hpp"

namespace mlckpt::core {

int agreed_level(const Context& ctx, int level) {
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
        if (level < 1 || level > kSingleFileLevel) {
            fail(ErrorKind::usage, "checkpoint level " + std::to_string(level) +
                                       " is invalid; allowed: FTI_L1 (1), FTI_L2 (2), FTI_L3 (3), "
                                       "FTI_L4 (4), FTI_L4_DCP (8), FTI_L4_H5_SINGLE (9)");
        }
    });
    if (level == kSingleFileLevel) return level;
    // As FTI: differential checkpoints exist at L4 only, and without dCP
    // FTI_L4_DCP takes a full L4 checkpoint.
    if (level > 4 && level < kDcpLevel) {
        if (ctx.rank() == 0) {
            ctx.log.warning("checkpoint level " + std::to_string(level) +
                            ": differential checkpoints exist at L4 only; taking an L" + std::to_string(level - 4) +
                            " checkpoint");
        }
        level -= 4;
    }
    if (level == kDcpLevel && !ctx.config.enable_dcp) {
        if (ctx.rank() == 0) {
            ctx.log.warning("FTI_L4_DCP requested, but differential checkpoints are off ([basic] enable_dcp = 1 in " +
                            ctx.config.path + " turns them on); taking a full L4 checkpoint");
        }
        level = 4;
    }
    run_collectively(ctx.app, [&] {
        const Redundancy* redundancy = redundancy_of(level);
        if (redundancy != nullptr && !ctx.topo.groups_valid) {
            fail(ErrorKind::usage, std::string("level ") + std::to_string(level) + " (" + redundancy->name() +
                                       ") needs groups, but " + ctx.topo.groups_problem + " (" + ctx.config.path +
                                       " [basic] group_size)");
        }
        if (level == 3 && ctx.topo.group_size > Config::kMaxParityGroup) {
            fail(ErrorKind::usage, "level 3 (Reed-Solomon) needs groups of at most " +
                                       std::to_string(Config::kMaxParityGroup) +
                                       " nodes, but group_size = " + std::to_string(ctx.topo.group_size) + " (" +
                                       ctx.config.path + " [basic] group_size)");
        }
    });
    return level;
}

}  // namespace mlckpt::core
