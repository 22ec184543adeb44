// One checkpoint being written by this rank: opened by begin(), fed one
// variable at a time, and committed collectively by commit(). Used both by
// FTI_Checkpoint (all variables at once) and by the incremental checkpoint
// calls (one variable per call).
#pragma once

#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/dcp_writer.hpp"
#include "format/file_writer.hpp"
#include "format/ftiff_layout.hpp"
#include "levels/memory_content.hpp"
#include "registry/registry.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

// What a rank's next checkpoint file continues from.
struct FormatState {
    ftiff::Layout layout;  // FTI-FF: this rank's containers
    DcpBaseline dcp;       // what its L4 differential file holds
};

// How this rank's L4 differential checkpoints cut and hash its data.
DcpOptions dcp_options(const Context& ctx);

class CheckpointWriter {
  public:
    // Collective: all ranks open their file or all fail. The file format
    // follows ckpt_io and the level (storage/layout.hpp: file_format); FTI-FF
    // files continue `state` for `vars` (every protected variable, in
    // protection order). Level 8 (L4 differential) updates the rank's dCP
    // file in place. Unless `incremental`, the variables' buffers stay
    // untouched until commit(), so a shared L4 file is written then, with
    // collective calls; incremental checkpoints write each variable when
    // it is added.
    CheckpointWriter(Context& ctx, int ckpt_id, int level, const std::vector<Variable>& vars, const FormatState& state,
                     bool incremental);
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
    // Once committed: where the next checkpoint of this rank starts.
    void update_state(FormatState& state) const;
    // L4 differential: data bytes rewritten and protected by this rank.
    std::optional<std::pair<std::uint64_t, std::uint64_t>> dcp_bytes() const;
    // Once committed and past the checkpoint's last collective step: the L4
    // differential file takes its journaled update on the rank's background
    // thread (ctx.background). Started any earlier, that work would take the
    // cores from the ranks still waiting in those steps.
    void leave_to_background();

  private:
    void open_shared(const std::vector<Variable>& vars, bool incremental);
    void discard() noexcept;
    // Finishes, syncs and renames the file and fills record_; returns the
    // failure instead of throwing, for every rank to agree on.
    std::exception_ptr finish_file() noexcept;
    // Collective: the L2 partner copy or L3 parity of the file `mine`.
    FileRecord write_redundancy(const FileRecord& mine);
    // Collective: the file written by a worker while the L2 copy is sent,
    // or the L3 parity encoded, from memory; returns the records of both.
    std::vector<FileRecord> write_file_beside_redundancy(std::exception_ptr failure);

    Context& ctx_;
    CheckpointRef ref_;
    fs::path tmp_path_;
    fs::path final_path_;
    std::unique_ptr<FileWriter> writer_;
    DcpWriter* dcp_ = nullptr;  // writer_ when updating the dCP file in place
    bool in_place_ = false;
    // The file's directory entry is durable already: an L4 differential
    // file that holds its committed baseline, updated in place.
    bool entry_durable_ = false;
    std::optional<ftiff::Layout> ftiff_layout_;
    std::exception_ptr failure_;
    FileRecord record_;
    // L2 and L3 POSIX files outside an ICP: the variables' bytes, which are
    // the file's content and stay untouched until commit, so the partner
    // copy is sent and the parity encoded from memory, and the file need not
    // be read back.
    bool redundancy_from_memory_ = false;
    MemoryContent content_;
    // L2/L3 from memory: the variables are written at commit, by a worker,
    // while the copy is sent or the parity encoded from them (the disk
    // writes the file while the cores move the group's data).
    struct PendingVar {
        int id;
        std::span<const std::byte> data;
        std::string name;
    };
    bool redundancy_beside_file_ = false;
    std::vector<PendingVar> pending_;
    bool committed_ = false;
};

}  // namespace mlckpt::core
