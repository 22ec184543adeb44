// A checkpoint's life, from FTI_Checkpoint to the retirement of what it
// supersedes, in this order:
//   agree      on the level (checkpoint/agreed_level)
//   take       the variables as they are, or an in-memory copy of them
//              (checkpoint/snapshot_take: the rest is then a job of the
//              rank's worker)
//   write      the rank's file, with the level's inline work around it
//              (checkpoint/checkpoint_writer)
//   commit     the metadata, collectively; inline levels retire what the
//              checkpoint supersedes here
//   hand over  the level's work left after the commit, to the transport
//              chosen at FTI_Init (checkpoint/transport: the head, or the
//              rank's worker)
//   settle     at the next call: the outcome of what was handed over
//   retire     what the completed checkpoint supersedes
//              (checkpoint/completion)
// FTI_L4_H5_SINGLE writes the global HDF5 file instead (checkpoint/global_file).
#pragma once

#include <mpi.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/background_jobs.hpp"
#include "checkpoint/checkpoint_writer.hpp"
#include "checkpoint/completion.hpp"
#include "checkpoint/global_file.hpp"
#include "checkpoint/snapshot_take.hpp"
#include "checkpoint/transport.hpp"
#include "registry/registry.hpp"

namespace mlckpt::core {

class Checkpoints {
  public:
    // What the restart's life needs to hear of the checkpoints' (the
    // checkpoint unit sits below recovery/).
    struct RestartHooks {
        std::function<void()> committed;  // a checkpoint was committed
        std::function<void()> retired;    // a completion retired checkpoints
        // The checkpoint a restart may still read (the heads keep it).
        std::function<std::optional<CheckpointRef>()> still_read;
    };
    // `global`: the communicator given to FTI_Init; `world`: the library's
    // duplicate of it.
    Checkpoints(Context& ctx, const Registry& registry, FormatState& format, GlobalFile& global_file, MPI_Comm global,
                MPI_Comm world, RestartHooks hooks);
    ~Checkpoints();
    Checkpoints(const Checkpoints&) = delete;
    Checkpoints& operator=(const Checkpoints&) = delete;

    // Collective over the application ranks, once their communicators are
    // open: the transport, and the rank's worker when it has one.
    void start();

    // Collective: checkpoint `ckpt_id` at the level every rank asked for
    // (checkpoint/agreed_level).
    void take(int ckpt_id, int requested_level);
    // Collective: a writer for checkpoint `ckpt_id` of `vars` at `level`,
    // written at the level the application ranks commit it at.
    std::unique_ptr<CheckpointWriter> open(int ckpt_id, int level, const std::vector<Variable>& vars, bool incremental);
    // Collective: commits what `writer` wrote (`missing`: this rank's
    // complaint about an incomplete checkpoint) and hands the level's
    // remaining work over. `start`: when the checkpoint began (its log line).
    void commit(CheckpointWriter& writer, int level, const std::optional<std::string>& missing, double start);
    // Collective: the global datasets into the file of `ckpt_id`.
    void write_single_file(int ckpt_id, const GlobalFile::DataOf& data_of, double start);

    // Collective: the outcome of the background work handed over so far.
    void settle();
    // Collective: settles until nothing is left in the background.
    void drain();
    // Runs a call's own work, then reports the failure of background work
    // that settling found, once.
    void report_after(const std::function<void()>& own_work) { completion_.report_after(own_work); }

  private:
    void log_started() const;
    void log_dcp_bytes(const CheckpointWriter& writer);  // collective

    Context& ctx_;
    const Registry& registry_;
    FormatState& format_;
    GlobalFile& global_file_;
    MPI_Comm global_;
    MPI_Comm world_;
    RestartHooks hooks_;
    Completion completion_;
    std::unique_ptr<Transport> transport_;     // none when every level is done inline
    std::unique_ptr<SnapshotTake> snapshots_;  // async_snapshot
    // The rank's worker thread: last, so that it stops before anything its
    // jobs use (the snapshot's copies) goes.
    std::unique_ptr<BackgroundJobs> jobs_;
};

}  // namespace mlckpt::core
