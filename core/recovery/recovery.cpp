#include "recovery/recovery.hpp"

#include <algorithm>
#include <cstdlib>

#include "common/plural.hpp"
#include "format/dcp/dcp_writer.hpp"
#include "levels/redundancy.hpp"
#include "log/fti_messages.hpp"
#include "mpi/collective.hpp"
#include "store/rank_meta.hpp"

namespace mlckpt::core {

namespace {

// What `read` threw on this rank, to be agreed on.
template <typename Read>
std::exception_ptr failure_of(Read&& read) noexcept {
    try {
        read();
        return nullptr;
    } catch (...) {
        return std::current_exception();
    }
}

}  // namespace

void Recovery::select_at_init(std::uint64_t first_seq_of_run) {
    first_seq_of_run_ = first_seq_of_run;
    const Config& c = ctx_.config;
    if (c.failure > 0) {
        Selection selection = select_checkpoint(ctx_, c.verify_at_init ? Verification::whole : Verification::structure);
        if (selection.source) {
            ctx_.log.info(
                fti_messages::recovering_from(std::min(selection.source->ref.level, 4), selection.source->ref.ckpt_id));
            status_ = c.failure;
            // After a restart from a kept checkpoint (failure = 2) the next
            // commit records an ordinary restart (failure = 1).
            ctx_.restart_recorded = c.failure == 1;
            adopt(std::move(*selection.source));
        } else {
            init_problem_ = selection.report;
            ctx_.log.warning(fti_messages::kRecoveryFailed);
            ctx_.log.warning(fti_messages::kRecoveryFailedReason);
        }
    }
    if (c.variate_restart) {
        if (std::optional<std::string> problem = global_file_.select_restart()) {
            init_problem_ = std::move(problem);
        } else {
            status_ = 3;
        }
    }
}

void Recovery::after_commit() {
    forget_superseded_source();
    if (status_ == 0) source_.reset();
}

std::optional<CheckpointRef> Recovery::still_read() const {
    if (status_ == 0 || !source_) return std::nullopt;
    return source_->ref;
}

void Recovery::end() noexcept {
    recover_var_reader_.reset();
    redundancy_check_.cancel();  // no checkpoint follows to rebuild it for
}

void Recovery::adopt(RecoverySource source) {
    source_ = std::move(source);
    for (const VarRecord& v : source_->record.vars) {
        if (!v.name.empty()) registry_.restore_name(v.name, v.id);
    }
    // The restarted run continues the containers of the file it restarts from.
    // (A layered L4 differential file has none: its data is read from its layers.)
    if (source_->io == IoMode::ftiff && ctx_.config.ckpt_io == IoMode::ftiff && source_->record.layers.empty()) {
        format_.layout = *open_checkpoint_reader(source_->path, source_->io, source_->record)->layout();
    }
}

const VarRecord& Recovery::stored_var(int id) const {
    if (!source_) {
        fail(ErrorKind::not_recoverable, "there is no checkpoint to recover from (FTI_Status() is 0)");
    }
    const VarRecord* v = source_->record.find_var(id);
    if (v == nullptr) {
        fail(ErrorKind::not_recoverable, "variable " + std::to_string(id) + " is not in checkpoint " +
                                             std::to_string(source_->ref.ckpt_id) + " ('" + source_->path.string() +
                                             "')");
    }
    return *v;
}

void Recovery::recover_from_global_file(const std::vector<int>& ids, std::exception_ptr failure) {
    agree(ctx_.app, failure);
    const std::string file = global_file_.restart_file().string();
    global_file_.finish_restart();
    status_ = 0;
    ctx_.log.info("Recovered " + plural(ids.size(), "variable") + " from the global HDF5 file '" + file + "'.");
}

void Recovery::recover() {
    if (variate_restart()) {
        std::vector<int> ids;
        for (const Variable& var : registry_.variables()) ids.push_back(var.id);
        recover_from_global_file(ids, failure_of([&] { global_file_.read(registry_, ids); }));
        return;
    }
    use_newest_checkpoint_if_fresh();
    if (!source_) stored_var(-1);  // nothing to recover from
    std::vector<int> ids;
    for (const Variable& var : registry_.variables()) {
        check_stored_size(var);
        ids.push_back(var.id);
    }
    settle_recovery(read_vars(ids), ids);
    adopt_dcp_baseline(ids);
    status_ = 0;
    ctx_.log.info("Recovered " + plural(registry_.variables().size(), "variable") + " from checkpoint " +
                  std::to_string(source_->ref.ckpt_id) + " (" + level_name(source_->ref.level) + ").");
}

void Recovery::use_newest_checkpoint_if_fresh() {
    // As FTI: in a run that has checkpointed, recovering rolls back to the
    // newest committed checkpoint. Rank 0 reads its metadata and sends each
    // rank its part; every rank then reads its own data.
    if (source_ || status_ != 0) return;
    settle_checkpoints_();  // the newest checkpoint may still be written or completed
    const CheckpointRef* newest = ctx_.catalog.newest();
    if (newest == nullptr || newest->seq < first_seq_of_run_) return;
    adopt(own_recovery_source(ctx_, distribute_meta(ctx_, *newest, MetaScope::own).meta, *newest));
}

void Recovery::check_stored_size(const Variable& var) const {
    const VarRecord& stored = stored_var(var.id);
    if (stored.size != var.bytes()) {
        fail(ErrorKind::not_recoverable,
             "variable " + std::to_string(var.id) + ": the checkpoint holds " + std::to_string(stored.size) +
                 " bytes, the protected buffer has " + std::to_string(var.bytes()) +
                 "; protect it with the stored size (FTI_GetStoredSize) or use FTI_Realloc");
    }
}

std::unique_ptr<CheckpointReader> Recovery::open_source_reader() const {
    return open_checkpoint_reader(source_->path, source_->io, source_->record,
                                  source_->data_verified ? DataWhere::just_verified : DataWhere::storage);
}

std::exception_ptr Recovery::read_vars(const std::vector<int>& ids) const noexcept {
    try {
        std::unique_ptr<CheckpointReader> reader = open_source_reader();
        for (int id : ids) {
            const Variable& var = registry_.at(id);
            check_stored_size(var);
            reader->read(stored_var(id), var.data());
        }
        return nullptr;
    } catch (...) {
        return std::current_exception();
    }
}

void Recovery::settle_recovery(std::exception_ptr failure, const std::vector<int>& ids) {
    if (source_ && source_->data_verified) {
        // FTI_Init read and checked every file of the checkpoint: as in FTI,
        // each rank recovers alone, and a read that fails now (the file
        // changed since) fails on its rank only.
        if (failure) std::rethrow_exception(failure);
        return;
    }
    // Data is verified as it is read. When it fails on any rank, an L2 or
    // L3 checkpoint is verified whole and what is damaged rebuilt from its
    // redundancy; otherwise the next older checkpoint is tried, as FTI_Init
    // would have, and every rank reads the same variables again from it.
    for (;;) {
        try {
            agree(ctx_.app, failure);
            break;
        } catch (const Error& e) {
            if (!source_ || (e.kind() != ErrorKind::corrupt && e.kind() != ErrorKind::io)) throw;
            const CheckpointRef failed = source_->ref;
            if (!e.remote()) {
                ctx_.log.warning("cannot recover from checkpoint " + std::to_string(failed.ckpt_id) + ": " + e.what());
            }
            const bool repairable = has_group_redundancy(failed.level) && !source_->data_verified;
            Selection next =
                repairable ? repair_checkpoint(ctx_, failed) : select_checkpoint(ctx_, Verification::structure, failed);
            if (!next.source) {
                // As after an FTI_Init that found nothing: a fresh run, and
                // FTI_Finalize leaves the checkpoints in place.
                init_problem_ = "checkpoint " + std::to_string(failed.ckpt_id) + " failed while its data was read (" +
                                e.what() + "), and " + next.report;
                source_.reset();
                status_ = 0;
                fail(ErrorKind::not_recoverable, *init_problem_);
            }
            adopt(std::move(*next.source));
            failure = read_vars(ids);
        }
    }
    redundancy_check_.start(source_);
}

void Recovery::adopt_dcp_baseline(const std::vector<int>& ids) {
    if (!is_differential(source_->ref.level)) return;
    // The recovered variables now equal the dCP file: the next dCP
    // checkpoint writes only their changes (and any other variable whole).
    const DcpOptions options = dcp_options(ctx_);
    format_.dcp = DcpBaseline{source_->ref.seq, source_->path, {}, {}, source_->record.layers};
    if (source_->record.layers.empty()) {
        format_.dcp.layout = *open_checkpoint_reader(source_->path, source_->io, source_->record)->layout();
    }
    for (const int id : ids) format_.dcp.digests[id] = block_digests(registry_.at(id).data(), options);
}

void Recovery::recover_var_init() {
    if (variate_restart()) {
        recovered_ids_.clear();
        recover_var_failure_ = nullptr;
        recovering_vars_ = true;
        return;
    }
    use_newest_checkpoint_if_fresh();
    if (!source_) stored_var(-1);
    recovered_ids_.clear();
    recover_var_failure_ = nullptr;
    recover_var_refused_.clear();
    recovering_vars_ = true;
    try {
        recover_var_reader_ = open_source_reader();
    } catch (const Error& e) {
        // FTI_RecoverVarFinalize turns to a repaired or older checkpoint.
        if (e.kind() != ErrorKind::corrupt && e.kind() != ErrorKind::io) throw;
        recover_var_failure_ = std::current_exception();
    }
}

void Recovery::recover_var(int id) {
    if (!recovering_vars_) fail(ErrorKind::usage, "call FTI_RecoverVarInit before FTI_RecoverVar");
    if (variate_restart()) {
        registry_.at(id);
        recovered_ids_.push_back(id);
        if (!recover_var_failure_) recover_var_failure_ = failure_of([&] { global_file_.read(registry_, {id}); });
        if (recover_var_failure_) std::rethrow_exception(recover_var_failure_);
        return;
    }
    const Variable& var = registry_.at(id);
    try {
        check_stored_size(var);
    } catch (const Error&) {
        recover_var_refused_.insert(id);
        throw;
    }
    recover_var_refused_.erase(id);  // resized and asked for again
    recovered_ids_.push_back(id);
    if (recover_var_failure_) std::rethrow_exception(recover_var_failure_);
    try {
        recover_var_reader_->read(stored_var(id), var.data());
    } catch (const Error& e) {
        if (e.kind() == ErrorKind::corrupt || e.kind() == ErrorKind::io)
            recover_var_failure_ = std::current_exception();
        throw;
    }
}

void Recovery::recover_var_finalize() {
    if (!recovering_vars_) fail(ErrorKind::usage, "FTI_RecoverVarFinalize without FTI_RecoverVarInit");
    recover_var_reader_.reset();
    recovering_vars_ = false;
    if (variate_restart()) {
        recover_from_global_file(recovered_ids_, std::exchange(recover_var_failure_, nullptr));
        return;
    }
    const bool refused = !std::exchange(recover_var_refused_, {}).empty();
    if (refused && !(source_ && source_->data_verified)) {
        // As FTI_Recover refused for a size: this rank alone, before the
        // agreement, so that it may FTI_Realloc and recover again while the
        // others go on, and every rank joins the same agreements.
        fail(ErrorKind::not_recoverable,
             "a variable's size differs from the checkpoint's (see the FTI_RecoverVar error): FTI_Realloc it, "
             "then recover again");
    }
    settle_recovery(std::exchange(recover_var_failure_, nullptr), recovered_ids_);
    if (source_) adopt_dcp_baseline(recovered_ids_);
    status_ = 0;
}

void Recovery::settle_restart_redundancy() {
    redundancy_check_.settle();
}

void Recovery::recover_dataset_dimension(int did) {
    registry_.global_datasets().at(did);
    if (!variate_restart()) {
        fail(ErrorKind::usage, "this is no variate restart (FTI_Status() is " + std::to_string(status_) +
                                   ", not 3): [restart] failure = 3 restarts from the global HDF5 file");
    }
    registry_.global_datasets().update(did, global_file_.stored_dims(registry_, did));
}

std::int64_t Recovery::stored_size(int id) const {
    if (!source_) return 0;
    const VarRecord* v = source_->record.find_var(id);
    return v ? static_cast<std::int64_t>(v->size) : 0;
}

void* Recovery::realloc_var(int id, void* ptr) {
    Variable var = registry_.at(id);
    if (ptr != var.ptr) {
        fail(ErrorKind::usage, "FTI_Realloc: pointer is not the one protected as variable " + std::to_string(id));
    }
    const VarRecord& stored = stored_var(id);
    if (stored.size % var.element_size != 0) {
        fail(ErrorKind::corrupt, "variable " + std::to_string(id) + ": " + std::to_string(stored.size) +
                                     " stored bytes are not a whole number of " + std::to_string(var.element_size) +
                                     "-byte elements");
    }
    void* grown = std::realloc(ptr, std::max<std::uint64_t>(stored.size, 1));
    if (grown == nullptr) {
        fail(ErrorKind::io, "FTI_Realloc: cannot allocate " + std::to_string(stored.size) + " bytes");
    }
    registry_.protect(id, grown, static_cast<std::int64_t>(stored.size / var.element_size), var.type);
    return grown;
}

void Recovery::forget_superseded_source() {
    if (source_ && !ctx_.catalog.contains(source_->ref.seq, source_->ref.level)) {
        // The checkpoint selected at restart was superseded: the restart is over.
        source_.reset();
        status_ = 0;
    }
}

}  // namespace mlckpt::core
