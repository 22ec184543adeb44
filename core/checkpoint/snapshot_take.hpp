// FTI_Checkpoint from an in-memory snapshot ([basic] async_snapshot = 1):
// the variables are copied and the file opened (collectively: its
// directory, and the FTI-FF layout) before FTI_Checkpoint returns; the
// file's writing from the copy, the commit and the level's work are a job
// of the rank's worker, settled at a later call like any other.
#pragma once

#include <exception>
#include <functional>
#include <memory>

#include "checkpoint/background_jobs.hpp"
#include "checkpoint/checkpoint_writer.hpp"
#include "checkpoint/completion.hpp"
#include "checkpoint/snapshot_copy.hpp"
#include "checkpoint/transport.hpp"
#include "registry/registry.hpp"

namespace mlckpt::core {

class SnapshotTake {
  public:
    struct Parts {
        Context& ctx;
        const Registry& registry;
        FormatState& format;  // continued by each committed checkpoint
        BackgroundJobs& jobs;
        Completion& completion;
        Transport& transport;             // the level's work after the commit
        std::function<void()> committed;  // a checkpoint was committed
    };
    explicit SnapshotTake(Parts parts);

    // Collective: whether a checkpoint of `level` is taken from a snapshot:
    // levels 1 to 4 (an L4 differential checkpoint's journal is its copy),
    // data within the budget, HDF5 files only with a thread-safe HDF5.
    bool takes(int ckpt_id, int level);
    void take(int ckpt_id, int level, double start);  // collective

  private:
    // The level's work done by the snapshot's job right after its commit
    // (a worker that communicates).
    struct ChainedPromotion;
    void settle(const std::shared_ptr<CheckpointWriter>& writer, int level, std::exception_ptr failure,
                ChainedPromotion* chained);

    Parts parts_;
    SnapshotCopy copy_;
    bool refusal_logged_ = false;
};

}  // namespace mlckpt::core
