// The session state machine behind the C API: one per FTI_Init .. FTI_Finalize.
// Collective methods must be called by every application rank; each either
// succeeds everywhere or throws the same Error everywhere.
#pragma once

#include <mpi.h>

#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checkpoint/background_jobs.hpp"
#include "checkpoint/background_promotion.hpp"
#include "checkpoint/checkpoint_writer.hpp"
#include "checkpoint/global_file.hpp"
#include "checkpoint/snapshot_copy.hpp"
#include "format/checkpoint_reader.hpp"
#include "format/ftiff_layout.hpp"
#include "io/buffer_pool.hpp"
#include "mpi/collective.hpp"
#include "recovery/recovery.hpp"
#include "registry/registry.hpp"
#include "runtime/bit_flip.hpp"
#include "runtime/snapshot_scheduler.hpp"
#include "staging/staging.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

class Session {
  public:
    // Collective over `global`. Throws a config Error for a bad configuration.
    Session(const std::string& config_path, MPI_Comm global);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    bool is_head() const { return ctx_.topo.is_head; }
    bool keep_heads_alive() const { return ctx_.config.keep_heads_alive; }
    bool has_heads() const { return ctx_.config.head; }
    // The run ends without FTI_Finalize (FTI_Init called again), as if the
    // process had ended: checkpoints and the restart state stay.
    void abandon() noexcept;
    // Head ranks: serve the application ranks of the node until they finalize.
    void run_head();

    // Set when a restart was requested but no checkpoint can be recovered.
    const std::optional<std::string>& init_problem() const { return recovery_.init_problem(); }
    MPI_Comm app_comm() const { return user_comm_.get(); }
    const Logger& log() const { return ctx_.log; }
    int status() const { return recovery_.status(); }

    Registry& registry() { return registry_; }
    const Registry& registry() const { return registry_; }
    void protect(int id, void* ptr, std::int64_t count, int type);

    void checkpoint(int ckpt_id, int level);  // collective; FTI_L4_H5_SINGLE writes the global file
    bool snapshot();                          // collective; true when it checkpointed
    // FTI_Recover, FTI_RecoverVarInit .. FTI_RecoverVar ..
    // FTI_RecoverVarFinalize, FTI_RecoverDatasetDimension,
    // FTI_GetStoredSize, FTI_Realloc: the restart's (recovery/recovery.hpp).
    Recovery& recovery() { return recovery_; }

    void icp_init(int ckpt_id, int level, bool activate);  // collective
    void icp_add(int id);
    bool icp_finalize();  // collective; true when a checkpoint was committed

    void finalize();  // collective
    // Collective: the background work of the last checkpoint done and
    // settled; throws its failure.
    void wait_background();

    // FTI_GetStageDir, FTI_SendFile, FTI_GetStageStatus: a usage Error when
    // [basic] enable_staging is off.
    Staging& staging();
    // FTI_BitFlip (local): the [injection] flip into variable `id`, when
    // this rank is due one.
    BitFlipResult bit_flip(int id);
    // What FTI_GetConfig reports.
    const Context& context() const { return ctx_; }
    MPI_Comm global_comm() const { return global_; }
    const BitFlipInjector& injector() const { return injector_; }
    // The global HDF5 file a variate restart reads (while status() is 3).
    const fs::path& global_restart_file() const { return global_file_.restart_file(); }
    // The checkpoint a recovery reads, when one is selected.
    const std::optional<RecoverySource>& recovery_source() const { return recovery_.source(); }

  private:
    struct HandedOver {
        CheckpointRef committed;  // as the application ranks committed it
        int level;                // the level the head or the rank's worker completes it to
        // What the heads retire once they completed it (the others are
        // retired here when their verdict comes).
        std::vector<CheckpointRef> retired_by_heads = {};
    };

