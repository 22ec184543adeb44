// What application ranks and their node's head say to each other (the
// requests and verdicts of heads/head_service.hpp): text messages, and
// the ints FTI sends.
#pragma once

#include <mpi.h>

#include <string>

namespace mlckpt::core {

// The head's verdict on a checkpoint it completed (the int FTI sends).
constexpr int kHeadFailed = -1;
// FTI_ENDW of fti.h.
constexpr int kEndOfWork = 995;

void send_text(MPI_Comm comm, const std::string& text, int dest, int tag);
std::string receive_text(MPI_Comm comm, int source, int tag, int* actual_source = nullptr);

}  // namespace mlckpt::core
