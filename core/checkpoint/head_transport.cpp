#include "checkpoint/head_transport.hpp"

#include <sstream>

#include "heads/head_protocol.hpp"

namespace mlckpt::core {

void HeadTransport::hand_over(const CheckpointRef& ref, int level, const FileRecord& record) {
    handed_over_ = HandedOver{ref, level};
    // The heads retire what the completed checkpoint supersedes, but the
    // checkpoint a restart has not recovered from yet: FTI_Recover may
    // still read it until the verdict is collected.
    const std::optional<CheckpointRef> still_read = still_read_();
    for (const CheckpointRef& r : completion_.retired_by(*handed_over_)) {
        if (!still_read || r.seq != still_read->seq || r.level != still_read->level) {
            handed_over_->retired_by_heads.push_back(r);
        }
    }
    std::ostringstream post;
    post << "POST " << CheckpointRef{ref.seq, level, ref.ckpt_id, ref.own_dir};
    for (const CheckpointRef& r : handed_over_->retired_by_heads) post << ' ' << r;
    post << '\n' << serialize_file_record(record);
    send_text(world_, post.str(), ctx_.topo.head_world_rank, ctx_.config.general_tag);
}

void HeadTransport::settle() {
    if (!handed_over_) return;
    HandedOver h = *handed_over_;
    handed_over_.reset();
    if (std::optional<std::string> reason = verdict()) {
        if (ctx_.rank() == 0) {
            ctx_.log.warning("the head could not complete checkpoint " + std::to_string(h.committed.ckpt_id) + " to " +
                             level_name(h.level) + " (" + *reason +
                             "); it stays recoverable as committed, older checkpoints are kept");
        }
        return;
    }
    completion_.complete(h);
}

std::optional<std::string> HeadTransport::verdict() {
    int level = kHeadFailed;
    recv(&level, 1, MPI_INT, ctx_.topo.head_world_rank, ctx_.config.general_tag, global_,
         "the head's verdict on the checkpoint it post-processes");
    if (level != kHeadFailed) return std::nullopt;
    return receive_text(world_, ctx_.topo.head_world_rank, ctx_.config.stage_tag);
}

}  // namespace mlckpt::core
