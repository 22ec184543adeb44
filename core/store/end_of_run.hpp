// What FTI_Finalize leaves of an execution: nothing (the default), the last
// checkpoint at L4 (keep_last_ckpt), the L4 archive (keep_l4_ckpt), or
// everything as it was when a restart failed and this run committed nothing
// newer, so that relaunching tries again. The restart state in the
// configuration file is changed before any checkpoint goes, so that a crash
// in between never leaves it pointing at deleted checkpoints.
#pragma once

#include <cstdint>

#include "store/context.hpp"

namespace mlckpt::core {

struct RunOutcome {
    std::uint64_t first_seq = 1;  // checkpoints below it predate this run
    bool restart_failed = false;  // a restart was requested and nothing could be recovered
};

// Collective over the application ranks, once nothing is left in the background.
void end_execution(Context& ctx, const RunOutcome& outcome);

}  // namespace mlckpt::core
