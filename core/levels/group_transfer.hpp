// File transfers between the members of a group, streamed in block_size
// pieces so that no file is ever held whole in memory. Every member runs the
// same number of rounds (agreed first), so members that send or receive
// nothing still take part, and an I/O error on one member never leaves its
// peers waiting: it keeps exchanging empty pieces and the group agrees on
// the outcome at the end.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <filesystem>

#include "io/file.hpp"
#include "levels/memory_content.hpp"

namespace mlckpt::core {

namespace fs = std::filesystem;

struct Transfer {
    int send_to = MPI_PROC_NULL;  // group rank, or MPI_PROC_NULL
    fs::path send_path;
    // When given: the content of send_path, still in memory, sent from
    // there instead of read back from the file.
    const MemoryContent* send_content = nullptr;
    int recv_from = MPI_PROC_NULL;
    // Where what arrives goes: written as <recv_name>.tmp around the page
    // cache, renamed when verified, all in the directory opened once.
    Directory recv_dir;
    std::string recv_name;
    std::uint64_t recv_size = 0;  // expected size and CRC of what arrives
    std::uint32_t recv_crc = 0;
};

// Collective over `group`. Throws the same Error on every member on failure.
void run_transfer(MPI_Comm group, const Transfer& t, std::size_t block_bytes, int tag);

}  // namespace mlckpt::core
