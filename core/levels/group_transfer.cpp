#include "levels/group_transfer.hpp"

#include <algorithm>
#include <exception>
#include <optional>

#include "common/error.hpp"
#include "hash/crc32.hpp"
#include "io/buffer_pool.hpp"
#include "io/file.hpp"
#include "io/sequential_writer.hpp"
#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

std::uint64_t rounds_for(std::uint64_t bytes, std::size_t block) {
    return (bytes + block - 1) / block;
}

}  // namespace

void run_transfer(MPI_Comm group, const Transfer& t, std::size_t block, int tag) {
    std::exception_ptr failure;
    std::optional<File> in;
    std::optional<File> out_file;
    std::optional<SequentialWriter> out;
    std::uint64_t send_size = 0;
    const std::string tmp = t.recv_name + ".tmp";
    try {
        if (t.send_to != MPI_PROC_NULL && t.send_content != nullptr) {
            send_size = t.send_content->size();
        } else if (t.send_to != MPI_PROC_NULL) {
            in = File::open_read(t.send_path);
            send_size = in->size();
        }
        if (t.recv_from != MPI_PROC_NULL) out_file.emplace(File::create(t.recv_dir, tmp));
    } catch (...) {
        failure = std::current_exception();
    }

    // The sender announces its size, so the receiver knows how much comes.
    std::uint64_t incoming = 0;
    sendrecv(&send_size, 1, t.send_to, &incoming, 1, t.recv_from, MPI_UINT64_T, tag, group, "a transfer's size");
    std::uint64_t mine = std::max(rounds_for(send_size, block), rounds_for(incoming, block));
    std::uint64_t rounds = 0;
    allreduce(&mine, &rounds, 1, MPI_UINT64_T, MPI_MAX, group, "the number of a transfer's pieces");

    // Buffers and the writer's batches no larger than the data: a small
    // checkpoint does not keep megabytes in the buffer pool.
    const auto piece_buffer = [&](std::uint64_t bytes) {
        return take_buffer(static_cast<std::size_t>(std::clamp<std::uint64_t>(bytes, 1, block)));
    };
    PooledBuffer send_buf = t.send_to != MPI_PROC_NULL ? piece_buffer(send_size) : PooledBuffer{};
    PooledBuffer recv_buf = t.recv_from != MPI_PROC_NULL ? piece_buffer(incoming) : PooledBuffer{};
    if (out_file) {
        try {
            out.emplace(std::move(*out_file), SequentialWriter::batch_for(incoming));
        } catch (...) {
            if (!failure) failure = std::current_exception();
        }
    }
    Crc32 crc;
    for (std::uint64_t r = 0; r < rounds; ++r) {
        std::uint64_t offset = r * block;
        int send_n = offset < send_size ? static_cast<int>(std::min<std::uint64_t>(block, send_size - offset)) : 0;
        int recv_n = offset < incoming ? static_cast<int>(std::min<std::uint64_t>(block, incoming - offset)) : 0;
        if (send_n > 0 && !failure) {
            try {
                std::span<std::byte> piece(send_buf.data(), static_cast<std::size_t>(send_n));
                if (in) {
                    in->read_exact_at(piece, offset);
                } else {
                    t.send_content->copy_out(offset, piece);
                }
            } catch (...) {
                failure = std::current_exception();  // keep the rounds going with what is in the buffer
            }
        }
        sendrecv(send_buf.data(), send_n, t.send_to, recv_buf.data(), recv_n, t.recv_from, MPI_BYTE, tag, group,
                 "a piece of a file sent to another group member");
        if (recv_n > 0 && !failure) {
            try {
                std::span<const std::byte> piece(recv_buf.data(), static_cast<std::size_t>(recv_n));
                out->append(piece);  // written by a worker while the next pieces travel
                crc.update(piece);
            } catch (...) {
                failure = std::current_exception();
            }
        }
    }
    if (out && !failure) {
        try {
            if (incoming != t.recv_size || crc.value() != t.recv_crc) {
                fail(ErrorKind::corrupt, "'" + t.recv_dir.path_of(t.recv_name).string() + "' arrived with " +
                                             std::to_string(incoming) + " bytes and CRC " +
                                             std::to_string(crc.value()) + "; expected " + std::to_string(t.recv_size) +
                                             " bytes and CRC " + std::to_string(t.recv_crc));
            }
            out->finish();
            t.recv_dir.rename(tmp, t.recv_name);
            t.recv_dir.sync();
        } catch (...) {
            failure = std::current_exception();
        }
    }
    if (failure && (out || out_file)) t.recv_dir.remove(tmp);
    agree(group, failure);
}

}  // namespace mlckpt::core
