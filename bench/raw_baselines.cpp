#include "raw_baselines.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace mlckpt::bench {

namespace {

void write_all(int fd, std::span<const std::byte> data, const std::filesystem::path& path) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) throw std::runtime_error("write to " + path.string() + " failed");
        data = data.subspan(static_cast<std::size_t>(n));
    }
}

}  // namespace

double raw_durable_write(MPI_Comm comm, const std::filesystem::path& dir, std::span<const std::byte> data) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    std::filesystem::create_directories(dir);
    std::filesystem::path path = dir / ("raw-" + std::to_string(rank) + ".bin");
    MPI_Barrier(comm);
    double start = MPI_Wtime();
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) throw std::runtime_error("cannot create " + path.string());
    write_all(fd, data, path);
    if (::fsync(fd) != 0) throw std::runtime_error("fsync of " + path.string() + " failed");
    ::close(fd);
    MPI_Barrier(comm);
    double seconds = MPI_Wtime() - start;
    std::filesystem::remove(path);
    return seconds;
}

}  // namespace mlckpt::bench
