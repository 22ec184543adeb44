// One checkpoint being written by this rank: opened by begin(), fed one
// variable at a time, and committed collectively by commit(). Used both by
// FTI_Checkpoint (all variables at once) and by the incremental checkpoint
// calls (one variable per call).
#pragma once

#include <exception>
#include <memory>
#include <optional>

#include "format/file_writer.hpp"
#include "format/ftiff_layout.hpp"
#include "registry/registry.hpp"
#include "runtime/context.hpp"

namespace mlckpt::core {

class CheckpointWriter {
public:
    // Collective: all ranks open their file or all fail. The file format is
    // the configured ckpt_io; FTI-FF files continue `last_layout` for `vars`
    // (every protected variable, in protection order).
    CheckpointWriter(Context& ctx, int ckpt_id, int level, const std::vector<Variable>& vars,
                     const ftiff::Layout& last_layout);
    CheckpointWriter(const CheckpointWriter&) = delete;
    CheckpointWriter& operator=(const CheckpointWriter&) = delete;
    ~CheckpointWriter();  // discards an uncommitted checkpoint

    // Local: a failure is remembered and makes commit() fail on every rank.
    void add(const Variable& var, const std::string& name);
    bool has(int id) const;

    struct CommitOptions {
        // This rank's complaint about an incomplete checkpoint, if any.
        std::optional<std::string> missing;
        // The node's head finishes the checkpoint (partner copies, parity or
        // L4 flush): commit the data alone and retire nothing yet.
        bool deferred = false;
    };
    // Collective: commits and (unless deferred) retires what the new
    // checkpoint supersedes.
    CheckpointRef commit(const CommitOptions& options);

    const CheckpointRef& ref() const { return ref_; }
    const FileRecord& record() const { return record_; }  // this rank's file, once committed
    // FTI-FF: the layout of this rank's file, where the next checkpoint starts.
    const ftiff::Layout* ftiff_layout() const { return ftiff_layout_ ? &*ftiff_layout_ : nullptr; }

private:
    void discard() noexcept;

    Context& ctx_;
    CheckpointRef ref_;
    fs::path tmp_path_;
    fs::path final_path_;
    std::unique_ptr<FileWriter> writer_;
    std::optional<ftiff::Layout> ftiff_layout_;
    std::exception_ptr failure_;
    FileRecord record_;
    bool committed_ = false;
};

}  // namespace mlckpt::core
