#include "checkpoint/background_promotion.hpp"

#include <memory>

#include "common/fault_injection.hpp"
#include "io/file.hpp"
#include "levels/redundancy.hpp"
#include "store/checkpoint_store.hpp"
#include "store/retirement.hpp"
#include "store/shared_l4.hpp"

namespace mlckpt::core {

bool Promotion::shared_l4() const {
    return is_global(level_) && is_shared(ctx_.levels[level_].format);
}

void Promotion::run_local() {
    fault_point("promotion_started", ctx_.rank(), committed_.seq);
    // The files of the checkpoints retired when this one was written are
    // gone first: the global directory never holds more than with inline L4.
    ctx_.background->wait();
    if (!is_global(level_) || shared_l4()) return;
    const Directory dir = ctx_.layout.make_dir(ctx_.layout.ckpt_dir(target(), 0));
    // With another codec at L4, the worker packs the copy: the application
    // does not wait for it.
    const FileRecord copy = copy_for_level(ctx_, ctx_.data_path_for(committed_, record_.rank, ctx_.topo.node_id), dir,
                                           record_, ctx_.levels[committed_.level].format, committed_.level, level_);
    copy_ = dir.path_of(copy.file);
    mine_ = {copy};
}

void Promotion::communicate(MPI_Comm app, MPI_Comm group) {
    const CheckpointRef ref = target();
    if (shared_l4()) {
        mine_ = flush_into_shared_file(ctx_, app, ref, {{record_, ctx_.data_path(committed_, ctx_.topo.node_id)}});
    } else if (has_group_redundancy(level_)) {
        run_collectively(app, [&] {
            mine_ = {record_, redundancy_of(ctx_.levels[level_].redundancy)
                                  ->write(ctx_.redundancy_io(), own_member(ctx_.topo, group), ref, record_)};
        });
    }
    fault_point("promotion_written", ctx_.rank(), ref.seq);
    commit_metadata(ctx_, app, ref, mine_, ctx_.levels[level_].format);
}

void Promotion::discard() const noexcept {
    if (!copy_.empty()) committed_.own_dir ? remove_file_and_empty_dir(copy_) : (void)remove_file(copy_);
    if (shared_l4()) remove_shared_l4_files(ctx_.layout, target(), ctx_.config.container_files);
    if (has_group_redundancy(level_)) {
        const fs::path kept = ctx_.redundancy_path(target(), ctx_.topo.node_id);
        remove_file(kept);
        remove_file(fs::path(kept) += ".tmp");
    }
}

BackgroundJobs::Job promotion_job(const Context& ctx, const CheckpointRef& committed, int level,
                                  const FileRecord& record, std::function<void(std::exception_ptr)> settle) {
    auto p = std::make_shared<Promotion>(ctx, committed, level, record);
    BackgroundJobs::Job job;
    job.what = "promoting checkpoint " + std::to_string(committed.ckpt_id) + " to L" + std::to_string(level);
    job.local = [p] { p->run_local(); };
    job.collective = [p](MPI_Comm app, MPI_Comm group) { p->communicate(app, group); };
    job.settle = [p, settle = std::move(settle)](std::exception_ptr failure) {
        if (failure) p->discard();
        settle(failure);
    };
    return job;
}

}  // namespace mlckpt::core
