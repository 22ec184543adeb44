#include "heads/head_protocol.hpp"

#include "mpi/collective.hpp"

namespace mlckpt::core {

void send_text(MPI_Comm comm, const std::string& text, int dest, int tag) {
    send(text.data(), static_cast<int>(text.size()), MPI_CHAR, dest, tag, comm,
         "a message between a rank and its head");
}

std::string receive_text(MPI_Comm comm, int source, int tag, int* actual_source) {
    MPI_Status status = wait_for_message(comm, source, tag, "a message between a rank and its head");
    int count = 0;
    MPI_Get_count(&status, MPI_CHAR, &count);
    std::string text(static_cast<std::size_t>(count), '\0');
    recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, tag, comm, "a message between a rank and its head");
    if (actual_source != nullptr) *actual_source = status.MPI_SOURCE;
    return text;
}

}  // namespace mlckpt::core
