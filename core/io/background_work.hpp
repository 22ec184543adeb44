// Work a rank leaves to a thread of its own once a checkpoint is committed,
// so that the application goes on meanwhile: removing the files of
// superseded checkpoints (on a file system mounted with online discard, or
// a parallel file system, unlinking a large file costs a good part of what
// writing it did) and applying an L4 differential update's journal to its
// file.
//
// Jobs run in the order they were queued. They report nothing: a removal
// that fails leaves data without metadata, which the next restart removes
// as uncommitted; a journal that is not applied is applied by the next
// checkpoint or restart.
#pragma once

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <functional>
#include <mutex>
#include <thread>

namespace mlckpt::core {

namespace fs = std::filesystem;

class BackgroundWork {
  public:
    BackgroundWork() = default;
    BackgroundWork(const BackgroundWork&) = delete;
    BackgroundWork& operator=(const BackgroundWork&) = delete;
    ~BackgroundWork();  // finishes what is queued

    // Removes `file`, then its directory if that is left empty.
    void remove_file_and_empty_dir(fs::path file);
    // Removes `dir` and everything below it.
    void remove_tree(fs::path dir);
    // Runs `job`, which must not throw.
    void run(std::function<void()> job);
    // Returns once everything queued so far is done, the jobs that a
    // DuringTheNextCompute holds included: it releases them first (the
    // promotion job relies on that when it waits for earlier removals
    // while a call holds them).
    void wait();
    // What a checkpoint's writer waits for before it writes anything: the
    // files of retired checkpoints are gone (the disk never holds more than
    // before) and a journal is applied. Jobs held by a DuringTheNextCompute
    // stay held, unless the writer updates a file in place (the L4
    // differential file, which a late removal would hit).
    void wait_before_writing(bool updates_in_place);

    // Scope of a library call that first settles earlier checkpoints (their
    // retirement queues the removal of their files), then writes its own:
    // those removals are held until the call ends, so that they run while
    // the application computes, as an inline checkpoint's do, instead of
    // taking the disk and the cores from the call's own write.
    class DuringTheNextCompute {
      public:
        explicit DuringTheNextCompute(BackgroundWork& work);
        DuringTheNextCompute(const DuringTheNextCompute&) = delete;
        DuringTheNextCompute& operator=(const DuringTheNextCompute&) = delete;
        ~DuringTheNextCompute();  // queues what it held

      private:
        BackgroundWork& work_;
    };

  private:
    void work();
    // Returns once everything queued so far is done; `lock` holds mutex_.
    void wait_locked(std::unique_lock<std::mutex>& lock);
    // Moves the held jobs to the queue; mutex_ is held.
    void release_held();

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::function<void()>> queue_;
    bool busy_ = false;                       // the worker is running a job it took off the queue
    bool holding_ = false;                    // a DuringTheNextCompute lives
    std::deque<std::function<void()>> held_;  // queued while it lives
    bool stopping_ = false;
    std::thread worker_;  // started by the first job
};

}  // namespace mlckpt::core
