#include "checkpoint/background_jobs.hpp"

#include <chrono>
#include <utility>

#include "mpi/bounded_wait.hpp"

namespace mlckpt::core {

namespace {

bool mpi_thread_multiple() {
    int provided = MPI_THREAD_SINGLE;
    check_mpi(MPI_Query_thread(&provided), "MPI_Query_thread");
    return provided == MPI_THREAD_MULTIPLE;
}

}  // namespace

BackgroundJobs::BackgroundJobs(const Context& ctx) : ctx_(ctx) {
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finish_at_mpi_finalize, &keyval_, nullptr),
              "MPI_Comm_create_keyval");
    check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, keyval_, this), "MPI_Comm_set_attr");
    // Every rank of ctx.app was initialised with the same thread level.
    if (!mpi_thread_multiple()) return;
    worker_app_ = Communicator(dup_comm(ctx.app, "the library's communicator of the ranks' worker threads"));
    if (ctx.group != MPI_COMM_NULL) {
        worker_group_ = Communicator(dup_comm(ctx.group, "the L2/L3 group of the ranks' worker threads"));
    }
}

int BackgroundJobs::finish_at_mpi_finalize(MPI_Comm, int, void* attribute, void*) {
    auto* jobs = static_cast<BackgroundJobs*>(attribute);
    jobs->finish_without_settling();
    jobs->keyval_ = MPI_KEYVAL_INVALID;  // freed with MPI_COMM_SELF's attributes
    return MPI_SUCCESS;
}

void BackgroundJobs::finish_without_settling() noexcept {
    for (const std::shared_ptr<Entry>& entry : jobs_) {
        wait_until_done(*entry);
        if (worker_communicates()) continue;
        try {
            agree(ctx_.app, entry->failure);
            if (entry->job.collective) entry->job.collective(ctx_.app, ctx_.group);
        } catch (...) {
            // Not committed: the next launch restarts from an older checkpoint.
        }
    }
    jobs_.clear();
}

BackgroundJobs::~BackgroundJobs() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0 && keyval_ != MPI_KEYVAL_INVALID) {
        // After FTI_Finalize nothing is pending; after a second FTI_Init the
        // worker finishes what it has, as every rank's does.
        jobs_.clear();
        int keyval = std::exchange(keyval_, MPI_KEYVAL_INVALID);
        MPI_Comm_delete_attr(MPI_COMM_SELF, keyval);
        MPI_Comm_free_keyval(&keyval);
    }
    // Once MPI is finalized, its MPI_COMM_SELF attribute has waited for
    // every job: the worker is idle.
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    posted_.notify_all();
    if (worker_.joinable()) worker_.join();
}

void BackgroundJobs::post(Job job) {
    auto entry = std::make_shared<Entry>();
    entry->job = std::move(job);
    jobs_.push_back(entry);
    {
        std::lock_guard lock(mutex_);
        queue_.push_back(entry);
        if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
    }
    posted_.notify_all();
}

void BackgroundJobs::work() {
    for (;;) {
        std::shared_ptr<Entry> entry;
        {
            std::unique_lock lock(mutex_);
            posted_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
            if (queue_.empty()) return;
            entry = queue_.front();
            queue_.pop_front();
        }
        run_on_worker(*entry);
        {
            std::lock_guard lock(mutex_);
            entry->done = true;
        }
        posted_.notify_all();
    }
}

void BackgroundJobs::run_on_worker(Entry& entry) noexcept {
    const WorkerThread marked("a worker thread, " + entry.job.what);
    try {
        if (entry.job.local) entry.job.local();
    } catch (...) {
        entry.failure = std::current_exception();
    }
    if (!worker_communicates()) return;
    try {
        agree(worker_app_.get(), entry.failure);
        if (entry.job.collective) entry.job.collective(worker_app_.get(), worker_group_.get());
    } catch (...) {
        entry.failure = std::current_exception();
    }
}

void BackgroundJobs::wait_until_done(const Entry& entry) {
    // The worker's own waits are bounded; this one lasts as long as its
    // file I/O does, answering the peers' roll calls meanwhile.
    std::unique_lock lock(mutex_);
    while (!posted_.wait_for(lock, std::chrono::milliseconds(1), [&] { return entry.done; })) {
        lock.unlock();
        answer_roll_calls();
        lock.lock();
    }
}

void BackgroundJobs::settle() {
    std::size_t posted = jobs_.size();  // jobs posted while settling stay for the next call
    while (posted-- > 0) {
        std::shared_ptr<Entry> entry = jobs_.front();
        jobs_.pop_front();
        wait_until_done(*entry);
        std::exception_ptr failure = entry->failure;
        if (!worker_communicates()) {
            try {
                agree(ctx_.app, failure);
                if (entry->job.collective) entry->job.collective(ctx_.app, ctx_.group);
            } catch (...) {
                failure = std::current_exception();
            }
        }
        if (entry->job.settle) entry->job.settle(failure);
    }
}

}  // namespace mlckpt::core
