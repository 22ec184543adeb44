// Small MPI helpers. The central one is agree(): every rank reports whether
// its part of a collective step succeeded, and either all ranks go on or all
// ranks throw the same error, carrying the message of the lowest failing
// rank. No rank ever proceeds alone and no rank is left waiting.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "mpi/bounded_wait.hpp"

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

// The blocking steps of the library, each waiting as wait_for() does
// (bounded, without taking a core); `step` names the step in reports.
void barrier(MPI_Comm comm, const char* step = "MPI_Ibarrier");
void allreduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
               const char* step = "MPI_Iallreduce");
void allgather(const void* in, void* out, int count, MPI_Datatype type, MPI_Comm comm,
               const char* step = "MPI_Iallgather");
// MPI_IN_PLACE as `in` works as in MPI_Allgatherv.
void allgatherv(const void* in, int count, void* out, const int* counts, const int* displs, MPI_Datatype type,
                MPI_Comm comm, const char* step = "MPI_Iallgatherv");
void alltoallv(const void* in, const int* in_counts, const int* in_displs, void* out, const int* out_counts,
               const int* out_displs, MPI_Datatype type, MPI_Comm comm, const char* step = "MPI_Ialltoallv");
void reduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
            const char* step = "MPI_Ireduce");
void bcast(void* data, int count, MPI_Datatype type, int root, MPI_Comm comm, const char* step = "MPI_Ibcast");
void send(const void* data, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
          const char* step = "MPI_Isend");
void recv(void* data, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, const char* step = "MPI_Irecv");
// Sends to `dest` and receives from `source` (either may be MPI_PROC_NULL).
void sendrecv(const void* out, int out_count, int dest, void* in, int in_count, int source, MPI_Datatype type, int tag,
              MPI_Comm comm, const char* step = "MPI_Isend/MPI_Irecv");
// MPI's communicator constructors have no nonblocking form: a bounded
// barrier first makes sure every rank is there. `name` names the new
// communicator in reports.
MPI_Comm dup_comm(MPI_Comm comm, const char* name);
MPI_Comm split_comm(MPI_Comm comm, int color, int key, const char* name);

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
// Sends string i of `values` (given at `root` only, one per rank) to rank i.
std::string scatter_strings(MPI_Comm comm, const std::vector<std::string>& values, int root);
// The same for vectors of 64-bit values: a root's table built from every
// rank's part, and each rank's own part of what the root computed.
std::vector<std::vector<std::uint64_t>> gather_values(MPI_Comm comm, const std::vector<std::uint64_t>& value, int root);
std::vector<std::uint64_t> scatter_values(MPI_Comm comm, const std::vector<std::vector<std::uint64_t>>& values,
                                          int root);
// Every rank's string, on every rank: for small communicators (an L2/L3 group).
std::vector<std::string> allgather_strings(MPI_Comm comm, const std::string& value);

}  // namespace mlckpt::core
