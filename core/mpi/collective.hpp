// Small MPI helpers. The central one is agree(): every rank reports whether
// its part of a collective step succeeded, and either all ranks go on or all
// ranks throw the same error, carrying the message of the lowest failing
// rank. No rank ever proceeds alone and no rank is left waiting.
#pragma once

#include <mpi.h>

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "common/error.hpp"

namespace mlckpt::core {

void check_mpi(int rc, const char* what);

// Owns a communicator; frees it on destruction.
class Communicator {
  public:
    Communicator() = default;
    explicit Communicator(MPI_Comm comm) : comm_(comm) {}
    Communicator(Communicator&& o) noexcept : comm_(o.comm_) { o.comm_ = MPI_COMM_NULL; }
    Communicator& operator=(Communicator&& o) noexcept;
    Communicator(const Communicator&) = delete;
    Communicator& operator=(const Communicator&) = delete;
    ~Communicator();

    MPI_Comm get() const { return comm_; }
    int rank() const;
    int size() const;

  private:
    MPI_Comm comm_ = MPI_COMM_NULL;
};

// Waits for a nonblocking MPI operation. A blocking MPI call waits by
// polling, on a core: while some ranks still hash or write their
// checkpoint, the ranks done with theirs would take the cores those ranks
// and the library's worker threads need, wherever a node has more busy
// threads than cores. After a short poll, this sleeps between tests.
void wait_quietly(MPI_Request& request, const char* what);
// The collectives a checkpoint waits in, waiting as wait_quietly does.
void barrier(MPI_Comm comm);
void allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);
void allgather(const void* in, void* out, int count, MPI_Datatype type, MPI_Comm comm);

// Runs `step` on every rank of `comm`, then agrees on the outcome (see above).
void run_collectively(MPI_Comm comm, const std::function<void()>& step);
// Agreement on an outcome already known: `failure` is null on success.
void agree(MPI_Comm comm, std::exception_ptr failure);
// The message rank `rank` throws when rank `first` failed first with
// `message`; `own` is this rank's own message ("" when it did not fail).
// Other ranks get "on rank <first>: " in front, unless the message already
// names a rank; a rank never gets its own message back under its own number.
std::string agreed_message(int rank, int first, const std::string& message, const std::string& own);

std::string bcast_string(MPI_Comm comm, const std::string& value, int root);
// Gathers one string per rank at `root` (empty vector elsewhere).
std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& value, int root);

}  // namespace mlckpt::core
