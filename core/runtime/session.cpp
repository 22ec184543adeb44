#include "runtime/session.hpp"

#include <algorithm>
#include <cstdio>

#include <sstream>

#include "checkpoint/background_promotion.hpp"
#include "checkpoint/hdf5_schema.hpp"
#include "common/plural.hpp"
#include "config/restart_state.hpp"
#include "format/hdf5_handle.hpp"
#include "heads/head_service.hpp"
#include "io/file.hpp"
#include "levels/redundancy.hpp"
#include "log/fti_messages.hpp"
#include "storage/execution_dirs.hpp"
#include "store/checkpoint_store.hpp"
#include "store/retirement.hpp"
#include "store/shared_l4.hpp"

namespace mlckpt::core {

namespace {

Context build_context(const std::string& path, MPI_Comm world) {
    Config config;
    run_collectively(world, [&] { config = load_config(path); });
    return make_context(config, world);
}

}  // namespace

Session::Session(const std::string& config_path, MPI_Comm global)
    : global_(global),
      roll_call_(global),
      world_(dup_comm(global, "the library's duplicate of the communicator given to FTI_Init")),
      ctx_(build_context(config_path, world_.get())),
      registry_(ctx_.config.max_var_id),
      scheduler_(ctx_.config.ckpt_interval_min, ctx_.config.max_sync_intv, ctx_.config.fast_forward,
                 [this](const std::string& line) { ctx_.log.debug(line); }),
      injector_(ctx_.config.injection, ctx_.config.path, MPI_Wtime()),
      global_file_(ctx_),
      recovery_(ctx_, registry_, format_, global_file_, [this] { settle_handed_over(); }) {
    user_comm_ =
        Communicator(split_comm(global, ctx_.topo.is_head ? MPI_UNDEFINED : 0, ctx_.topo.app_rank, "FTI_COMM_WORLD"));
    MPI_Comm user = user_comm_.get();

    const Config& c = ctx_.config;
    std::string exec_id;
    run_collectively(world_.get(), [&] {
        if (ctx_.topo.world_rank == 0) exec_id = c.failure > 0 ? c.exec_id : claim_new_exec_id(c);
    });
    exec_id = bcast_string(world_.get(), exec_id, 0);
    ctx_.layout = StorageLayout(c, exec_id, ctx_.topo.app_to_world);

    heads_ = Communicator(
        split_comm(world_.get(), ctx_.topo.is_head ? 0 : MPI_UNDEFINED, ctx_.topo.world_rank, "the head ranks"));
    if (ctx_.topo.is_head && ctx_.topo.groups_valid) {
        const int k = ctx_.topo.group_size;
        sector_ = Communicator(
            split_comm(heads_.get(), ctx_.topo.node_id / k, ctx_.topo.node_id % k, "the heads of a group's nodes"));
    }
    if (c.enable_staging && c.head) {
        staging_comm_ = Communicator(dup_comm(world_.get(), "the heads' reports on staged files"));
    }
    if (ctx_.topo.is_head) ctx_.restart_recorded = true;  // the restart state is the application ranks' business

    // Heads wait for the application ranks' verdict so that a failed
    // FTI_Init never leaves them blocked.
    std::exception_ptr failure;
    if (!ctx_.topo.is_head) {
        try {
            init_application_rank(user);
        } catch (...) {
            failure = std::current_exception();
        }
    }
    try {
        if (c.head) {
            agree(world_.get(), failure);
        } else if (failure) {
            std::rethrow_exception(failure);
        }
    } catch (...) {
        if (c.failure == 0) remove_empty_exec_dirs(ctx_.layout, ctx_.topo.node_id, ctx_.topo.world_rank == 0);
        throw;
    }
    resolve_container_block_size();
}

// Containers align chunks to the file system's block size unless the
// configuration sets one: read once, from glbl_dir, the same for everybody.
void Session::resolve_container_block_size() {
    Config& c = ctx_.config;
    if (c.ckpt_io != IoMode::container || c.container_block_size != 0) return;
    std::int32_t size = ctx_.topo.world_rank == 0 ? file_system_block_size(c.glbl_dir) : 0;
    bcast(&size, 1, MPI_INT32_T, 0, world_.get(), "the block size of glbl_dir");
    c.container_block_size = size;
    ctx_.log.debug("container chunks aligned to " + std::to_string(size) + " bytes (the block size of glbl_dir)");
}

void Session::init_application_rank(MPI_Comm user) {
    const Config& c = ctx_.config;
    comms_ = open_app_communicators(ctx_, user);
    if (ctx_.rank() == 0) {
        for (const std::string& warning : c.warnings) ctx_.log.warning(warning);
    }
    start_background_jobs();
    run_collectively(ctx_.app, [&] {
        std::string where = c.path + ": [basic] ";
        ensure_writable_dir(c.ckpt_dir, ctx_.layout.node_exec_dir(ctx_.topo.node_id), where + "ckpt_dir", ctx_.rank());
        if (c.enable_staging) ctx_.layout.make_dir(ctx_.layout.stage_dir(ctx_.topo.node_id));
        if (ctx_.rank() == 0) {
            ensure_writable_dir(c.glbl_dir, ctx_.layout.global_exec_dir(), where + "glbl_dir", 0);
            ensure_writable_dir(c.meta_dir, ctx_.layout.meta_exec_dir(), where + "meta_dir", 0);
        }
    });
    if (c.enable_staging) staging_ = std::make_unique<Staging>(ctx_, world_.get(), staging_comm_.get());
    load_catalog_and_clean(ctx_);
    first_seq_of_run_ = ctx_.catalog.next_seq();

    ctx_.log.info(fti_messages::execution_id(ctx_.layout.exec_id(), c.failure > 0));
    recovery_.select_at_init(first_seq_of_run_);
    ctx_.log.info("mlckpt initialized: " + plural(ctx_.topo.app_size, "application rank") + " on " +
                  plural(ctx_.topo.nodes, "node") + ", execution '" + ctx_.layout.exec_id() + "'" +
                  (recovery_.status() != 0    ? ", restarting"
                   : recovery_.init_problem() ? ", nothing to restart from"
                                              : ""));
    if (ctx_.cpu_share.bound == 1 && ctx_.cpu_share.unused > 0) {
        ctx_.log.info("rank 0 is bound to a single CPU while " + plural(ctx_.cpu_share.unused, "CPU") +
                      " of its host " + (ctx_.cpu_share.unused == 1 ? "is" : "are") +
                      " bound to no rank: the library's worker threads (checksums beside the writes) share the "
                      "rank's CPU; give each rank more (mpiexec --map-by ppr:<ranks>:node:pe=<cores>, or "
                      "--bind-to none)");
    }
    ctx_.log.info(fti_messages::kInitialized);
}

Session::~Session() = default;

void Session::abandon() noexcept {
    finalized_ = true;
    // A fresh run that committed nothing leaves no empty directories behind.
    if (!ctx_.topo.is_head && ctx_.config.failure == 0 && ctx_.catalog.empty()) {
        remove_empty_exec_dirs(ctx_.layout, ctx_.topo.node_id, ctx_.rank() == 0);
    }
}

void Session::run_head() {
    HeadService(ctx_, world_.get(), global_, heads_.get(), sector_.get(), staging_comm_.get()).run();
    finalized_ = true;
}

void Session::protect(int id, void* ptr, std::int64_t count, int type) {
    const bool first = registry_.find(id) == nullptr;
    registry_.protect(id, ptr, count, type);
    const double mb = static_cast<double>(registry_.total_bytes()) / (1024.0 * 1024.0);
    if (first) {
        ctx_.log.info(fti_messages::protect_first(id, registry_.name_of(id), mb));
    } else {
        ctx_.log.debug(fti_messages::protect_again(id, mb));
    }
}

int Session::agreed_level(int level) const {
    run_collectively(ctx_.app, [&] {
        // Every rank must ask for the same level, or the collective steps would diverge.
        int bounds[2] = {-level, level};
        int agreed[2] = {0, 0};
        // Ranks arrive as their computing ends.
        allreduce(bounds, agreed, 2, MPI_INT, MPI_MAX, ctx_.app, "the checkpoint level every rank asks for");
        if (-agreed[0] != agreed[1]) {
            fail(ErrorKind::usage, "ranks asked for different checkpoint levels (" + std::to_string(-agreed[0]) +
                                       " to " + std::to_string(agreed[1]) + "); every rank must pass the same level");
        }
        if (level < 1 || level > kSingleFileLevel) {
            fail(ErrorKind::usage, "checkpoint level " + std::to_string(level) +
                                       " is invalid; allowed: FTI_L1 (1), FTI_L2 (2), FTI_L3 (3), "
                                       "FTI_L4 (4), FTI_L4_DCP (8), FTI_L4_H5_SINGLE (9)");
        }
    });
    if (level == kSingleFileLevel) return level;
    // As FTI: differential checkpoints exist at L4 only, and without dCP
    // FTI_L4_DCP takes a full L4 checkpoint.
    if (level > 4 && level < kDcpLevel) {
        if (ctx_.rank() == 0) {
            ctx_.log.warning("checkpoint level " + std::to_string(level) +
                             ": differential checkpoints exist at L4 only; taking an L" + std::to_string(level - 4) +
                             " checkpoint");
        }
        level -= 4;
    }
    if (level == kDcpLevel && !ctx_.config.enable_dcp) {
        if (ctx_.rank() == 0) {
            ctx_.log.warning("FTI_L4_DCP requested, but differential checkpoints are off ([basic] enable_dcp = 1 in " +
                             ctx_.config.path + " turns them on); taking a full L4 checkpoint");
        }
        level = 4;
    }
    run_collectively(ctx_.app, [&] {
        const Redundancy* redundancy = redundancy_of(level);
        if (redundancy != nullptr && !ctx_.topo.groups_valid) {
            fail(ErrorKind::usage, std::string("level ") + std::to_string(level) + " (" + redundancy->name() +
                                       ") needs groups, but " + ctx_.topo.groups_problem + " (" + ctx_.config.path +
                                       " [basic] group_size)");
        }
        if (level == 3 && ctx_.topo.group_size > Config::kMaxParityGroup) {
            fail(ErrorKind::usage, "level 3 (Reed-Solomon) needs groups of at most " +
                                       std::to_string(Config::kMaxParityGroup) +
                                       " nodes, but group_size = " + std::to_string(ctx_.topo.group_size) + " (" +
                                       ctx_.config.path + " [basic] group_size)");
        }
    });
    return level;
}

bool Session::deferred(int level) const {
    return ctx_.config.promoted_after_commit(level);
}

void Session::start_background_jobs() {
    const Config& c = ctx_.config;
    std::string levels;
    for (int level = 2; level <= 4; ++level) {
        if (c.promoted_after_commit(level)) levels += (levels.empty() ? "L" : ", L") + std::to_string(level);
    }
    if ((c.head || levels.empty()) && !c.async_snapshot) return;
    jobs_ = std::make_unique<BackgroundJobs>(ctx_);
    if (c.async_snapshot) snapshot_copy_ = std::make_unique<SnapshotCopy>(std::uint64_t(c.async_snapshot_mb) << 20);
    if (ctx_.rank() != 0) return;
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

void Session::checkpoint(int ckpt_id, int level) {
    if (icp_ || icp_single_) {
        fail(ErrorKind::usage,
             "an incremental checkpoint (FTI_InitICP) is in progress; finish it "
             "with FTI_FinalizeICP first");
    }
    BackgroundWork::DuringTheNextCompute hold(*ctx_.background);
    settle_handed_over();
    with_background_report([&] { take_checkpoint(ckpt_id, level); });
}

void Session::wait_background() {
    if (icp_ || icp_single_) {
        fail(ErrorKind::usage,
             "an incremental checkpoint (FTI_InitICP) is in progress; finish it with FTI_FinalizeICP "
             "first");
    }
    drain_background();
    with_background_report([] {});
}

void Session::drain_background() {
    // A settled snapshot may hand its level's work over: settle that too.
    do {
        settle_handed_over();
    } while (handed_over_ || (jobs_ && jobs_->pending()));
}

void Session::with_background_report(const std::function<void()>& own_work) {
    try {
        own_work();
    } catch (...) {
        background_failure_.reset();  // logged; the call's own failure is the one it returns
        throw;
    }
    if (!background_failure_) return;
    Error failure = *background_failure_;
    background_failure_.reset();
    throw failure;
}

void Session::take_checkpoint(int ckpt_id, int level) {
    recovery_.settle_restart_redundancy();
    level = agreed_level(level);
    double start = MPI_Wtime();
    if (level == kSingleFileLevel) {
        global_file_.checkpoint(ckpt_id, registry_,
                                [](const Variable& v) { return std::span<const std::byte>(v.data()); });
        log_single_file(ckpt_id, MPI_Wtime() - start);
        return;
    }
    format_.hdf5 = hdf5_schema(registry_);
    if (takes_snapshot(ckpt_id, level)) return take_snapshot(ckpt_id, level, start);
    CheckpointWriter writer(ctx_, ckpt_id, written_level(level), registry_.variables(), format_, false,
                            deferred(written_level(level)));
    try {
        for (const Variable& var : registry_.variables()) writer.add(var, registry_.name_of(var.id));
    } catch (const Error&) {
        // Remembered by the writer; commit() makes every rank fail with it.
    }
    after_commit(commit(writer, level, std::nullopt), level, MPI_Wtime() - start);
    log_dcp_bytes(writer);  // after FTI's "Ckpt. ID" line, as FTI prints it
}

bool Session::takes_snapshot(int ckpt_id, int level) {
    if (!snapshot_copy_ || level < 1 || level > 4) return false;  // not FTI_L4_DCP: its journal is the copy
    if (file_format(ctx_.config.ckpt_io, written_level(level)) == IoMode::hdf5 && !h5::hdf5_thread_safe()) {
        // The worker would call HDF5 while the application may too.
        if (ctx_.rank() == 0 && !snapshot_refusal_logged_) {
            ctx_.log.info(
                "HDF5 checkpoints (ckpt_io = 5) are written before FTI_Checkpoint returns, not from an "
                "in-memory snapshot: this HDF5 library is not thread-safe");
        }
        snapshot_refusal_logged_ = true;
        return false;
    }
    std::uint64_t mine = SnapshotCopy::footprint(registry_.variables());
    std::uint64_t most = 0;
    allreduce(&mine, &most, 1, MPI_UINT64_T, MPI_MAX, ctx_.app, "the size of the in-memory snapshots");
    if (most <= snapshot_copy_->budget()) return true;
    if (ctx_.rank() == 0) {
        ctx_.log.info("checkpoint " + std::to_string(ckpt_id) + ": the protected data (up to " +
                      std::to_string(most >> 20) +
                      " MiB on a rank) exceeds the in-memory snapshot's budget ([basic] "
                      "async_snapshot_mb = " +
                      std::to_string(ctx_.config.async_snapshot_mb) + " in " + ctx_.config.path +
                      "); it is written before FTI_Checkpoint returns");
    }
    return false;
}

// The variables are copied, the file opened (collectively: its directory,
// and the FTI-FF layout), and the rest of the checkpoint (the file written
// from the copy, the commit, the level's work) left to the rank's worker.
void Session::take_snapshot(int ckpt_id, int level, double start) {
    std::vector<Variable> copies;
    run_collectively(ctx_.app, [&] { copies = snapshot_copy_->take(registry_.variables()); });
    std::vector<std::string> names;
    for (const Variable& var : copies) names.push_back(registry_.name_of(var.id));
    const int written = written_level(level);
    auto writer = std::make_shared<CheckpointWriter>(ctx_, ckpt_id, written, copies, format_, false, deferred(written));
    BackgroundJobs::Job job;
    job.what = "writing checkpoint " + std::to_string(ckpt_id) + " from its in-memory snapshot";
    job.local = [writer, copies = std::move(copies), names = std::move(names)] {
        for (std::size_t i = 0; i < copies.size(); ++i) writer->add(copies[i], names[i]);
        writer->finish_file();
    };
    // A worker that communicates goes on to the level's work at once; else
    // it is handed over once the checkpoint is settled.
    std::shared_ptr<ChainedPromotion> chained;
    if (jobs_->worker_communicates() && !ctx_.config.head && deferred(level))
        chained = std::make_shared<ChainedPromotion>();
    job.collective = [this, writer, level, chained](MPI_Comm app, MPI_Comm group) {
        writer->commit_metadata_over(app);
        if (!chained) return;
        chained->promotion.emplace(ctx_, writer->ref(), level, writer->record());
        try {
            run_collectively(app, [&] { chained->promotion->run_local(); });
            chained->promotion->communicate(app, group);
        } catch (...) {
            chained->failure = std::current_exception();
        }
    };
    job.settle = [this, writer, level, chained](std::exception_ptr failure) {
        settle_snapshot(writer, level, failure, chained.get());
    };
    jobs_->post(std::move(job));
    ctx_.log.info(fti_messages::checkpoint_taken(
        ckpt_id, level, static_cast<double>(registry_.total_bytes()) / (1024.0 * 1024.0), MPI_Wtime() - start));
    ctx_.log.info("Checkpoint " + std::to_string(ckpt_id) + " is copied in memory; it is written and committed at " +
                  level_name(written) + " in the background.");
}

void Session::settle_snapshot(const std::shared_ptr<CheckpointWriter>& writer, int level, std::exception_ptr failure,
                              ChainedPromotion* chained) {
    if (failure) {  // the writer, released with the job, removes what it wrote
        return note_background_failure("checkpoint " + std::to_string(writer->ref().ckpt_id) +
                                           " could not be written from its in-memory snapshot: ",
                                       failure, "; older checkpoints are kept");
    }
    writer->adopt_commit();
    writer->update_state(format_);
    writer->leave_to_background();
    recovery_.after_commit();
    const CheckpointRef& ref = writer->ref();
    ctx_.log.debug("checkpoint " + std::to_string(ref.ckpt_id) + " committed at " + level_name(ref.level) +
                   " from its in-memory snapshot");
    if (!deferred(level)) return retire(ctx_, ctx_.catalog.superseded_by(ref.level, ref.seq));
    if (!chained) return hand_over(ref, level, writer->record());
    if (chained->failure) chained->promotion->discard();
    settle_promotion(ref, level, chained->failure);
}

CheckpointRef Session::commit(CheckpointWriter& writer, int level, const std::optional<std::string>& missing) {
    bool handing_over = deferred(level);
    // FTI's node flag: the node's first application rank completes the
    // levels that no head completes (L4 differential: none, as FTI). Before
    // the commit's collective steps, as FTI prints it before its own: a
    // program may read every rank's line once its FTI_Checkpoint returns.
    if (ctx_.topo.node_index == 0 && level <= 4 && !(ctx_.config.head && handing_over)) {
        ctx_.log.debug(fti_messages::node_flag(ctx_.topo.node_id, level));
    }
    CheckpointRef ref = writer.commit({missing, handing_over});
    writer.update_state(format_);
    writer.leave_to_background();
    if (handing_over) hand_over(ref, level, writer.record());
    return ref;
}

void Session::hand_over(const CheckpointRef& ref, int level, const FileRecord& record) {
    if (ctx_.config.head) {
        std::ostringstream post;
        handed_over_ = HandedOver{ref, level};
        // The heads retire what the completed checkpoint supersedes, but
        // the checkpoint a restart has not recovered from yet: FTI_Recover
        // may still read it until the verdict is collected.
        const std::optional<CheckpointRef> still_read = recovery_.still_read();
        for (const CheckpointRef& r : retired_by(*handed_over_)) {
            if (!still_read || r.seq != still_read->seq || r.level != still_read->level) {
                handed_over_->retired_by_heads.push_back(r);
            }
        }
        post << "POST " << CheckpointRef{ref.seq, level, ref.ckpt_id, ref.own_dir};
        for (const CheckpointRef& r : handed_over_->retired_by_heads) post << ' ' << r;
        post << '\n' << serialize_file_record(record);
        send_text(world_.get(), post.str(), ctx_.topo.head_world_rank, ctx_.config.general_tag);
        return;
    }
    jobs_->post(promotion_job(ctx_, ref, level, record, [this, ref, level](std::exception_ptr failure) {
        settle_promotion(ref, level, failure);
    }));
}

void Session::settle_promotion(const CheckpointRef& committed, int level, std::exception_ptr failure) {
    if (!failure) return complete_handed_over({committed, level});
    note_background_failure(
        "the background promotion of checkpoint " + std::to_string(committed.ckpt_id) + " to " + level_name(level) +
            " failed: ",
        failure,
        std::string("; it stays recoverable at ") + level_name(committed.level) + ", and older checkpoints are kept");
}

void Session::note_background_failure(const std::string& what, std::exception_ptr failure,
                                      const std::string& consequence) {
    ErrorKind kind = ErrorKind::io;
    std::string reason;
    try {
        std::rethrow_exception(failure);
    } catch (const Error& e) {
        kind = e.kind();
        reason = e.what();
    } catch (const std::exception& e) {
        reason = e.what();
    }
    // Reported by the call that settled it (with_background_report).
    background_failure_ = Error(kind, what + reason + consequence);
    if (ctx_.rank() == 0) ctx_.log.warning(background_failure_->what());
}

std::optional<std::string> Session::head_verdict() {
    int level = kHeadFailed;
    recv(&level, 1, MPI_INT, ctx_.topo.head_world_rank, ctx_.config.general_tag, global_,
         "the head's verdict on the checkpoint it post-processes");
    // Every head sends the same verdict, so the application ranks act alike.
    if (level != kHeadFailed) return std::nullopt;
    return receive_text(world_.get(), ctx_.topo.head_world_rank, ctx_.config.stage_tag);
}

void Session::settle_handed_over() {
    // The heads' verdict first: what the jobs settle now may hand a
    // checkpoint to them, for the next call.
    settle_head_verdict();
    if (jobs_) jobs_->settle();
}

void Session::settle_head_verdict() {
    if (!handed_over_) return;
    HandedOver h = *handed_over_;
    handed_over_.reset();
    if (std::optional<std::string> reason = head_verdict()) {
        if (ctx_.rank() == 0) {
            ctx_.log.warning("the head could not complete checkpoint " + std::to_string(h.committed.ckpt_id) + " to " +
                             level_name(h.level) + " (" + *reason +
                             "); it stays recoverable as committed, older checkpoints are kept");
        }
        return;
    }
    complete_handed_over(h);
}

void Session::complete_handed_over(const HandedOver& h) {
    CheckpointRef done{h.committed.seq, h.level, h.committed.ckpt_id, h.committed.own_dir};
    std::vector<CheckpointRef> retired = retired_by(h);
    if (h.level != h.committed.level) ctx_.catalog.add(done);
    forget_retired(ctx_, h.retired_by_heads);  // the heads retired them before their verdict
    std::erase_if(retired, [&](const CheckpointRef& r) {
        return std::any_of(h.retired_by_heads.begin(), h.retired_by_heads.end(),
                           [&](const CheckpointRef& x) { return x.seq == r.seq && x.level == r.level; });
    });
    retire(ctx_, retired);
    recovery_.forget_superseded_source();
    ctx_.log.debug("checkpoint " + std::to_string(done.ckpt_id) + " completed to " + level_name(done.level) +
                   (ctx_.config.head ? " by the head" : " in the background"));
}

std::vector<CheckpointRef> Session::retired_by(const HandedOver& h) const {
    std::vector<CheckpointRef> retired = ctx_.catalog.superseded_by(h.level, h.committed.seq);
    // Flushed to L4: the local copy goes, but where the heads flushed it.
    // They keep it, as FTI's heads do, and it is the first restart source
    // (the L4 files the fallback), until the next checkpoint retires it.
    if (h.level != h.committed.level && !ctx_.config.head) retired.push_back(h.committed);
    return retired;
}

void Session::after_commit(const CheckpointRef& ref, int level, double seconds) {
    recovery_.after_commit();
    ctx_.log.info(fti_messages::checkpoint_taken(
        ref.ckpt_id, level, static_cast<double>(registry_.total_bytes()) / (1024.0 * 1024.0), seconds));
    if (deferred(level)) {
        ctx_.log.info("Checkpoint " + std::to_string(ref.ckpt_id) + " is committed at " + level_name(ref.level) +
                      "; the heads complete it to " + level_name(level) + ".");
    }
}

void Session::log_dcp_bytes(const CheckpointWriter& writer) {
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

bool Session::snapshot() {
    if (recovery_.status() != 0) {
        recovery_.recover();
        return false;
    }
    auto mean_over_ranks = [this](double mine) {
        double sum = 0.0;
        allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, ctx_.app, "FTI_Snapshot's iteration length");
        return sum / ctx_.topo.app_size;
    };
    int level = scheduler_.on_iteration(mean_over_ranks, MPI_Wtime());
    struct EndOfCall {
        SnapshotScheduler& scheduler;
        ~EndOfCall() { scheduler.after_call(MPI_Wtime()); }
    } end_of_call{scheduler_};
    if (level == 0) return false;
    checkpoint(ctx_.catalog.last_ckpt_id() + 1, level);
    return true;
}

BitFlipResult Session::bit_flip(int id) {
    BitFlipResult result = injector_.inject(id, registry_.find(id), ctx_.rank(), MPI_Wtime());
    if (result.flipped) ctx_.log.warning(result.message);  // as FTI, which warns on the flipping rank
    return result;
}

void Session::icp_init(int ckpt_id, int level, bool activate) {
    if (icp_ || icp_single_) fail(ErrorKind::usage, "an incremental checkpoint is already in progress");
    icp_inactive_ = !activate;
    if (!activate) return;
    BackgroundWork::DuringTheNextCompute hold(*ctx_.background);
    settle_handed_over();
    recovery_.settle_restart_redundancy();
    level = agreed_level(level);
    if (level == kSingleFileLevel) {
        icp_single_.emplace();
        icp_single_id_ = ckpt_id;
        icp_start_ = MPI_Wtime();
        return;
    }
    format_.hdf5 = hdf5_schema(registry_);
    icp_ = std::make_unique<CheckpointWriter>(ctx_, ckpt_id, written_level(level), registry_.variables(), format_, true,
                                              deferred(written_level(level)));
    icp_level_ = level;
    icp_start_ = MPI_Wtime();
}

void Session::icp_add(int id) {
    if (icp_inactive_) return;
    if (!icp_ && !icp_single_) fail(ErrorKind::usage, "FTI_AddVarICP without FTI_InitICP");
    const Variable& var = registry_.at(id);
    if (icp_single_) {
        if (!icp_single_->emplace(id, std::vector<std::byte>(var.data().begin(), var.data().end())).second) {
            fail(ErrorKind::usage, "variable " + std::to_string(id) + " was already added to this checkpoint");
        }
        return;
    }
    if (icp_->has(id)) {
        fail(ErrorKind::usage, "variable " + std::to_string(id) + " was already added to this checkpoint");
    }
    icp_->add(var, registry_.name_of(id));
}

bool Session::icp_finalize() {
    bool taken = false;
    with_background_report([&] { taken = finish_icp(); });
    return taken;
}

bool Session::finish_icp() {
    if (icp_inactive_) {
        icp_inactive_ = false;
        return false;
    }
    if (icp_single_) {
        finalize_icp_single();
        return true;
    }
    if (!icp_) fail(ErrorKind::usage, "FTI_FinalizeICP without FTI_InitICP");
    std::unique_ptr<CheckpointWriter> writer = std::move(icp_);
    std::string missing;
    for (const Variable& var : registry_.variables()) {
        if (!writer->has(var.id)) missing += (missing.empty() ? "" : ", ") + std::to_string(var.id);
    }
    std::optional<std::string> complaint;
    if (!missing.empty()) {
        complaint = "incremental checkpoint " + std::to_string(writer->ref().ckpt_id) + ": protected variables " +
                    missing + " were not added with FTI_AddVarICP; the checkpoint is discarded";
    }
    after_commit(commit(*writer, icp_level_, complaint), icp_level_, MPI_Wtime() - icp_start_);
    log_dcp_bytes(*writer);
    return true;
}

void Session::finalize_icp_single() {
    const std::map<int, std::vector<std::byte>> copies = std::move(*icp_single_);
    icp_single_.reset();
    std::string missing;
    for (const auto& [var, subset] : registry_.global_datasets().subsets()) {
        if (copies.count(var) == 0) missing += (missing.empty() ? "" : ", ") + std::to_string(var);
    }
    run_collectively(ctx_.app, [&] {
        if (!missing.empty()) {
            fail(ErrorKind::usage, "incremental checkpoint " + std::to_string(icp_single_id_) +
                                       " (FTI_L4_H5_SINGLE): the subsets of variables " + missing +
                                       " were not added with FTI_AddVarICP; no file was written");
        }
    });
    global_file_.checkpoint(icp_single_id_, registry_, [&](const Variable& v) {
        const std::vector<std::byte>& copy = copies.at(v.id);
        if (copy.size() != v.bytes()) {
            fail(ErrorKind::usage,
                 "variable " + std::to_string(v.id) + " changed size between FTI_AddVarICP and FTI_FinalizeICP");
        }
        return std::span<const std::byte>(copy);
    });
    log_single_file(icp_single_id_, MPI_Wtime() - icp_start_);
}

void Session::log_single_file(int ckpt_id, double seconds) {
    std::uint64_t bytes = 0;
    for (const auto& [var, subset] : registry_.global_datasets().subsets()) bytes += registry_.at(var).bytes();
    char line[200];
    std::snprintf(line, sizeof line, "Ckpt. ID %d (Variate Processor Recovery File) (%.2f MB/proc) taken in %.2f sec.",
                  ckpt_id, static_cast<double>(bytes) / (1024.0 * 1024.0), seconds);
    ctx_.log.info(line);
}

void Session::finalize() {
    if (finalized_) return;
    finalized_ = true;
    if (ctx_.topo.is_head) return;
    icp_.reset();
    icp_single_.reset();
    recovery_.end();
    std::exception_ptr failure;
    try {
        drain_background();
        with_background_report([&] {
            finish_staging();
            finish_finalize();
        });
    } catch (...) {
        failure = std::current_exception();
    }
    if (ctx_.config.head) send_text(world_.get(), "FINALIZE", ctx_.topo.head_world_rank, ctx_.config.general_tag);
    agree(ctx_.app, failure);
    ctx_.log.info(fti_messages::kFinalized);
}

Staging& Session::staging() {
    if (!staging_) {
        fail(ErrorKind::usage, "staging is disabled ([basic] enable_staging = 1 in " + ctx_.config.path +
                                   " enables it); no action performed");
    }
    return *staging_;
}

void Session::finish_staging() {
    if (!staging_) return;
    // As FTI, FTI_Finalize returns once the staged files are where they
    // were sent, and removes the stage directory with what is left in it.
    staging_->finish();
    barrier(ctx_.app, "every rank's staged files moved");
    if (ctx_.topo.node_index == 0) remove_tree(ctx_.layout.stage_dir(ctx_.topo.node_id));
}

void Session::set_restart_state(int failure) {
    run_collectively(ctx_.app, [&] {
        if (ctx_.rank() == 0) write_restart_state(ctx_.config.path, failure, ctx_.layout.exec_id());
    });
}

void Session::finish_finalize() {
    const Config& c = ctx_.config;
    const CheckpointRef* newest = ctx_.catalog.newest();
    const bool committed_since = newest != nullptr && newest->seq >= first_seq_of_run_;
    const bool data_kept = newest != nullptr || !ctx_.catalog.unrecorded_data().empty();
    if (recovery_.init_problem() && !committed_since && data_kept) {
        // The restart failed and this run committed nothing newer: the old
        // checkpoints may become recoverable once a file is repaired or a
        // lost directory restored. Files and restart state stay as they are,
        // so that relaunching tries again.
        ctx_.background->wait();
        barrier(ctx_.app);
        if (ctx_.rank() != 0) return;
        ctx_.log.warning("FTI_Finalize after a failed restart: the checkpoints of execution '" + ctx_.layout.exec_id() +
                         "' and the restart state in " + c.path +
                         " are kept, and relaunching tries to restart from them again (repair or restore what "
                         "is named above first); to start afresh instead, set [restart] failure = 0 in " +
                         c.path + " and remove '" + ctx_.layout.meta_exec_dir().string() + "', '" +
                         ctx_.layout.global_exec_dir().string() + "' and the '" + ctx_.layout.exec_id() +
                         "' directories under " + c.ckpt_dir);
        return;
    }
    if (c.keep_last_ckpt && newest != nullptr) {
        CheckpointRef kept = *newest;
        if (ctx_.catalog.contains(kept.seq, 4)) kept.level = 4;  // the heads' L1 copy of an L4 checkpoint
        if (kept.level < 4) kept = flush_to_l4(ctx_, kept);
        set_restart_state(2);
        std::vector<CheckpointRef> others;
        for (const CheckpointRef& r : ctx_.catalog.refs()) {
            if (r.seq != kept.seq || r.level != kept.level) others.push_back(r);
        }
        retire(ctx_, others);
        ctx_.background->wait();
        barrier(ctx_.app);
        if (ctx_.topo.node_index == 0) remove_tree(ctx_.layout.node_exec_dir(ctx_.topo.node_id));
        ctx_.log.info("Checkpoint " + std::to_string(kept.ckpt_id) + " kept at L4; relaunching restarts from it.");
        return;
    }
    // The restart flag is cleared before any checkpoint goes, so a crash in
    // between never leaves "restart" pointing at deleted checkpoints.
    // A variate restart that found no global file keeps failure = 3, so
    // that relaunching tries again once the file is there.
    const bool variate_pending = c.variate_restart && recovery_.init_problem() && !committed_since;
    if ((ctx_.restart_recorded || c.failure != 0 || c.variate_restart) && !variate_pending) set_restart_state(0);
    retire(ctx_, ctx_.catalog.refs());
    ctx_.background->wait();
    barrier(ctx_.app);
    if (ctx_.topo.node_index == 0) remove_tree(ctx_.layout.node_exec_dir(ctx_.topo.node_id));
    if (ctx_.rank() == 0) {
        if (c.keep_l4_ckpt) {
            remove_tree(ctx_.layout.level_dir(4, 0));
            remove_tree(ctx_.layout.meta_copy_dir(4, 0));  // empty: the archive holds its checkpoints' copies
        } else {
            remove_tree(ctx_.layout.global_exec_dir());
            remove_tree(ctx_.layout.meta_exec_dir());
        }
    }
    ctx_.log.info("FTI finalized: checkpoints of execution '" + ctx_.layout.exec_id() + "' removed" +
                  (c.keep_l4_ckpt ? " (L4 archive kept)." : "."));
}

}  // namespace mlckpt::core
