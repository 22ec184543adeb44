#include "checkpoint/completion.hpp"

#include <algorithm>

#include "store/retirement.hpp"

namespace mlckpt::core {

void Completion::complete(const HandedOver& h) {
    CheckpointRef done{h.committed.seq, h.level, h.committed.ckpt_id, h.committed.own_dir};
    std::vector<CheckpointRef> retired = retired_by(h);
    if (h.level != h.committed.level) ctx_.catalog.add(done);
    forget_retired(ctx_, h.retired_by_heads);  // the heads retired them before their verdict
    std::erase_if(retired, [&](const CheckpointRef& r) {
        return std::any_of(h.retired_by_heads.begin(), h.retired_by_heads.end(),
                           [&](const CheckpointRef& x) { return x.seq == r.seq && x.level == r.level; });
    });
    retire(ctx_, retired);
    retired_();
    ctx_.log.debug("checkpoint " + std::to_string(done.ckpt_id) + " completed to " + level_name(done.level) +
                   (ctx_.config.head ? " by the head" : " in the background"));
}

std::vector<CheckpointRef> Completion::retired_by(const HandedOver& h) const {
    std::vector<CheckpointRef> retired = ctx_.catalog.superseded_by(h.level, h.committed.seq);
    // Flushed to L4: the local copy goes, but where the heads flushed it.
    // They keep it, as FTI's heads do, and it is the first restart source
    // (the L4 files the fallback), until the next checkpoint retires it.
    if (h.level != h.committed.level && !ctx_.config.head) retired.push_back(h.committed);
    return retired;
}

void Completion::promotion_settled(const CheckpointRef& committed, int level, std::exception_ptr failure) {
    if (!failure) return complete({committed, level});
    note_failure(
        "the background promotion of checkpoint " + std::to_string(committed.ckpt_id) + " to " + level_name(level) +
            " failed: ",
        failure,
        std::string("; it stays recoverable at ") + level_name(committed.level) + ", and older checkpoints are kept");
}

void Completion::note_failure(const std::string& what, std::exception_ptr failure, const std::string& consequence) {
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
    failure_ = Error(kind, what + reason + consequence);
    if (ctx_.rank() == 0) ctx_.log.warning(failure_->what());
}

void Completion::report_after(const std::function<void()>& own_work) {
    try {
        own_work();
    } catch (...) {
        failure_.reset();  // logged; the call's own failure is the one it returns
        throw;
    }
    if (!failure_) return;
    Error failure = *failure_;
    failure_.reset();
    throw failure;
}

}  // namespace mlckpt::core
