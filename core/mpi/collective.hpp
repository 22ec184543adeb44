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

// Runs `step` on every rank of `comm`, then agrees on the outcome (see above).
void run_collectively(MPI_Comm comm, const std::function<void()>& step);
// Agreement on an outcome already known: `failure` is null on success.
void agree(MPI_Comm comm, std::exception_ptr failure);

std::string bcast_string(MPI_Comm comm, const std::string& value, int root);
// Gathers one string per rank at `root` (empty vector elsewhere).
std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& value, int root);

}  // namespace mlckpt::core
