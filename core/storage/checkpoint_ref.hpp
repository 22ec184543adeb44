// Which checkpoint: the commit sequence number that identifies it within the
// execution, its level, the id the application gave it, and where its
// files are kept.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>

#include "config/levels.hpp"

namespace mlckpt::core {

struct CheckpointRef {
    std::uint64_t seq = 0;
    int level = kL1;  // config/levels.hpp
    int ckpt_id = 0;
    // Its files are in a directory of its own, l<L>/ckpt<seq>/, rather than
    // in l<L>/ itself as FTI keeps them: a checkpoint whose id repeats that
    // of a live checkpoint (so that its file names would too), every
    // dataset of scr.h, and checkpoints written before mlckpt kept FTI's
    // layout. See Catalog::place.
    bool own_dir = false;
};

// "<seq> <level> <ckpt_id> <own_dir>", as catalogs and the heads' requests
// carry a reference.
std::ostream& operator<<(std::ostream& out, const CheckpointRef& ref);
std::istream& operator>>(std::istream& in, CheckpointRef& ref);

}  // namespace mlckpt::core
