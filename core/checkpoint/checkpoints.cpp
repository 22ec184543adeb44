#include "checkpoint/checkpoints.hpp"

#include <cstdio>

#include "checkpoint/agreed_level.hpp"
#include "checkpoint/hdf5_schema.hpp"
#include "checkpoint/head_transport.hpp"
#include "checkpoint/worker_transport.hpp"
#include "log/fti_messages.hpp"

namespace mlckpt::core {

Checkpoints::Checkpoints(Context& ctx, const Registry& registry, FormatState& format, GlobalFile& global_file,
                         MPI_Comm global, MPI_Comm world, RestartHooks hooks)
    : ctx_(ctx),
      registry_(registry),
      format_(format),
      global_file_(global_file),
      global_(global),
      world_(world),
      hooks_(std::move(hooks)),
      completion_(ctx, hooks_.retired) {}

Checkpoints::~Checkpoints() = default;

void Checkpoints::start() {
    const Config& c = ctx_.config;
    const bool promoted = ctx_.levels.any_promoted_after_commit();
    if ((!c.head && promoted) || c.async_snapshot) jobs_ = std::make_unique<BackgroundJobs>(ctx_);
    if (c.head && promoted) {
        transport_ = std::make_unique<HeadTransport>(ctx_, completion_, global_, world_, hooks_.still_read);
    } else if (promoted) {
        transport_ = std::make_unique<WorkerTransport>(ctx_, *jobs_, completion_);
    }
    if (c.async_snapshot) {
        snapshots_ = std::make_unique<SnapshotTake>(
            SnapshotTake::Parts{ctx_, registry_, format_, *jobs_, completion_, *transport_, hooks_.committed});
    }
    log_started();
}

void Checkpoints::log_started() const {
    const Config& c = ctx_.config;
    if (!jobs_ || ctx_.rank() != 0) return;
    std::string levels;
    for (int level : kBaseLevels) {
        if (ctx_.levels[level].promoted_after_commit) levels += (levels.empty() ? "" : ", ") + level_name(level);
    }
    const std::string what = std::string(c.async_snapshot ? "checkpoints written from an in-memory snapshot" : "") +
                             (c.async_snapshot && !levels.empty() ? " and " : "") +
                             (levels.empty() ? "" : levels + " completed after the commit") +
                             (c.head ? "" : " by a thread of each rank");
    if (jobs_->worker_communicates()) {
        ctx_.log.debug(what + " (MPI_THREAD_MULTIPLE)");
    } else {
        ctx_.log.info(what +
                      "; MPI provides less than MPI_THREAD_MULTIPLE, so their communication (the commit, "
                      "partner copies, parity, shared L4 files) is done in the next checkpoint call "
                      "(initialise MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...) to have it done in "
                      "the background)");
    }
}

void Checkpoints::take(int ckpt_id, int requested_level) {
    const double start = MPI_Wtime();
    const int level = agreed_level(ctx_, requested_level);
    if (is_single_file_level(level)) {
        return write_single_file(
            ckpt_id, [](const Variable& v) { return std::span<const std::byte>(v.data()); }, start);
    }
    if (snapshots_ && snapshots_->takes(ckpt_id, level)) return snapshots_->take(ckpt_id, level, start);
    std::unique_ptr<CheckpointWriter> writer = open(ckpt_id, level, registry_.variables(), false);
    try {
        for (const Variable& var : registry_.variables()) writer->add(var, registry_.name_of(var.id));
    } catch (const Error&) {
        // Remembered by the writer; commit() makes every rank fail with it.
    }
    commit(*writer, level, std::nullopt, start);
}

std::unique_ptr<CheckpointWriter> Checkpoints::open(int ckpt_id, int level, const std::vector<Variable>& vars,
                                                    bool incremental) {
    format_.hdf5 = hdf5_schema(registry_);  // the HDF5 layout of the variables as protected now
    const int written = ctx_.levels[level].committed_at;
    return std::make_unique<CheckpointWriter>(ctx_, ckpt_id, written, vars, format_, incremental,
                                              ctx_.levels[written].promoted_after_commit);
}

void Checkpoints::commit(CheckpointWriter& writer, int level, const std::optional<std::string>& missing, double start) {
    const LevelDescriptor& taken = ctx_.levels[level];
    const bool handing_over = taken.promoted_after_commit;
    // FTI's node flag: the node's first application rank completes the
    // levels that no head completes (L4 differential: none, as FTI). Before
    // the commit's collective steps, as FTI prints it before its own: a
    // program may read every rank's line once its FTI_Checkpoint returns.
    if (ctx_.topo.node_index == 0 && is_base_level(level) && !taken.handed_to_head) {
        ctx_.log.debug(fti_messages::node_flag(ctx_.topo.node_id, level));
    }
    const CheckpointRef ref = writer.commit({missing, handing_over});
    writer.update_state(format_);
    writer.leave_to_background();
    hooks_.committed();
    ctx_.log.info(fti_messages::checkpoint_taken(ref.ckpt_id, reported_level(level),
                                                 static_cast<double>(registry_.total_bytes()) / (1024.0 * 1024.0),
                                                 MPI_Wtime() - start));
    if (handing_over) {
        ctx_.log.info("Checkpoint " + std::to_string(ref.ckpt_id) + " is committed at " + level_name(ref.level) +
                      "; the heads complete it to " + level_name(level) + ".");
        transport_->hand_over(ref, level, writer.record());
    }
    log_dcp_bytes(writer);  // after FTI's "Ckpt. ID" line, as FTI prints it
}

void Checkpoints::write_single_file(int ckpt_id, const GlobalFile::DataOf& data_of, double start) {
    global_file_.checkpoint(ckpt_id, registry_, data_of);
    std::uint64_t bytes = 0;
    for (const auto& [var, subset] : registry_.global_datasets().subsets()) bytes += registry_.at(var).bytes();
    char line[200];
    std::snprintf(line, sizeof line, "Ckpt. ID %d (Variate Processor Recovery File) (%.2f MB/proc) taken in %.2f sec.",
                  ckpt_id, static_cast<double>(bytes) / (1024.0 * 1024.0), MPI_Wtime() - start);
    ctx_.log.info(line);
}

void Checkpoints::settle() {
    // The heads' verdict first: what the jobs settle now may hand a
    // checkpoint to them, for the next call.
    if (transport_) transport_->settle();
    if (jobs_) jobs_->settle();
}

void Checkpoints::drain() {
    // A settled snapshot may hand its level's work over: settle that too.
    do {
        settle();
    } while ((transport_ && transport_->pending()) || (jobs_ && jobs_->pending()));
}

void Checkpoints::log_dcp_bytes(const CheckpointWriter& writer) {
    auto bytes = writer.dcp_bytes();
    if (!bytes) return;
    std::uint64_t mine[2] = {bytes->first, bytes->second};
    std::uint64_t total[2] = {0, 0};
    reduce(mine, total, 2, MPI_UINT64_T, MPI_SUM, 0, ctx_.app, "the sizes of a differential checkpoint");
    char line[200];
    std::snprintf(line, sizeof line, "L4 differential checkpoint %d: %llu of %llu protected bytes written (%.1f%%)",
                  writer.ref().ckpt_id, static_cast<unsigned long long>(total[0]),
                  static_cast<unsigned long long>(total[1]),
                  total[1] == 0 ? 0.0 : 100.0 * static_cast<double>(total[0]) / static_cast<double>(total[1]));
    ctx_.log.info(line);
    ctx_.log.dcp(fti_messages::dcp_share(total[1], total[0]));
}

}  // namespace mlckpt::core
