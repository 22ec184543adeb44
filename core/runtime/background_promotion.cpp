#include "runtime/background_promotion.hpp"

#include <chrono>

#include "common/fault_injection.hpp"
#include "io/file.hpp"
#include "levels/redundancy.hpp"
#include "mpi/bounded_wait.hpp"
#include "store/checkpoint_store.hpp"
#include "store/shared_l4.hpp"

namespace mlckpt::core {

namespace {

bool mpi_thread_multiple() {
    int provided = MPI_THREAD_SINGLE;
    check_mpi(MPI_Query_thread(&provided), "MPI_Query_thread");
    return provided == MPI_THREAD_MULTIPLE;
}

}  // namespace

BackgroundPromotion::BackgroundPromotion(const Context& ctx) : ctx_(ctx) {
    // Every rank of ctx.app was initialised with the same thread level.
    if (!mpi_thread_multiple()) return;
    worker_app_ = Communicator(dup_comm(ctx.app, "the library's communicator of the promoting threads"));
    if (ctx.group != MPI_COMM_NULL) {
        worker_group_ = Communicator(dup_comm(ctx.group, "the L2/L3 group of the promoting threads"));
    }
}

BackgroundPromotion::~BackgroundPromotion() {
    if (!worker_.valid()) return;
    // Ended without FTI_Finalize: as after a crash, the checkpoint is
    // recoverable as first committed. A worker that communicates cannot
    // finish once MPI is finalized; the process ends without it.
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0 || !worker_communicates()) worker_.wait();
}

bool BackgroundPromotion::shared_l4(const Job& job) const {
    return job.level == 4 && is_shared(file_format(ctx_.config.ckpt_io, 4));
}

void BackgroundPromotion::start(const CheckpointRef& committed, int level, const FileRecord& record) {
    job_ = Job{committed, level, record, {}, {}};
    worker_ = std::async(std::launch::async, [this] { return work_on_worker(*job_); });
}

std::exception_ptr BackgroundPromotion::work_on_worker(Job& job) const noexcept {
    const WorkerThread marked("a worker promoting checkpoint " + std::to_string(job.committed.ckpt_id) + " to L" +
                              std::to_string(job.level));
    std::exception_ptr failure;
    try {
        fault_point("promotion_started", ctx_.rank(), job.committed.seq);
        copy_to_l4(job);
    } catch (...) {
        failure = std::current_exception();
    }
    if (!worker_communicates()) return failure;
    try {
        agree(worker_app_.get(), failure);
        communicate(job, worker_app_.get(), worker_group_.get());
    } catch (...) {
        return std::current_exception();
    }
    return nullptr;
}

void BackgroundPromotion::copy_to_l4(Job& job) const {
    if (job.level != 4 || shared_l4(job)) return;
    const CheckpointRef& local = job.committed;
    const Directory dir = ctx_.layout.make_dir(ctx_.layout.ckpt_dir(4, local.seq, 0));
    copy_verified(ctx_.data_path_for(local, job.record.rank, ctx_.topo.node_id), dir, job.record,
                  ctx_.io_buffer_bytes());
    job.copy = dir.path_of(job.record.file);
    job.mine = {job.record};
}

void BackgroundPromotion::communicate(Job& job, MPI_Comm app, MPI_Comm group) const {
    const CheckpointRef ref = target(job);
    if (shared_l4(job)) {
        job.mine = flush_into_shared_file(ctx_, app, ref, {{job.record, ctx_.data_path(job.committed, ctx_.topo.node_id)}});
    } else if (job.level != 4) {
        run_collectively(app, [&] {
            job.mine = {job.record, redundancy_of(job.level)->write(ctx_.redundancy_io(), own_member(ctx_.topo, group),
                                                                     ref, job.record)};
        });
    }
    fault_point("promotion_written", ctx_.rank(), ref.seq);
    commit_metadata(ctx_, app, ref, job.mine, file_format(ctx_.config.ckpt_io, job.level));
}

void BackgroundPromotion::discard(const Job& job) const noexcept {
    if (!job.copy.empty()) remove_file_and_empty_dir(job.copy);
    if (shared_l4(job)) remove_tree(ctx_.layout.ckpt_dir(4, job.committed.seq, 0));
    if (job.level != 4) {
        const fs::path kept = ctx_.redundancy_path(target(job), ctx_.topo.node_id);
        remove_file(kept);
        remove_file(fs::path(kept) += ".tmp");
    }
}

std::optional<BackgroundPromotion::Outcome> BackgroundPromotion::finish() {
    if (!job_) return std::nullopt;
    // The worker's own waits are bounded; this one lasts as long as the
    // copy does, answering the peers' roll calls meanwhile.
    while (worker_.wait_for(std::chrono::milliseconds(1)) != std::future_status::ready) answer_roll_calls();
    std::exception_ptr failure = worker_.get();
    Job job = std::move(*job_);
    job_.reset();
    if (!worker_communicates()) {
        try {
            agree(ctx_.app, failure);
            communicate(job, ctx_.app, ctx_.group);
            failure = nullptr;
        } catch (...) {
            failure = std::current_exception();
        }
    }
    if (failure) discard(job);
    return Outcome{job.committed, job.level, failure};
}

}  // namespace mlckpt::core
