// The work a checkpoint leaves to a thread of the rank itself: completing
// its level after the commit (checkpoint/background_promotion.hpp) and
// writing an in-memory snapshot (checkpoint/snapshot_copy.hpp).
//
// A job has three parts, run in the order the jobs were posted, the same on
// every rank:
//   local       on the worker thread; no MPI (file I/O);
//   collective  the job's communication and commit, over the communicators
//               it is given; on the worker too when MPI_Query_thread says
//               MPI_THREAD_MULTIPLE (over the worker's duplicates of the
//               library's communicators), else on the application's thread
//               in settle();
//   settle      on the application's thread in settle(), with the job's
//               outcome (the same on every rank): the catalog, retirement,
//               reports. It may post further jobs, which that settle()
//               leaves running.
// A failure of `local` is agreed on before `collective` runs; a failed job
// skips its `collective`.
//
// An application that calls MPI_Finalize without FTI_Finalize (as FTI's
// own test programs do, to leave their checkpoints for the next launch)
// still gets its pending jobs done up to their commits: MPI_Finalize
// deletes the attributes of MPI_COMM_SELF first, and the deletion of this
// object's attribute runs the jobs' local and collective parts while MPI
// still works (every rank is in MPI_Finalize, so the collectives match).
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "mpi/collective.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

class BackgroundJobs {
  public:
    struct Job {
        std::string what;  // "promoting checkpoint 3 to L4": roll calls and reports
        std::function<void()> local;
        std::function<void(MPI_Comm app, MPI_Comm group)> collective;
        std::function<void(std::exception_ptr failure)> settle;
    };

    // Collective over ctx.app.
    explicit BackgroundJobs(const Context& ctx);
    // Waits for the worker.
    ~BackgroundJobs();
    BackgroundJobs(const BackgroundJobs&) = delete;
    BackgroundJobs& operator=(const BackgroundJobs&) = delete;

    bool worker_communicates() const { return worker_app_.get() != MPI_COMM_NULL; }
    bool pending() const { return !jobs_.empty(); }

    void post(Job job);
    // Collective over ctx.app: finishes every job posted before the call and
    // runs its `settle`.
    void settle();

  private:
    static int finish_at_mpi_finalize(MPI_Comm, int, void* attribute, void*);
    // Each pending job's local and collective parts, without its settle.
    void finish_without_settling() noexcept;

    struct Entry {
        Job job;
        std::exception_ptr failure;
        bool done = false;  // the worker's part is over (guarded by mutex_)
    };
    void work();
    void run_on_worker(Entry& entry) noexcept;
    void wait_until_done(const Entry& entry);

    const Context& ctx_;
    Communicator worker_app_;                  // MPI_THREAD_MULTIPLE: the worker's duplicate of ctx.app
    Communicator worker_group_;                // ... and of ctx.group
    std::deque<std::shared_ptr<Entry>> jobs_;  // posted, not settled; the application's thread only
    std::mutex mutex_;
    std::condition_variable posted_;
    std::deque<std::shared_ptr<Entry>> queue_;  // for the worker
    bool stopping_ = false;
    std::thread worker_;               // started by the first job
    int keyval_ = MPI_KEYVAL_INVALID;  // the attribute on MPI_COMM_SELF
};

}  // namespace mlckpt::core
