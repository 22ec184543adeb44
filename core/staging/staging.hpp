// Staging (FTI_GetStageDir, FTI_SendFile, FTI_GetStageStatus) on an
// application rank, with [basic] enable_staging = 1: files written to the
// node-local stage directory (or anywhere) move to the parallel file system
// in the background, by a thread of the rank or by the node's head.
#pragma once

#include <mpi.h>

#include <filesystem>
#include <memory>
#include <string>

#include "staging/stage_requests.hpp"
#include "staging/stage_transport.hpp"
#include "store/context.hpp"

namespace mlckpt::core {

class Staging {
  public:
    // `statuses`: the communicator of the heads' reports (head = 1 only).
    Staging(const Context& ctx, MPI_Comm world, MPI_Comm statuses);

    // <ckpt_dir>/node<N>/<exec_id>/stage, shared by the node's ranks.
    const fs::path& dir() const { return dir_; }
    // Queues the move of `from` to `to` (relative paths are taken from the
    // current directory now); returns the request id. Throws a usage Error
    // for paths that cannot be moved, or when every id is in use.
    int send_file(const std::string& from, const std::string& to);
    StageStatus status(int id);
    // FTI_Finalize (collective over the application ranks): returns once
    // every rank's requests are done (and reported), as FTI, and removes
    // the stage directory with what is left in it.
    void finish();

  private:
    const Context& ctx_;
    fs::path dir_;
    StageRequests requests_;
    std::unique_ptr<StageTransport> transport_;
};

}  // namespace mlckpt::core
