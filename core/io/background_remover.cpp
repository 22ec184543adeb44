#include "io/background_remover.hpp"

#include "io/file.hpp"

namespace mlckpt::core {

BackgroundRemover::~BackgroundRemover() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    if (worker_.joinable()) worker_.join();
}

void BackgroundRemover::remove_file_and_empty_dir(fs::path file) {
    enqueue({std::move(file), false});
}

void BackgroundRemover::remove_tree(fs::path dir) {
    enqueue({std::move(dir), true});
}

void BackgroundRemover::enqueue(Job job) {
    {
        std::lock_guard lock(mutex_);
        queue_.push_back(std::move(job));
        if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    }
    changed_.notify_all();
}

void BackgroundRemover::wait() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void BackgroundRemover::run() {
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing is left
        Job job = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        lock.unlock();
        if (job.tree) {
            core::remove_tree(job.path);
        } else {
            core::remove_file_and_empty_dir(job.path);
        }
        lock.lock();
        busy_ = false;
        changed_.notify_all();
    }
}

}  // namespace mlckpt::core
