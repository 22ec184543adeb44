// After a recovery from L2 or L3, this rank's partner copy or parity of the
// checkpoint recovered from is verified whole on the background thread:
// damage to it would otherwise stay latent until the checkpoint is
// replaced. The next checkpoint first rebuilds what failed, collectively.
#pragma once

#include <memory>
#include <optional>

#include "recovery/selector.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

class RestartRedundancyCheck {
  public:
    explicit RestartRedundancyCheck(Context& ctx) : ctx_(ctx) {}

    // Local: starts the check of what `source` keeps here, if it keeps
    // anything; a check started before is dropped.
    void start(const std::optional<RecoverySource>& source);
    // Collective, before the next checkpoint: the redundancy found damaged
    // on any rank, rebuilt (a failure is a warning: the checkpoint stays).
    void settle();
    void cancel() noexcept { check_.reset(); }

  private:
    struct Check;
    Context& ctx_;
    std::shared_ptr<Check> check_;
};

}  // namespace mlckpt::core
