#include "io/background_work.hpp"

#include "io/file.hpp"

namespace mlckpt::core {

BackgroundWork::~BackgroundWork() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    if (worker_.joinable()) worker_.join();
}

void BackgroundWork::remove_file_and_empty_dir(fs::path file) {
    run([file = std::move(file)] { core::remove_file_and_empty_dir(file); });
}

void BackgroundWork::remove_tree(fs::path dir) {
    run([dir = std::move(dir)] { core::remove_tree(dir); });
}

void BackgroundWork::run(std::function<void()> job) {
    {
        std::lock_guard lock(mutex_);
        if (holding_) {
            held_.push_back(std::move(job));
            return;
        }
        queue_.push_back(std::move(job));
        if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
    }
    changed_.notify_all();
}

void BackgroundWork::release_held() {
    if (held_.empty()) return;
    for (auto& job : held_) queue_.push_back(std::move(job));
    held_.clear();
    if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
    changed_.notify_all();
}

void BackgroundWork::wait_locked(std::unique_lock<std::mutex>& lock) {
    changed_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

void BackgroundWork::wait() {
    std::unique_lock lock(mutex_);
    release_held();
    wait_locked(lock);
}

void BackgroundWork::wait_before_writing(bool updates_in_place) {
    std::unique_lock lock(mutex_);
    if (updates_in_place) release_held();
    wait_locked(lock);
}

BackgroundWork::DuringTheNextCompute::DuringTheNextCompute(BackgroundWork& work) : work_(work) {
    std::lock_guard lock(work_.mutex_);
    work_.holding_ = true;
}

BackgroundWork::DuringTheNextCompute::~DuringTheNextCompute() {
    std::lock_guard lock(work_.mutex_);
    work_.holding_ = false;
    work_.release_held();
}

void BackgroundWork::work() {
    std::unique_lock lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing is left
        std::function<void()> job = std::move(queue_.front());
        queue_.pop_front();
        busy_ = true;
        lock.unlock();
        job();
        lock.lock();
        busy_ = false;
        changed_.notify_all();
    }
}

}  // namespace mlckpt::core
