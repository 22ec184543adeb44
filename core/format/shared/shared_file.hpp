// The L4 file of a checkpoint shared by all ranks: one MPI-IO file
// (ckpt_io = 2) or one block-aligned container in one or more physical
// files (ckpt_io = 4); docs/formats.md describes both. Each process of the
// communicator writes the data of its tasks (application ranks): an
// application rank its own, a head rank those of its node.
//
// Failures never leave a rank behind: writes only remember a failure, every
// rank takes part in every collective step, and commit() makes all ranks
// throw the same error if any rank failed. Until committed, the files keep
// a ".tmp" suffix and are removed when the object goes.
#pragma once

#include <mpi.h>

#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/io_mode.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

// The shared L4 file of ckpt_io = 2, or physical file `number` of a
// ckpt_io = 4 container.
std::string shared_file_name(int ckpt_id, IoMode io, int number = 0);
// Every name a shared file of checkpoint `ckpt_id` can have: the MPI-IO
// file and the `files` physical files of a container.
std::vector<std::string> shared_file_names(int ckpt_id, int files);

struct SharedTask {
    int rank = 0;            // application rank
    std::uint64_t size = 0;  // bytes it checkpoints
};

struct SharedFileSpec {
    IoMode io = IoMode::mpiio;  // mpiio or container
    Directory dir;              // the checkpoint's directory, open
    int ckpt_id = 0;
    int ranks = 0;                        // tasks of the checkpoint: application ranks 0..ranks-1
    std::size_t piece_bytes = 16u << 20;  // MPI-IO: most bytes per call
    std::int32_t block_size = 4096;       // container: chunk alignment
    int files = 1;                        // container: physical files
    // Called by commit() once this process's data is durable, before the
    // files are completed and renamed (fault injection in tests).
    std::function<void()> before_commit;
};

// One task's bytes, in order, piece by piece.
class ByteStream {
  public:
    virtual ~ByteStream() = default;
    // The next at most `max` bytes; empty once everything was given. The
    // span stays valid until the next call.
    virtual std::span<const std::byte> next(std::size_t max) = 0;
};

// A stream over buffers in memory, without copying them.
class SpanStream final : public ByteStream {
  public:
    void append(std::span<const std::byte> data) {
        if (!data.empty()) pieces_.push_back(data);
    }
    std::span<const std::byte> next(std::size_t max) override;

  private:
    std::vector<std::span<const std::byte>> pieces_;
    std::size_t index_ = 0;
    std::size_t pos_ = 0;
};

class SharedFile {
  public:
    // Collective over `comm`. `mine` are the tasks this process writes;
    // together the processes' tasks are every application rank once.
    static std::unique_ptr<SharedFile> create(MPI_Comm comm, const SharedFileSpec& spec,
                                              const std::vector<SharedTask>& mine);
    SharedFile(const SharedFile&) = delete;
    SharedFile& operator=(const SharedFile&) = delete;
    virtual ~SharedFile() = default;

    // Independent: writes `data` at byte `pos` of task `t`'s data (`t`
    // indexes `mine`). A failure is remembered for commit().
    void write(std::size_t t, std::uint64_t pos, std::span<const std::byte> data);
    // Independent: writes each task's stream (one per task of `mine`) from
    // the start of its data, `piece_bytes` at most per write. A failure is
    // remembered for commit().
    void write_streams(const std::vector<ByteStream*>& streams);
    // Collective: checks that every task wrote all its bytes, makes the data
    // durable, completes the files and gives them their final names. Throws
    // the same error on every rank if any rank failed.
    virtual void commit() = 0;
    // Records a failure of this process's own (for instance, a source it
    // cannot read); the first one is what commit() reports.
    void remember(std::exception_ptr failure);

    // The physical file that holds task `t`, and where its data starts.
    virtual std::string file_name(std::size_t t) const = 0;
    virtual std::uint64_t offset(std::size_t t) const = 0;
    // Every physical file this process knows of (their final names).
    virtual std::vector<fs::path> paths() const = 0;

  protected:
    SharedFile(MPI_Comm comm, const SharedFileSpec& spec, std::vector<SharedTask> mine);

    virtual void write_at(std::size_t t, std::uint64_t pos, std::span<const std::byte> data) = 0;

    // The failure to agree on: the remembered one, or a task short of bytes.
    std::exception_ptr outcome() const;

    MPI_Comm comm_;
    SharedFileSpec spec_;
    std::vector<SharedTask> mine_;
    std::vector<std::uint64_t> written_;  // per task of mine_
    std::exception_ptr failure_;
    bool committed_ = false;
};

// Every task of a shared file, known to process 0 of the communicator only
// (O(ranks) there, the process's own tasks elsewhere): what each application
// rank checkpoints, and the tasks of each process in the order it gave them.
struct TaskTable {
    std::vector<std::uint64_t> sizes;        // by application rank
    std::vector<std::vector<int>> ranks_of;  // by process of the communicator
};
// Collective. Gathers the tasks at process 0 and checks there that every
// application rank has exactly one; the same error on every process if not.
// The table on process 0, nullopt elsewhere.
std::optional<TaskTable> gather_tasks(MPI_Comm comm, int ranks, const std::vector<SharedTask>& mine);

}  // namespace mlckpt::core
