// The level's work after the commit done by the node's head (head = 1):
// the checkpoint, with what the heads may retire once they completed it,
// posted to the head; at the next call, the heads' verdict (every head
// sends the same one, so the application ranks act alike).
#pragma once

#include <mpi.h>

#include <functional>
#include <optional>
#include <string>

#include "checkpoint/completion.hpp"
#include "checkpoint/transport.hpp"

namespace mlckpt::core {

class HeadTransport final : public Transport {
  public:
    // `global`: the communicator given to FTI_Init (the verdicts), `world`:
    // the library's duplicate of it (the posts and the reasons of a failure).
    // `still_read`: the checkpoint a restart may still read, which the heads
    // must not retire.
    HeadTransport(const Context& ctx, Completion& completion, MPI_Comm global, MPI_Comm world,
                  std::function<std::optional<CheckpointRef>()> still_read)
        : ctx_(ctx), completion_(completion), global_(global), world_(world), still_read_(std::move(still_read)) {}

    void hand_over(const CheckpointRef& ref, int level, const FileRecord& record) override;
    void settle() override;
    bool pending() const override { return handed_over_.has_value(); }

  private:
    std::optional<std::string> verdict();  // why the head failed, if it did

    const Context& ctx_;
    Completion& completion_;
    MPI_Comm global_;
    MPI_Comm world_;
    std::function<std::optional<CheckpointRef>()> still_read_;
    std::optional<HandedOver> handed_over_;
};

}  // namespace mlckpt::core
