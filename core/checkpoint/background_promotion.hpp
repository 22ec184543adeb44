// Promotion of a checkpoint to its level by a thread of the rank itself,
// for levels with inline_l<L> = 0 when the job has no head ranks, and for
// in-memory snapshots.
//
// The checkpoint was committed with the rank's file alone (an L4
// checkpoint at L1 first, as with heads). The local part copies the file to
// glbl_dir (L4, per-rank files); the collective part writes the shared L4
// file, or the L2 partner copy or L3 parity, and commits the level's
// metadata with the same sequence number once every rank's part is
// durable. Until then the checkpoint is recoverable as first committed. A
// failed promotion removes what it wrote. Which thread runs which part:
// checkpoint/background_jobs.hpp.
#pragma once

#include <exception>
#include <functional>
#include <vector>

#include "checkpoint/background_jobs.hpp"
#include "format/checkpoint_meta.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

class Promotion {
  public:
    // Promotes `committed` (this rank's file: `record`) to `level`.
    Promotion(const Context& ctx, const CheckpointRef& committed, int level, const FileRecord& record)
        : ctx_(ctx), committed_(committed), level_(level), record_(record) {}

    void run_local();                                // no MPI
    void communicate(MPI_Comm app, MPI_Comm group);  // collective over `app`: ends with the commit
    void discard() const noexcept;                   // what a failed promotion wrote

    const CheckpointRef& committed() const { return committed_; }
    int level() const { return level_; }

  private:
    CheckpointRef target() const { return {committed_.seq, level_, committed_.ckpt_id, committed_.own_dir}; }
    bool shared_l4() const;

    const Context& ctx_;
    CheckpointRef committed_;
    int level_;
    FileRecord record_;
    fs::path copy_;                 // the L4 copy of a per-rank file, once made
    std::vector<FileRecord> mine_;  // this rank's records of the promoted checkpoint
};

// The promotion as a job of its own; `settle` gets its outcome on the
// application's thread.
BackgroundJobs::Job promotion_job(const Context& ctx, const CheckpointRef& committed, int level,
                                  const FileRecord& record, std::function<void(std::exception_ptr)> settle);

}  // namespace mlckpt::core
