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

#include "checkpoint/checkpoints.hpp"
#include "checkpoint/global_file.hpp"
#include "checkpoint/incremental_checkpoint.hpp"
#include "format/checkpoint_reader.hpp"
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
    // The run ends without FTI_Finalize (FTI_Init called again), as if the
    // process had ended: checkpoints and the restart state stay.
    void abandon() noexcept;
    // Head ranks: serve the application ranks of the node until they finalize.
    void run_head();

    MPI_Comm app_comm() const { return user_comm_.get(); }

    Registry& registry() { return registry_; }
    const Registry& registry() const { return registry_; }
    void protect(int id, void* ptr, std::int64_t count, int type);

    void checkpoint(int ckpt_id, int level);  // collective; FTI_L4_H5_SINGLE writes the global file
    bool snapshot();                          // collective; true when it checkpointed
    // FTI_Recover, FTI_RecoverVarInit .. FTI_RecoverVar ..
    // FTI_RecoverVarFinalize, FTI_RecoverDatasetDimension,
    // FTI_GetStoredSize, FTI_Realloc: the restart's (recovery/recovery.hpp).
    // FTI_Status and the restart's state: init_problem(), source().
    Recovery& recovery() { return recovery_; }
    const Recovery& recovery() const { return recovery_; }

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
    // The global HDF5 file a variate restart reads (while recovery().status() is 3).
    const fs::path& global_restart_file() const { return global_file_.restart_file(); }

  private:
    void init_application_rank(MPI_Comm user);
    void resolve_container_block_size();  // collective over all ranks
    // The checkpoint calls' common start: nothing incremental in progress.
    void refuse_during_icp() const;

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
    GlobalFile global_file_;              // FTI_L4_H5_SINGLE, and the variate restart (failure = 3)
    std::unique_ptr<Staging> staging_;    // application ranks, enable_staging = 1
    FormatState format_;                  // FTI-FF containers and the dCP baseline, continued by every checkpoint
    Recovery recovery_;
    // After what the rank's worker uses (the context, the format state), so
    // that it stops before they go.
    Checkpoints checkpoints_;
    IncrementalCheckpoint incremental_;
    bool finalized_ = false;
};

}  // namespace mlckpt::core
