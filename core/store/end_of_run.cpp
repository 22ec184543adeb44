#include "store/end_of_run.hpp"

#include <string>
#include <vector>

#include "config/restart_state.hpp"
#include "io/file.hpp"
#include "mpi/collective.hpp"
#include "store/checkpoint_store.hpp"
#include "store/retirement.hpp"

namespace mlckpt::core {

namespace {

// Collective; rank 0 rewrites the file.
void set_restart_state(Context& ctx, int failure) {
    run_collectively(ctx.app, [&] {
        if (ctx.rank() == 0) write_restart_state(ctx.config.path, failure, ctx.layout.exec_id());
    });
}

}  // namespace

void end_execution(Context& ctx, const RunOutcome& outcome) {
    const Config& c = ctx.config;
    const CheckpointRef* newest = ctx.catalog.newest();
    const bool committed_since = newest != nullptr && newest->seq >= outcome.first_seq;
    const bool data_kept = newest != nullptr || !ctx.catalog.unrecorded_data().empty();
    if (outcome.restart_failed && !committed_since && data_kept) {
        // The restart failed and this run committed nothing newer: the old
        // checkpoints may become recoverable once a file is repaired or a
        // lost directory restored. Files and restart state stay as they are,
        // so that relaunching tries again.
        ctx.background->wait();
        barrier(ctx.app);
        if (ctx.rank() != 0) return;
        ctx.log.warning("FTI_Finalize after a failed restart: the checkpoints of execution '" + ctx.layout.exec_id() +
                        "' and the restart state in " + c.path +
                        " are kept, and relaunching tries to restart from them again (repair or restore what "
                        "is named above first); to start afresh instead, set [restart] failure = 0 in " +
                        c.path + " and remove '" + ctx.layout.meta_exec_dir().string() + "', '" +
                        ctx.layout.global_exec_dir().string() + "' and the '" + ctx.layout.exec_id() +
                        "' directories under " + c.ckpt_dir);
        return;
    }
    if (c.keep_last_ckpt && newest != nullptr) {
        CheckpointRef kept = *newest;
        if (ctx.catalog.contains(kept.seq, kL4)) kept.level = kL4;  // the heads' L1 copy of an L4 checkpoint
        if (is_node_local(kept.level)) kept = flush_to_l4(ctx, kept);
        set_restart_state(ctx, 2);
        std::vector<CheckpointRef> others;
        for (const CheckpointRef& r : ctx.catalog.refs()) {
            if (r.seq != kept.seq || r.level != kept.level) others.push_back(r);
        }
        retire(ctx, others);
        ctx.background->wait();
        barrier(ctx.app);
        if (ctx.topo.node_index == 0) remove_tree(ctx.layout.node_exec_dir(ctx.topo.node_id));
        ctx.log.info("Checkpoint " + std::to_string(kept.ckpt_id) + " kept at L4; relaunching restarts from it.");
        return;
    }
    // The restart flag is cleared before any checkpoint goes, so a crash in
    // between never leaves "restart" pointing at deleted checkpoints.
    // A variate restart that found no global file keeps failure = 3, so
    // that relaunching tries again once the file is there.
    const bool variate_pending = c.variate_restart && outcome.restart_failed && !committed_since;
    if ((ctx.restart_recorded || c.failure != 0 || c.variate_restart) && !variate_pending) set_restart_state(ctx, 0);
    retire(ctx, ctx.catalog.refs());
    ctx.background->wait();
    barrier(ctx.app);
    if (ctx.topo.node_index == 0) remove_tree(ctx.layout.node_exec_dir(ctx.topo.node_id));
    if (ctx.rank() == 0) {
        if (c.keep_l4_ckpt) {
            remove_tree(ctx.layout.level_dir(4, 0));
            remove_tree(ctx.layout.meta_copy_dir(4, 0));  // empty: the archive holds its checkpoints' copies
        } else {
            remove_tree(ctx.layout.global_exec_dir());
            remove_tree(ctx.layout.meta_exec_dir());
        }
    }
    ctx.log.info("FTI finalized: checkpoints of execution '" + ctx.layout.exec_id() + "' removed" +
                 (c.keep_l4_ckpt ? " (L4 archive kept)." : "."));
}

}  // namespace mlckpt::core
