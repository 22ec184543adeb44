#include "runtime/checkpoint_writer.hpp"

#include <unistd.h>

#include "levels/redundancy.hpp"
#include "mpi/collective.hpp"
#include "runtime/checkpoint_store.hpp"
#include "runtime/fault_injection.hpp"

namespace mlckpt::core {

CheckpointWriter::CheckpointWriter(Context& ctx, int ckpt_id, int level) : ctx_(ctx) {
    ref_ = {ctx.catalog.next_seq(), level, ckpt_id};
    fs::path dir = ctx.layout.ckpt_dir(level, ref_.seq, ctx.topo.node_id);
    final_path_ = dir / StorageLayout::data_file_name(ckpt_id, ctx.rank());
    tmp_path_ = final_path_;
    tmp_path_ += ".tmp";
    try {
        run_collectively(ctx.app, [&] {
            make_dirs(dir);
            writer_ = std::make_unique<PosixWriter>(tmp_path_);
        });
    } catch (...) {
        discard();
        throw;
    }
}

CheckpointWriter::~CheckpointWriter() {
    if (!committed_) discard();
}

void CheckpointWriter::add(const Variable& var, const std::string& name) {
    if (failure_) return;
    try {
        writer_->add(var.id, var.data(), name);
    } catch (...) {
        failure_ = std::current_exception();
        throw;
    }
}

bool CheckpointWriter::has(int id) const { return writer_ && writer_->has(id); }

CheckpointRef CheckpointWriter::commit(const CommitOptions& options) {
    FileRecord& mine = record_;
    std::exception_ptr failure = failure_;
    if (!failure && options.missing) failure = std::make_exception_ptr(Error(ErrorKind::usage, *options.missing));
    if (!failure) {
        try {
            mine = writer_->finish();
            rename_path(tmp_path_, final_path_);
            sync_dir(final_path_.parent_path());
            mine.file = final_path_.filename().string();
            mine.rank = ctx_.rank();
            mine.holder = ctx_.rank();
            mine.node = ctx_.topo.node_id;
            fault_point("after_data_write", ctx_.rank(), ref_.seq);
        } catch (...) {
            failure = std::current_exception();
        }
    }
    try {
        agree(ctx_.app, failure);
        std::vector<FileRecord> records = {mine};
        if ((ref_.level == 2 || ref_.level == 3) && !options.deferred) {
            run_collectively(ctx_.app, [&] {
                GroupMember self = own_member(ctx_);
                records.push_back(ref_.level == 2 ? write_partner_copy(ctx_, self, ref_, mine)
                                                  : write_parity(ctx_, self, ref_, mine));
            });
        }
        publish(ctx_, ref_, records);
    } catch (...) {
        discard();
        throw;
    }
    committed_ = true;
    if (!options.deferred) retire(ctx_, ctx_.catalog.superseded_by(ref_.level, ref_.seq));
    return ref_;
}

void CheckpointWriter::discard() noexcept {
    writer_.reset();
    remove_file(tmp_path_);
    remove_file(final_path_);
    fs::path redundancy = ctx_.redundancy_path(ref_, ctx_.topo.node_id);
    if (!redundancy.empty()) {
        remove_file(redundancy);
        remove_file(fs::path(redundancy) += ".tmp");
    }
    ::rmdir(final_path_.parent_path().c_str());
}

}  // namespace mlckpt::core
