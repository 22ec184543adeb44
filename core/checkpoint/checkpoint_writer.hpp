// One checkpoint being written by this rank: opened by the constructor,
// fed one variable at a time, and committed collectively by commit(). Used
// both by FTI_Checkpoint (all variables at once) and by the incremental
// checkpoint calls (one variable per call).
//
// The writer keeps the order of the steps and the atomic commit; the
// rank's file (its format: checkpoint/checkpoint_file.hpp) and the level's work
// around it (checkpoint/level_work.hpp) are objects it calls at fixed points:
// add, complete (the file finished, then the level's work), the metadata
// commit, retirement, and the background work after the last collective
// step.
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checkpoint/checkpoint_file.hpp"
#include "checkpoint/level_work.hpp"
#include "registry/registry.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

class CheckpointWriter {
  public:
    // Collective: all ranks open their file or all fail. `vars`: every
    // protected variable, in protection order. Unless `incremental`, the
    // variables' buffers stay untouched until commit(); incremental
    // checkpoints write each variable when it is added. `by_head`: the
    // node's head does the level's work after the commit (the transport).
    CheckpointWriter(Context& ctx, int ckpt_id, int level, const std::vector<Variable>& vars, const FormatState& state,
                     bool incremental, bool by_head);
    CheckpointWriter(const CheckpointWriter&) = delete;
    CheckpointWriter& operator=(const CheckpointWriter&) = delete;
    ~CheckpointWriter();  // discards an uncommitted checkpoint

    // Local: a failure is remembered and makes commit() fail on every rank.
    void add(const Variable& var, const std::string& name);
    bool has(int id) const;

    struct CommitOptions {
        // This rank's complaint about an incomplete checkpoint, if any.
        std::optional<std::string> missing;
        // The node's head finishes the checkpoint: retire nothing yet.
        bool deferred = false;
    };
    // Collective: commits and (unless deferred) retires what the new
    // checkpoint supersedes.
    CheckpointRef commit(const CommitOptions& options);

    // A checkpoint written off the application's thread (an in-memory
    // snapshot; its level's work is always done after the commit): the file
    // finished on this rank (local; throws its failure), then the metadata
    // committed over `comm` once every rank's file is (collective), then,
    // on the application's thread, the commit recorded in the catalog.
    void finish_file();
    void commit_metadata_over(MPI_Comm comm);
    void adopt_commit();

    const CheckpointRef& ref() const { return ref_; }
    const FileRecord& record() const { return record_; }  // this rank's file, once committed
    // Once committed: where the next checkpoint of this rank starts.
    void update_state(FormatState& state) const;
    // L4 differential: data bytes rewritten and protected by this rank.
    std::optional<std::pair<std::uint64_t, std::uint64_t>> dcp_bytes() const { return file_->dcp_bytes(); }
    // Once committed and past the checkpoint's last collective step: the
    // file's background work (ctx.background). Started any earlier, it would
    // take the cores from the ranks still waiting in those steps.
    void leave_to_background();

  private:
    void discard() noexcept;

    Context& ctx_;
    CheckpointRef ref_;
    std::unique_ptr<LevelWork> work_;
    std::unique_ptr<CheckpointFile> file_;
    std::exception_ptr failure_;
    FileRecord record_;
    bool committed_ = false;
};

}  // namespace mlckpt::core
