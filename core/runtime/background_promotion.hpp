// Promotion of a checkpoint to its level by a thread of the rank itself,
// for levels with inline_l<L> = 0 when the job has no head ranks.
//
// The application rank commits the checkpoint with its file alone (an L4
// checkpoint is committed at L1 first, as with heads), starts the
// promotion and goes back to computing. The worker thread copies the file
// to glbl_dir, or makes the L2 partner copy or L3 parity, and the promotion
// is committed (the metadata of the level, with the same sequence number)
// only once every rank's part is durable. Until then the checkpoint is
// recoverable as first committed.
//
// MPI from the worker only when MPI_Query_thread says MPI_THREAD_MULTIPLE:
// it then does every step, on duplicates of the library's communicators,
// and agrees on the outcome with the other ranks' workers. With less, the
// worker does the steps that need no MPI (the L4 copy of a per-rank file),
// and the application's thread does the rest (the partner copy, the parity,
// the shared L4 file, the commit) in the library's next collective call.
//
// finish() is that call's part: it waits for the worker and returns the
// outcome, the same on every rank, so that the caller retires the
// superseded checkpoints or keeps them, as for a head's verdict.
#pragma once

#include <exception>
#include <future>
#include <optional>
#include <vector>

#include "format/checkpoint_meta.hpp"
#include "mpi/collective.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

class BackgroundPromotion {
  public:
    // Collective over ctx.app.
    explicit BackgroundPromotion(const Context& ctx);
    ~BackgroundPromotion();  // waits for the worker
    BackgroundPromotion(const BackgroundPromotion&) = delete;
    BackgroundPromotion& operator=(const BackgroundPromotion&) = delete;

    // Whether the worker does the communication too (MPI_THREAD_MULTIPLE).
    bool worker_communicates() const { return worker_app_.get() != MPI_COMM_NULL; }

    // Starts promoting `committed` (this rank's file: `record`) to `level`.
    void start(const CheckpointRef& committed, int level, const FileRecord& record);

    struct Outcome {
        CheckpointRef committed;      // as first committed
        int level = 0;                // the level it was promoted to
        std::exception_ptr failure;   // null: the promotion is committed
    };
    // Collective over ctx.app when a promotion was started: waits for it,
    // does what is left of it, and returns the same outcome on every rank.
    std::optional<Outcome> finish();

  private:
    struct Job {
        CheckpointRef committed;
        int level = 0;
        FileRecord record;
        fs::path copy;                 // the L4 copy of a per-rank file, once made
        std::vector<FileRecord> mine;  // this rank's records of the promoted checkpoint
    };
    CheckpointRef target(const Job& job) const { return {job.committed.seq, job.level, job.committed.ckpt_id}; }
    bool shared_l4(const Job& job) const;

    void copy_to_l4(Job& job) const;                            // local
    void communicate(Job& job, MPI_Comm app, MPI_Comm group) const;  // collective over `app`
    void discard(const Job& job) const noexcept;
    std::exception_ptr work_on_worker(Job& job) const noexcept;

    const Context& ctx_;
    Communicator worker_app_;    // MPI_THREAD_MULTIPLE: the worker's duplicate of ctx.app
    Communicator worker_group_;  // ... and of ctx.group
    std::optional<Job> job_;
    std::future<std::exception_ptr> worker_;
};

}  // namespace mlckpt::core
