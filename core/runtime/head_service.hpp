// Asynchronous post-processing by head ranks (head = 1, inline_lX = 0).
//
// An application rank commits its checkpoint with the data alone (an L4
// checkpoint is committed at L1 first), hands it to the head of its node and
// goes back to computing. The heads make the partner copies or the parity,
// or flush the files to L4, then re-commit the metadata with the result.
// The application rank's next FTI_Checkpoint or FTI_Finalize waits for the
// head's verdict before older checkpoints are retired, so there is always a
// complete checkpoint to restart from.
//
// Messages travel over the library's world communicator as text:
//   application -> head (general_tag): "POST <seq> <level> <ckpt_id>\n<record>"
//                                      or "FINALIZE"
//   head -> application (stage_tag):   "OK" or "ERR <reason>"
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "store/context.hpp"

namespace mlckpt::core {

class HeadService {
  public:
    // `heads`: every head rank; `sector`: the heads of this head's group of
    // nodes, ranked by ring position (MPI_COMM_NULL without valid groups).
    HeadService(Context& ctx, MPI_Comm world, MPI_Comm heads, MPI_Comm sector)
        : ctx_(ctx), world_(world), heads_(heads), sector_(sector) {}

    // Serves the node's application ranks until each has finalized.
    void run();

  private:
    // One POST from every application rank of the node, by node index.
    std::string process(const std::vector<std::string>& posts);

    Context& ctx_;
    MPI_Comm world_;
    MPI_Comm heads_;
    MPI_Comm sector_;
};

void send_text(MPI_Comm comm, const std::string& text, int dest, int tag);
std::string receive_text(MPI_Comm comm, int source, int tag, int* actual_source = nullptr);

}  // namespace mlckpt::core
