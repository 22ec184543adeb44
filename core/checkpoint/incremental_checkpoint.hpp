// FTI_InitICP .. FTI_AddVarICP .. FTI_FinalizeICP: a checkpoint written one
// variable at a time, committed at FTI_FinalizeICP once every protected
// variable was added. An FTI_L4_H5_SINGLE one keeps a copy of each subset as
// it was added and writes the global file at the end.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "checkpoint/checkpoints.hpp"

namespace mlckpt::core {

class IncrementalCheckpoint {
  public:
    IncrementalCheckpoint(const Context& ctx, Checkpoints& checkpoints, const Registry& registry)
        : ctx_(ctx), checkpoints_(checkpoints), registry_(registry) {}

    bool in_progress() const { return writer_ || single_; }
    // FTI_InitICP (collective; the level agreed as for FTI_Checkpoint); an
    // inactive one makes the next FTI_AddVarICP and FTI_FinalizeICP do
    // nothing.
    void begin(int ckpt_id, int requested_level);
    void begin_inactive() { inactive_ = true; }
    void add(int id);  // local
    // Collective: true when a checkpoint was committed.
    bool finish();
    void discard();  // FTI_Finalize during one: nothing is committed

  private:
    void finish_single();  // collective

    const Context& ctx_;
    Checkpoints& checkpoints_;
    const Registry& registry_;
    std::unique_ptr<CheckpointWriter> writer_;
    // FTI_L4_H5_SINGLE: each variable's bytes as FTI_AddVarICP found them.
    std::optional<std::map<int, std::vector<std::byte>>> single_;
    int ckpt_id_ = 0;
    int level_ = 0;
    bool inactive_ = false;
    double start_ = 0.0;
};

}  // namespace mlckpt::core
