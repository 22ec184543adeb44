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
    // Returns once everything queued so far is done.
    void wait();

  private:
    void work();

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::function<void()>> queue_;
    bool busy_ = false;  // the worker is running a job it took off the queue
    bool stopping_ = false;
    std::thread worker_;  // started by the first job
};

}  // namespace mlckpt::core
