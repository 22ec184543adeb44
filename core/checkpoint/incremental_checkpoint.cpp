#include "checkpoint/incremental_checkpoint.hpp"

#include <mpi.h>

#include <string>

#include "checkpoint/agreed_level.hpp"
#include "mpi/collective.hpp"

namespace mlckpt::core {

void IncrementalCheckpoint::begin(int ckpt_id, int requested_level) {
    inactive_ = false;
    const int level = agreed_level(ctx_, requested_level);
    ckpt_id_ = ckpt_id;
    level_ = level;
    start_ = MPI_Wtime();
    if (is_single_file_level(level)) {
        single_.emplace();
        return;
    }
    writer_ = checkpoints_.open(ckpt_id, level, registry_.variables(), true);
}

void IncrementalCheckpoint::add(int id) {
    if (inactive_) return;
    if (!in_progress()) fail(ErrorKind::usage, "FTI_AddVarICP without FTI_InitICP");
    const Variable& var = registry_.at(id);
    const bool added = single_
                           ? single_->emplace(id, std::vector<std::byte>(var.data().begin(), var.data().end())).second
                           : !writer_->has(id);
    if (!added) fail(ErrorKind::usage, "variable " + std::to_string(id) + " was already added to this checkpoint");
    if (writer_) writer_->add(var, registry_.name_of(id));
}

bool IncrementalCheckpoint::finish() {
    if (inactive_) {
        inactive_ = false;
        return false;
    }
    if (single_) {
        finish_single();
        return true;
    }
    if (!writer_) fail(ErrorKind::usage, "FTI_FinalizeICP without FTI_InitICP");
    std::unique_ptr<CheckpointWriter> writer = std::move(writer_);
    std::string missing;
    for (const Variable& var : registry_.variables()) {
        if (!writer->has(var.id)) missing += (missing.empty() ? "" : ", ") + std::to_string(var.id);
    }
    std::optional<std::string> complaint;
    if (!missing.empty()) {
        complaint = "incremental checkpoint " + std::to_string(writer->ref().ckpt_id) + ": protected variables " +
                    missing + " were not added with FTI_AddVarICP; the checkpoint is discarded";
    }
    checkpoints_.commit(*writer, level_, complaint, start_);
    return true;
}

void IncrementalCheckpoint::finish_single() {
    const std::map<int, std::vector<std::byte>> copies = std::move(*single_);
    single_.reset();
    std::string missing;
    for (const auto& [var, subset] : registry_.global_datasets().subsets()) {
        if (copies.count(var) == 0) missing += (missing.empty() ? "" : ", ") + std::to_string(var);
    }
    run_collectively(ctx_.app, [&] {
        if (!missing.empty()) {
            fail(ErrorKind::usage, "incremental checkpoint " + std::to_string(ckpt_id_) +
                                       " (FTI_L4_H5_SINGLE): the subsets of variables " + missing +
                                       " were not added with FTI_AddVarICP; no file was written");
        }
    });
    checkpoints_.write_single_file(
        ckpt_id_,
        [&](const Variable& v) {
            const std::vector<std::byte>& copy = copies.at(v.id);
            if (copy.size() != v.bytes()) {
                fail(ErrorKind::usage,
                     "variable " + std::to_string(v.id) + " changed size between FTI_AddVarICP and FTI_FinalizeICP");
            }
            return std::span<const std::byte>(copy);
        },
        start_);
}

void IncrementalCheckpoint::discard() {
    writer_.reset();
    single_.reset();
    inactive_ = false;
}

}  // namespace mlckpt::core