    void init_application_rank(MPI_Comm user);
    void resolve_container_block_size();  // collective over all ranks
    // Collective: the level every rank asked for, as it is taken (FTI_L4_DCP
    // without dCP is L4); throws a usage Error when it cannot be.
    int agreed_level(int level) const;
    // Whether the node's head finishes checkpoints of `level`, and the level
    // the application ranks then write and commit themselves.
    bool deferred(int level) const;
    int written_level(int level) const { return deferred(level) && level == 4 ? 1 : level; }
    CheckpointRef commit(CheckpointWriter& writer, int level, const std::optional<std::string>& missing);
    // Collective: the outcome of the level's work on the checkpoint handed
    // over (to the head, or to the rank's worker), acted upon.
    void settle_handed_over();
    void settle_head_verdict();
    // Hands checkpoint `ref`, committed with this rank's file `record`
    // alone, to the head or to the rank's worker, to complete it to `level`.
    void hand_over(const CheckpointRef& ref, int level, const FileRecord& record);
    void settle_promotion(const CheckpointRef& committed, int level, std::exception_ptr failure);
    // Logs a failure of background work and keeps it for the call to report.
    void note_background_failure(const std::string& what, std::exception_ptr failure, const std::string& consequence);
    bool takes_snapshot(int ckpt_id, int level);  // collective
    void take_snapshot(int ckpt_id, int level, double start);
    // The level's work done by the snapshot's job right after its commit
    // (a worker that communicates).
    struct ChainedPromotion {
        std::optional<Promotion> promotion;
        std::exception_ptr failure;
    };
    void settle_snapshot(const std::shared_ptr<CheckpointWriter>& writer, int level, std::exception_ptr failure,
                         ChainedPromotion* chained);
    // Collective: settles until nothing is left in the background.
    void drain_background();
    void take_checkpoint(int ckpt_id, int level);  // collective: FTI_Checkpoint's own work
    std::optional<std::string> head_verdict();     // why the head failed, if it did
    void complete_handed_over(const HandedOver& h);
    // What completing `h` retires: the checkpoints it supersedes and, when
    // a rank's worker flushed it to L4, its local copy.
    std::vector<CheckpointRef> retired_by(const HandedOver& h) const;
    // Runs the call's own work, then reports the failure of the background
    // work that settle_handed_over() found, once: its own failure first.
    void with_background_report(const std::function<void()>& own_work);
    bool finish_icp();             // collective: FTI_FinalizeICP's own work
    void start_background_jobs();  // collective
    void after_commit(const CheckpointRef& ref, int level, double seconds);
    void log_dcp_bytes(const CheckpointWriter& writer);  // collective
    void finish_finalize();
    void finalize_icp_single();  // collective
    void log_single_file(int ckpt_id, double seconds);
    // Collective: every staged file is moved, then the stage directories go.
    void finish_staging();
    void set_restart_state(int failure);  // collective; rank 0 rewrites the file

    // Declared first, so destroyed last: once nothing of the session can
    // hold a pooled buffer any more, the kept ones are freed and the
    // application has that memory back after FTI_Finalize.
    struct ReleaseIdleBuffers {
        ~ReleaseIdleBuffers() { release_idle_buffers(); }
    } release_idle_buffers_;
    MPI_Comm global_;            // the application's, given to FTI_Init (the heads' verdicts, FTI_ENDW)
    RollCall roll_call_;         // on a duplicate of global_: where a rank that waited too long asks its peers
    Communicator world_;         // library traffic over all ranks, heads included
    Communicator user_comm_;     // FTI_COMM_WORLD
    AppCommunicators comms_;     // library traffic over the application ranks, this rank's L2/L3 group
    Communicator heads_;         // head ranks: every head
    Communicator sector_;        // head ranks: the heads of this node's group of nodes
    Communicator staging_comm_;  // with heads and staging: the heads' reports on staged files
    Context ctx_;
    Registry registry_;
    SnapshotScheduler scheduler_;
    BitFlipInjector injector_;
    std::uint64_t first_seq_of_run_ = 1;  // checkpoints below it predate this run

    std::optional<HandedOver> handed_over_;
    std::unique_ptr<SnapshotCopy> snapshot_copy_;  // async_snapshot
    bool snapshot_refusal_logged_ = false;
    std::optional<Error> background_failure_;

    GlobalFile global_file_;  // FTI_L4_H5_SINGLE, and the variate restart (failure = 3)
    std::unique_ptr<CheckpointWriter> icp_;
    // An incremental FTI_L4_H5_SINGLE checkpoint: each variable's bytes as
    // FTI_AddVarICP found them, written at FTI_FinalizeICP.
    std::optional<std::map<int, std::vector<std::byte>>> icp_single_;
    int icp_single_id_ = 0;
    int icp_level_ = 0;
    bool icp_inactive_ = false;
    double icp_start_ = 0.0;
    std::unique_ptr<Staging> staging_;  // application ranks, enable_staging = 1
    FormatState format_;                // FTI-FF containers and the dCP baseline, continued by every checkpoint
    Recovery recovery_;
    bool finalized_ = false;
    // Head = 0 with a level whose inline_l<L> is 0, or async_snapshot: the
    // rank's worker thread. Last, so that it stops before anything its jobs
    // use (the context, the snapshot's copies) goes.
    std::unique_ptr<BackgroundJobs> jobs_;
};

}  // namespace mlckpt::core
