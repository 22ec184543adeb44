#include "checkpoint/checkpoint_writer.hpp"

#include "common/error.hpp"
#include "levels/redundancy.hpp"
#include "store/checkpoint_store.hpp"
#include "store/retirement.hpp"

namespace mlckpt::core {

CheckpointWriter::CheckpointWriter(Context& ctx, int ckpt_id, int level, const std::vector<Variable>& vars,
                                   const FormatState& state, bool incremental, bool by_head)
    : ctx_(ctx) {
    // Retired checkpoints' files are gone first (but those of the checkpoints
    // this call settled, see BackgroundWork): the disk never holds more than
    // before, and a late removal never hits the L4 differential file.
    ctx.background->wait_before_writing(is_differential(level));
    ref_ = ctx.catalog.place(ctx.catalog.next_seq(), level, ckpt_id);
    const bool from_memory = level_work_from_memory(ctx, ref_, by_head, incremental);
    work_ = level_work(ctx, ref_, by_head, from_memory);
    // Read right after it is written: by the head, or for an L2 copy or L3
    // parity made from the file.
    const bool read_back = by_head || (has_group_redundancy(level) && !from_memory);
    file_ = open_checkpoint_file(ctx, ref_, vars, state, incremental, read_back);
}

CheckpointWriter::~CheckpointWriter() {
    if (!committed_) discard();
}

void CheckpointWriter::add(const Variable& var, const std::string& name) {
    if (failure_) return;
    try {
        work_->add(*file_, var.id, var.data(), name);
    } catch (...) {
        failure_ = std::current_exception();
        throw;
    }
}

bool CheckpointWriter::has(int id) const {
    return work_->keeps(id) || file_->has(id);
}

CheckpointRef CheckpointWriter::commit(const CommitOptions& options) {
    std::exception_ptr failure = failure_;
    if (!failure && options.missing) failure = std::make_exception_ptr(Error(ErrorKind::usage, *options.missing));
    try {
        std::vector<FileRecord> records = work_->complete(*file_, failure);
        record_ = records.front();
        publish(ctx_, ref_, records, ctx_.levels[ref_.level].format);
    } catch (...) {
        discard();
        throw;
    }
    committed_ = true;
    if (!options.deferred) retire(ctx_, ctx_.catalog.superseded_by(ref_.level, ref_.seq));
    return ref_;
}

void CheckpointWriter::finish_file() {
    if (!failure_) failure_ = finish_checkpoint_file(ctx_, ref_, *file_, record_);
    if (failure_) std::rethrow_exception(failure_);
}

void CheckpointWriter::commit_metadata_over(MPI_Comm comm) {
    commit_metadata(ctx_, comm, ref_, {record_}, ctx_.levels[ref_.level].format);
}

void CheckpointWriter::adopt_commit() {
    committed_ = true;
    ctx_.catalog.add(ref_);
    ctx_.restart_recorded = true;
}

void CheckpointWriter::leave_to_background() {
    if (committed_) file_->leave_to_background(*ctx_.background);
}

void CheckpointWriter::update_state(FormatState& state) const {
    if (committed_) file_->update_state(state);
}

void CheckpointWriter::discard() noexcept {
    work_->discard();  // the copy or parity first: the file's discard removes their directory
    file_->discard();
}

}  // namespace mlckpt::core
