// Removes the files of superseded checkpoints on a thread of its own, so that
// the application does not wait while the file system frees them: on a file
// system mounted with online discard, or a parallel file system, unlinking a
// large file costs a good part of what writing it did.
//
// Removals run in the order they were queued. Failures are ignored, as for a
// synchronous best-effort removal: what a crash or an error leaves behind is
// data without metadata, which the next restart removes as uncommitted.
#pragma once

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>

namespace mlckpt::core {

namespace fs = std::filesystem;

class BackgroundRemover {
public:
    BackgroundRemover() = default;
    BackgroundRemover(const BackgroundRemover&) = delete;
    BackgroundRemover& operator=(const BackgroundRemover&) = delete;
    ~BackgroundRemover();  // finishes what is queued

    // Removes `file`, then its directory if that is left empty.
    void remove_file_and_empty_dir(fs::path file);
    // Removes `dir` and everything below it.
    void remove_tree(fs::path dir);
    // Returns once everything queued so far is removed.
    void wait();

private:
    struct Job {
        fs::path path;
        bool tree;
    };
    void enqueue(Job job);
    void run();

    std::mutex mutex_;
    std::condition_variable changed_;
    std::deque<Job> queue_;
    bool busy_ = false;  // the worker is removing a job it took off the queue
    bool stopping_ = false;
    std::thread worker_;  // started by the first job
};

}  // namespace mlckpt::core
