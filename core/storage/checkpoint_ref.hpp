// Which checkpoint: the commit sequence number that names its directories,
// its level, and the id the application gave it.
#pragma once

#include <cstdint>

namespace mlckpt::core {

struct CheckpointRef {
    std::uint64_t seq = 0;
    int level = 1;
    int ckpt_id = 0;
};

}  // namespace mlckpt::core
