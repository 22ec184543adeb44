// The in-memory snapshot of the protected variables ([basic]
// async_snapshot = 1): FTI_Checkpoint copies them into memory the library
// owns and returns; the checkpoint is written from the copy in the
// background, so the application may change its data at once.
//
// One page-aligned region, kept from one checkpoint to the next (it grows
// when the data grows, and is never larger than the budget), so that a
// checkpoint costs a memcpy and no page faults once the first has run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "registry/registry.hpp"

namespace mlckpt::core {

class SnapshotCopy {
  public:
    explicit SnapshotCopy(std::uint64_t budget_bytes) : budget_(budget_bytes) {}
    ~SnapshotCopy();
    SnapshotCopy(const SnapshotCopy&) = delete;
    SnapshotCopy& operator=(const SnapshotCopy&) = delete;

    std::uint64_t budget() const { return budget_; }
    // The bytes a snapshot of `vars` takes (each copy starts page-aligned).
    static std::uint64_t footprint(const std::vector<Variable>& vars);
    // Copies `vars` (which must fit the budget) and returns variables that
    // point at the copies, valid and untouched until the next take().
    std::vector<Variable> take(const std::vector<Variable>& vars);
    std::uint64_t held() const { return size_; }  // bytes of the region

  private:
    std::uint64_t budget_;
    std::byte* region_ = nullptr;
    std::uint64_t size_ = 0;
};

}  // namespace mlckpt::core
