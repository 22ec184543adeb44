// The restart's life: the checkpoint FTI_Init selected (recovery/selector),
// then its reads. FTI_Recover and FTI_RecoverVarInit .. FTI_RecoverVar ..
// FTI_RecoverVarFinalize, in any mix over the ranks; data that fails while
// it is read sends every rank to a repaired or older checkpoint; after a
// recovery from L2 or L3 the redundancy kept here is checked in the
// background and rebuilt before the next checkpoint. A variate restart
// (failure = 3) reads the global HDF5 file instead.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checkpoint/checkpoint_file.hpp"
#include "checkpoint/global_file.hpp"
#include "format/checkpoint_reader.hpp"
#include "recovery/restart_redundancy.hpp"
#include "recovery/selector.hpp"
#include "registry/registry.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

class Recovery {
  public:
    // `format`: where the next checkpoint continues (the FTI-FF containers
    // and the dCP baseline of the checkpoint recovered from).
    // `settle_checkpoints`: collective; settles the checkpoints still
    // completed in the background, before the newest one is read.
    Recovery(Context& ctx, Registry& registry, FormatState& format, GlobalFile& global_file,
             std::function<void()> settle_checkpoints)
        : ctx_(ctx),
          registry_(registry),
          format_(format),
          global_file_(global_file),
          settle_checkpoints_(std::move(settle_checkpoints)),
          redundancy_check_(ctx) {}

    // FTI_Init (collective): with [restart] failure > 0 the checkpoint to
    // restart from, or why there is none. Checkpoints of sequence below
    // `first_seq_of_run` predate this run.
    void select_at_init(std::uint64_t first_seq_of_run);

    // FTI_Status(): 0, or the restart's [restart] failure until recovered.
    int status() const { return status_; }
    // Set when a restart was requested but no checkpoint can be recovered.
    const std::optional<std::string>& init_problem() const { return init_problem_; }
    // The checkpoint a recovery reads, when one is selected.
    const std::optional<RecoverySource>& source() const { return source_; }

    // FTI_Recover, and FTI_RecoverVarInit .. FTI_RecoverVar ..
    // FTI_RecoverVarFinalize: the reads are each rank's own. When FTI_Init
    // verified the checkpoint whole (the default, as FTI) nothing more is
    // collective. Otherwise ([advanced] verify_at_init = 0) recover() and
    // recover_var_finalize() end with one agreement over the application
    // ranks, where data that failed on any rank sends every rank to a
    // repaired or older checkpoint. A variable whose size differs from the
    // stored one fails on its rank alone, before any agreement
    // (FTI_Realloc, then try again).
    void recover();
    void recover_var_init();
    void recover_var(int id);
    void recover_var_finalize();
    // FTI_RecoverDatasetDimension: in a variate restart (failure = 3), the
    // global dataset takes the shape it has in the file restarted from.
    void recover_dataset_dimension(int did);
    std::int64_t stored_size(int id) const;
    void* realloc_var(int id, void* ptr);

    // Collective, before the next checkpoint: the redundancy of the
    // checkpoint recovered from, found damaged in the background, rebuilt.
    void settle_restart_redundancy();
    // After a commit: the restart is over once its checkpoint is
    // superseded, and once recovered, FTI_Recover means the newest
    // checkpoint again.
    void after_commit();
    void forget_superseded_source();
    // After a recovery from a dCP checkpoint: the recovered variables `ids`
    // are the next dCP checkpoint's baseline.
    void adopt_dcp_baseline(const std::vector<int>& ids);
    // The checkpoint a restart has not recovered from yet: FTI_Recover may
    // still read it, so nothing retires it.
    std::optional<CheckpointRef> still_read() const;
    // FTI_Finalize: nothing more is read or rebuilt.
    void end() noexcept;

  private:
    bool variate_restart() const { return status_ == 3 && global_file_.restarting(); }
    void adopt(RecoverySource source);  // the checkpoint to restart from
    // In a run that has checkpointed: the newest checkpoint becomes the
    // source (as in FTI, FTI_Recover then rolls back to it).
    void use_newest_checkpoint_if_fresh();
    const VarRecord& stored_var(int id) const;
    void check_stored_size(const Variable& var) const;  // not_recoverable when it differs
    // FTI_Recover and FTI_RecoverVarFinalize of a variate restart: the
    // reads of `ids` from the global file, agreed on (collective).
    void recover_from_global_file(const std::vector<int>& ids, std::exception_ptr failure);
    std::exception_ptr read_vars(const std::vector<int>& ids) const noexcept;
    // The restart source's reader, told whether FTI_Init has just read it whole.
    std::unique_ptr<CheckpointReader> open_source_reader() const;
    void settle_recovery(std::exception_ptr failure, const std::vector<int>& ids);  // collective
    Context& ctx_;
    Registry& registry_;
    FormatState& format_;
    GlobalFile& global_file_;
    std::function<void()> settle_checkpoints_;
    std::uint64_t first_seq_of_run_ = 1;
    std::optional<std::string> init_problem_;
    std::optional<RecoverySource> source_;
    int status_ = 0;
    std::unique_ptr<CheckpointReader> recover_var_reader_;
    bool recovering_vars_ = false;            // between FTI_RecoverVarInit and FTI_RecoverVarFinalize
    std::vector<int> recovered_ids_;          // by FTI_RecoverVar since FTI_RecoverVarInit
    std::exception_ptr recover_var_failure_;  // the source's data failed on this rank
    std::set<int> recover_var_refused_;       // variables whose size differed, not asked for again since
    RestartRedundancyCheck redundancy_check_;
};

}  // namespace mlckpt::core
