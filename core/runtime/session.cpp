#include "runtime/session.hpp"

#include "common/plural.hpp"
#include "heads/head_service.hpp"
#include "io/file.hpp"
#include "log/fti_messages.hpp"
#include "storage/execution_dirs.hpp"
#include "store/checkpoint_store.hpp"
#include "store/end_of_run.hpp"
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
      scheduler_(ctx_.levels.intervals(), ctx_.config.max_sync_intv, ctx_.config.fast_forward,
                 [this](const std::string& line) { ctx_.log.debug(line); }),
      injector_(ctx_.config.injection, ctx_.config.path, MPI_Wtime()),
      global_file_(ctx_),
      recovery_(ctx_, registry_, format_, global_file_, [this] { checkpoints_.settle(); }),
      checkpoints_(ctx_, registry_, format_, global_file_, global_, world_.get(),
                   {[this] { recovery_.after_commit(); }, [this] { recovery_.forget_superseded_source(); },
                    [this] { return recovery_.still_read(); }}),
      incremental_(ctx_, checkpoints_, registry_) {
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
    const Config& c = ctx_.config;
    ctx_.container_block_size = c.container_block_size;
    if (c.ckpt_io != IoMode::container || c.container_block_size != 0) return;
    std::int32_t size = ctx_.topo.world_rank == 0 ? file_system_block_size(c.glbl_dir) : 0;
    bcast(&size, 1, MPI_INT32_T, 0, world_.get(), "the block size of glbl_dir");
    ctx_.container_block_size = size;
    ctx_.log.debug("container chunks aligned to " + std::to_string(size) + " bytes (the block size of glbl_dir)");
}

void Session::init_application_rank(MPI_Comm user) {
    const Config& c = ctx_.config;
    comms_ = open_app_communicators(ctx_, user);
    if (ctx_.rank() == 0) {
        for (const std::string& warning : c.warnings) ctx_.log.warning(warning);
    }
    checkpoints_.start();
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
    load_catalog_and_clean(ctx_, c.failure > 0);
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

void Session::refuse_during_icp() const {
    if (incremental_.in_progress()) {
        fail(ErrorKind::usage,
             "an incremental checkpoint (FTI_InitICP) is in progress; finish it with FTI_FinalizeICP first");
    }
}

void Session::checkpoint(int ckpt_id, int level) {
    refuse_during_icp();
    BackgroundWork::DuringTheNextCompute hold(*ctx_.background);
    checkpoints_.settle();
    checkpoints_.report_after([&] {
        recovery_.settle_restart_redundancy();
        checkpoints_.take(ckpt_id, level);
    });
}

void Session::wait_background() {
    refuse_during_icp();
    checkpoints_.drain();
    checkpoints_.report_after([] {});
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
    const std::optional<int> level = scheduler_.on_iteration(mean_over_ranks, MPI_Wtime());
    struct EndOfCall {
        SnapshotScheduler& scheduler;
        ~EndOfCall() { scheduler.after_call(MPI_Wtime()); }
    } end_of_call{scheduler_};
    if (!level) return false;
    checkpoint(ctx_.catalog.last_ckpt_id() + 1, *level);
    return true;
}

BitFlipResult Session::bit_flip(int id) {
    BitFlipResult result = injector_.inject(id, registry_.find(id), ctx_.rank(), MPI_Wtime());
    if (result.flipped) ctx_.log.warning(result.message);  // as FTI, which warns on the flipping rank
    return result;
}

void Session::icp_init(int ckpt_id, int level, bool activate) {
    if (incremental_.in_progress()) fail(ErrorKind::usage, "an incremental checkpoint is already in progress");
    if (!activate) return incremental_.begin_inactive();
    BackgroundWork::DuringTheNextCompute hold(*ctx_.background);
    checkpoints_.settle();
    recovery_.settle_restart_redundancy();
    incremental_.begin(ckpt_id, level);
}

void Session::icp_add(int id) {
    incremental_.add(id);
}

bool Session::icp_finalize() {
    bool taken = false;
    checkpoints_.report_after([&] { taken = incremental_.finish(); });
    return taken;
}

void Session::finalize() {
    if (finalized_) return;
    finalized_ = true;
    if (ctx_.topo.is_head) return;
    incremental_.discard();
    recovery_.end();
    std::exception_ptr failure;
    try {
        checkpoints_.drain();
        checkpoints_.report_after([&] {
            if (staging_) staging_->finish();
            end_execution(ctx_, {first_seq_of_run_, recovery_.init_problem().has_value()});
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

}  // namespace mlckpt::core
