// The staging requests of one application rank, by the id FTI_SendFile
// returned, with FTI's id space and life cycle: ids are handed out in
// order, then (once all FTI_SI_MAX_NUM are used) the lowest free one; an id
// is pending until the transfer starts, active while it runs, then succeeded
// or failed; FTI_GetStageStatus returns that final status once and frees the
// id, so that it says FTI_SI_NINI afterwards, as for an id never handed out.
#pragma once

#include <cstdint>
#include <vector>

namespace mlckpt::core {

// The states of a request, numbered as FTI_SI_NINI .. FTI_SI_FAIL of fti.h
// (the C API checks that they agree).
enum class StageStatus : std::uint8_t { none = 0, pending = 1, active = 2, succeeded = 3, failed = 4 };

class StageRequests {
  public:
    static constexpr int kMaxRequests = 512 * 1024;  // FTI's FTI_SI_MAX_NUM

    explicit StageRequests(int capacity = kMaxRequests) : capacity_(capacity) {}

    // A free id, now pending; -1 when every id is in use.
    int open();
    // A status reported by whoever moves the file (active, succeeded or
    // failed); reports for ids not in use are dropped.
    void update(int id, StageStatus status);
    // The status of `id` (none when not in use); a final one frees it.
    StageStatus collect(int id);
    // Requests pending or active.
    int unfinished() const { return unfinished_; }

  private:
    std::vector<StageStatus> status_;  // by id; grows as ids are first handed out
    int capacity_;
    int unfinished_ = 0;
};

}  // namespace mlckpt::core
