// Asynchronous post-processing by head ranks (head = 1, inline_lX = 0).
//
// An application rank commits its checkpoint with the data alone (an L4
// checkpoint is committed at L1 first), hands it to the head of its node and
// goes back to computing. The heads make the partner copies or the parity,
// or flush the files to L4, then re-commit the metadata with the result.
// Once the checkpoint is complete, the heads retire the older checkpoints it
// supersedes (and the L1 copy of an L4 checkpoint), then send their
// verdict, so there is always a complete checkpoint to restart from. The
// application rank's next FTI_Checkpoint or FTI_Finalize reads the verdict.
//
// Requests travel over the library's world communicator as text:
//   application -> head (general_tag): "POST <seq> <level> <ckpt_id>[ <seq> <level> <ckpt_id>]...\n<record>"
//                                      (the checkpoints that the posted one retires)
//                                      or "FINALIZE", or a staging request
//                                      (heads/head_staging.hpp)
// and the verdict as FTI sends it, so that FTI's programs that wait for it
// themselves keep working: over the application's communicator (the one
// given to FTI_Init), general_tag, one int, the level completed or -1; after
// a -1, the reason as text over the world communicator (stage_tag).
// An application rank that ends without FTI_Finalize sends FTI_ENDW (995,
// one int) on final_tag over the application's communicator, as FTI's do;
// once every rank of its node has ended either way, the head returns, and
// if any sent FTI_ENDW it first joins their MPI_Barrier on that
// communicator.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "heads/head_protocol.hpp"
#include "heads/head_staging.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

class HeadService {
  public:
    // `heads`: every head rank; `sector`: the heads of this head's group of
    // nodes, ranked by ring position (MPI_COMM_NULL without valid groups).
    // `application`: the communicator given to FTI_Init. `staging`: where
    // staging reports go (MPI_COMM_NULL when staging is off).
    HeadService(Context& ctx, MPI_Comm world, MPI_Comm application, MPI_Comm heads, MPI_Comm sector,
                MPI_Comm staging = MPI_COMM_NULL)
        : ctx_(ctx),
          world_(world),
          application_(application),
          heads_(heads),
          sector_(sector),
          staging_(staging == MPI_COMM_NULL ? nullptr : std::make_unique<HeadStaging>(ctx, staging)) {}

    // Serves the node's application ranks until each has finalized or sent
    // FTI_ENDW.
    void run();

  private:
    struct Verdict {
        int level = kHeadFailed;  // the level completed, or kHeadFailed
        std::string reason;       // why it failed
    };
    // One POST from every application rank of the node, by node index.
    Verdict process(const std::vector<std::string>& posts);

    // The next request from one of the node's ranks: its node index and
    // text ("ENDW" for FTI_ENDW); polls both communicators.
    std::pair<std::size_t, std::string> next_request();

    Context& ctx_;
    MPI_Comm world_;
    MPI_Comm application_;
    MPI_Comm heads_;
    MPI_Comm sector_;
    std::unique_ptr<HeadStaging> staging_;
};

}  // namespace mlckpt::core
