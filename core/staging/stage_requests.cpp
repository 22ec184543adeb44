#include "staging/stage_requests.hpp"

namespace mlckpt::core {

namespace {

bool is_final(StageStatus status) {
    return status == StageStatus::succeeded || status == StageStatus::failed;
}

}  // namespace

int StageRequests::open() {
    int id = -1;
    if (static_cast<int>(status_.size()) < capacity_) {
        id = static_cast<int>(status_.size());
        status_.push_back(StageStatus::none);
    } else {
        for (int i = 0; i < capacity_ && id < 0; ++i) {
            if (status_[static_cast<std::size_t>(i)] == StageStatus::none) id = i;
        }
        if (id < 0) return -1;
    }
    status_[static_cast<std::size_t>(id)] = StageStatus::pending;
    ++unfinished_;
    return id;
}

void StageRequests::update(int id, StageStatus status) {
    if (id < 0 || id >= static_cast<int>(status_.size())) return;
    StageStatus& current = status_[static_cast<std::size_t>(id)];
    if (current == StageStatus::none || is_final(current)) return;
    if (is_final(status)) --unfinished_;
    current = status;
}

StageStatus StageRequests::collect(int id) {
    if (id < 0 || id >= static_cast<int>(status_.size())) return StageStatus::none;
    StageStatus& current = status_[static_cast<std::size_t>(id)];
    const StageStatus status = current;
    if (is_final(status)) current = StageStatus::none;
    return status;
}

}  // namespace mlckpt::core
