// L2 and L3: the redundancy that lets a group of nodes survive losing some
// of its members' files. Every function here is collective over the group.
#pragma once

#include <string>

#include "meta/checkpoint_meta.hpp"
#include "runtime/context.hpp"

namespace mlckpt::core {

// What one member holds of a checkpoint and whether each file verified.
struct Holdings {
    bool data_ok = false;        // its own (FULL) file
    bool redundancy_ok = false;  // the partner copy or parity file it keeps
    std::string data_problem;    // why not, when not
    std::string redundancy_problem;
};

// Checkpoint time: each member sends its file to its right neighbour and
// keeps its left neighbour's; returns the record of the copy kept here.
FileRecord write_partner_copy(Context& ctx, const CheckpointRef& ref, const FileRecord& mine);
// Restart: rebuilds lost files from partner copies, then lost copies from
// the files. Throws (on every member) when some member's data is gone twice.
void repair_partner_copies(Context& ctx, const CheckpointMeta& meta, const CheckpointRef& ref,
                           const Holdings& mine);

// Checkpoint time: computes the group's Reed-Solomon parity; each member
// keeps one parity file. Returns the record of the parity kept here.
FileRecord write_parity(Context& ctx, const CheckpointRef& ref, const FileRecord& mine);
// Restart: rebuilds any lost files and parity from any k of the 2k.
void repair_parity(Context& ctx, const CheckpointMeta& meta, const CheckpointRef& ref, const Holdings& mine);

}  // namespace mlckpt::core
