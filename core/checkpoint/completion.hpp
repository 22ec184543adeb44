// The end of a checkpoint's life after its commit: the level's work that a
// head or the rank's worker did on it, entered in the catalog with what it
// supersedes retired; and a failure of that background work, logged where
// it is found and reported by the next call that settles it.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

// A checkpoint whose level's work was handed over after its commit.
struct HandedOver {
    CheckpointRef committed;  // as the application ranks committed it
    int level;                // the level the head or the rank's worker completes it to
    // What the heads retire once they completed it (the others are retired
    // here when their verdict comes).
    std::vector<CheckpointRef> retired_by_heads = {};
};

class Completion {
  public:
    // `retired`: called once a completion retired checkpoints (a restart
    // may have been reading one of them).
    Completion(Context& ctx, std::function<void()> retired) : ctx_(ctx), retired_(std::move(retired)) {}

    // `h` completed: in the catalog at its level, what it supersedes retired.
    void complete(const HandedOver& h);
    // What completing `h` retires: the checkpoints it supersedes and, when
    // a rank's worker flushed it to L4, its local copy.
    std::vector<CheckpointRef> retired_by(const HandedOver& h) const;
    // The outcome of a promotion by the rank's worker.
    void promotion_settled(const CheckpointRef& committed, int level, std::exception_ptr failure);

    // Logs a failure of background work and keeps it for the call to report.
    void note_failure(const std::string& what, std::exception_ptr failure, const std::string& consequence);
    // Runs the call's own work, then throws the failure noted since, once:
    // the call's own failure first (the noted one was logged).
    void report_after(const std::function<void()>& own_work);

  private:
    Context& ctx_;
    std::function<void()> retired_;
    std::optional<Error> failure_;
};

}  // namespace mlckpt::core
