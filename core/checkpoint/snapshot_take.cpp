#include "checkpoint/snapshot_take.hpp"

#include <optional>
#include <string>
#include <vector>

#include "checkpoint/background_promotion.hpp"
#include "checkpoint/hdf5_schema.hpp"
#include "format/hdf5/hdf5_library.hpp"
#include "log/fti_messages.hpp"
#include "store/retirement.hpp"

namespace mlckpt::core {

struct SnapshotTake::ChainedPromotion {
    std::optional<Promotion> promotion;
    std::exception_ptr failure;
};

SnapshotTake::SnapshotTake(Parts parts)
    : parts_(std::move(parts)), copy_(std::uint64_t(parts_.ctx.config.async_snapshot_mb) << 20) {}

bool SnapshotTake::takes(int ckpt_id, int level) {
    Context& ctx = parts_.ctx;
    if (!is_base_level(level)) return false;
    if (ctx.levels[ctx.levels[level].committed_at].format == IoMode::hdf5 && !h5::hdf5_thread_safe()) {
        // The worker would call HDF5 while the application may too.
        if (ctx.rank() == 0 && !refusal_logged_) {
            ctx.log.info(
                "HDF5 checkpoints (ckpt_io = 5) are written before FTI_Checkpoint returns, not from an "
                "in-memory snapshot: this HDF5 library is not thread-safe");
        }
        refusal_logged_ = true;
        return false;
    }
    std::uint64_t mine = SnapshotCopy::footprint(parts_.registry.variables());
    std::uint64_t most = 0;
    allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, ctx.app, "the size of the in-memory snapshots");
    if (most <= copy_.budget()) return true;
    if (ctx.rank() == 0) {
        ctx.log.info("checkpoint " + std::to_string(ckpt_id) + ": the protected data (up to " +
                     std::to_string(most >> 20) +
                     " MiB on a rank) exceeds the in-memory snapshot's budget ([basic] async_snapshot_mb = " +
                     std::to_string(ctx.config.async_snapshot_mb) + " in " + ctx.config.path +
                     "); it is written before FTI_Checkpoint returns");
    }
    return false;
}

void SnapshotTake::take(int ckpt_id, int level, double start) {
    Context& ctx = parts_.ctx;
    const Registry& registry = parts_.registry;
    std::vector<Variable> copies;
    run_collectively(ctx.app, [&] { copies = copy_.take(registry.variables()); });
    std::vector<std::string> names;
    for (const Variable& var : copies) names.push_back(registry.name_of(var.id));
    const int written = ctx.levels[level].committed_at;
    parts_.format.hdf5 = hdf5_schema(registry);  // the HDF5 layout of the variables as protected now
    auto writer = std::make_shared<CheckpointWriter>(ctx, ckpt_id, written, copies, parts_.format, false,
                                                     ctx.levels[written].promoted_after_commit);
    BackgroundJobs::Job job;
    job.what = "writing checkpoint " + std::to_string(ckpt_id) + " from its in-memory snapshot";
    job.local = [writer, copies = std::move(copies), names = std::move(names)] {
        for (std::size_t i = 0; i < copies.size(); ++i) writer->add(copies[i], names[i]);
        writer->finish_file();
    };
    // A worker that communicates goes on to the level's work at once; else
    // it is handed over once the checkpoint is settled.
    std::shared_ptr<ChainedPromotion> chained;
    if (parts_.jobs.worker_communicates() && ctx.levels[level].promoted_after_commit &&
        !ctx.levels[level].handed_to_head) {
        chained = std::make_shared<ChainedPromotion>();
    }
    job.collective = [&ctx, writer, level, chained](MPI_Comm app, MPI_Comm group) {
        writer->commit_metadata_over(app);
        if (!chained) return;
        chained->promotion.emplace(ctx, writer->ref(), level, writer->record());
        try {
            run_collectively(app, [&] { chained->promotion->run_local(); });
            chained->promotion->communicate(app, group);
        } catch (...) {
            chained->failure = std::current_exception();
        }
    };
    job.settle = [this, writer, level, chained](std::exception_ptr failure) {
        settle(writer, level, failure, chained.get());
    };
    parts_.jobs.post(std::move(job));
    ctx.log.info(fti_messages::checkpoint_taken(
        ckpt_id, level, static_cast<double>(registry.total_bytes()) / (1024.0 * 1024.0), MPI_Wtime() - start));
    ctx.log.info("Checkpoint " + std::to_string(ckpt_id) + " is copied in memory; it is written and committed at " +
                 level_name(written) + " in the background.");
}

void SnapshotTake::settle(const std::shared_ptr<CheckpointWriter>& writer, int level, std::exception_ptr failure,
                          ChainedPromotion* chained) {
    Context& ctx = parts_.ctx;
    if (failure) {  // the writer, released with the job, removes what it wrote
        return parts_.completion.note_failure("checkpoint " + std::to_string(writer->ref().ckpt_id) +
                                                  " could not be written from its in-memory snapshot: ",
                                              failure, "; older checkpoints are kept");
    }
    writer->adopt_commit();
    writer->update_state(parts_.format);
    writer->leave_to_background();
    parts_.committed();
    const CheckpointRef& ref = writer->ref();
    ctx.log.debug("checkpoint " + std::to_string(ref.ckpt_id) + " committed at " + level_name(ref.level) +
                  " from its in-memory snapshot");
    if (!ctx.levels[level].promoted_after_commit) return retire(ctx, ctx.catalog.superseded_by(ref.level, ref.seq));
    if (!chained) return parts_.transport.hand_over(ref, level, writer->record());
    if (chained->failure) chained->promotion->discard();
    parts_.completion.promotion_settled(ref, level, chained->failure);
}

}  // namespace mlckpt::core
