// What a checkpoint's level does around the rank's file, at the checkpoint
// writer's fixed points. L1, L4 and L4 differential do nothing more: the
// file is the checkpoint. L2 makes a partner copy and L3 parity, from the
// file or, for POSIX files whose buffers stay untouched until the commit,
// from the variables in memory while a worker writes the file. Which rank
// does the work is the transport's choice: inline, the writer's LevelWork
// does it; with head ranks the head does it after the commit
// (heads/head_service), and the writer's LevelWork is the file alone.
#pragma once

#include <exception>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "checkpoint/checkpoint_file.hpp"
#include "levels/memory_content.hpp"

namespace mlckpt::core {

class LevelWork {
  public:
    virtual ~LevelWork() = default;

    // A variable of the checkpoint: into the file at once, unless the work
    // keeps it for complete().
    virtual void add(CheckpointFile& file, int id, std::span<const std::byte> data, const std::string& name) {
        file.add(id, data, name);
    }
    virtual bool keeps(int /*id*/) const { return false; }
    // Collective: finishes `file` on every rank, or on none when a rank
    // failed (`failure`: this rank's failure so far), and does the level's
    // work. Returns this rank's records: its file's first, then what the
    // level keeps here. Throws the same error on every rank.
    virtual std::vector<FileRecord> complete(CheckpointFile& file, std::exception_ptr failure) = 0;
    // Removes what complete() left of a checkpoint that is not committed.
    virtual void discard() noexcept {}
};

// The work of checkpoint `ref` done by this rank: `by_head` when the node's
// head does the level's work after the commit; `from_memory` when the L2
// copy or L3 parity is made from the variables in memory
// (level_work_from_memory).
std::unique_ptr<LevelWork> level_work(Context& ctx, const CheckpointRef& ref, bool by_head, bool from_memory);

// Collective: the L2 partner copy or L3 parity of this rank's data `data`
// of checkpoint `ref`, read from its file or, when given, from `content`;
// returns the record of what this rank keeps. Throws the same Error on
// every rank. For the writer's inline work and for scr.h's datasets.
FileRecord write_group_redundancy(const Context& ctx, const CheckpointRef& ref, const FileRecord& data,
                                  const MemoryContent* content);
// Removes what write_group_redundancy() left of a checkpoint that is not
// committed.
void discard_group_redundancy(const Context& ctx, const CheckpointRef& ref) noexcept;

// Whether the L2 copy or L3 parity of checkpoint `ref`, done inline, is made
// from the variables in memory: uncompressed POSIX files (the file is their
// bytes, one after the other) whose buffers stay untouched until the commit
// (not an incremental checkpoint). A compressed file's copy or parity is
// made from the file: the group moves the compressed bytes.
bool level_work_from_memory(const Context& ctx, const CheckpointRef& ref, bool by_head, bool incremental);

}  // namespace mlckpt::core
