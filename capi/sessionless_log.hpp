// Errors of calls that find no session (before the init call, after the
// finalize call, or when the init call itself failed): printed by a logger
// of their own, labelled with the rank in MPI_COMM_WORLD while MPI runs.
#pragma once

#include <mpi.h>

#include <string>

#include "log/log.hpp"

namespace mlckpt::capi {

inline void print_sessionless_error(const char* tag, const std::string& line) {
    int rank = 0;
    int initialized = 0;
    int finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    core::Logger log(3, rank, false, rank);
    log.set_tag(tag);
    log.error(line);
}

}  // namespace mlckpt::capi
