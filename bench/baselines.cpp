#include "baselines.hpp"

#include <fcntl.h>
#include <isa-l/crc.h>
#include <isa-l/erasure_code.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/parallel_ranges.hpp"
#include "levels/reed_solomon.hpp"

namespace mlckpt::bench {

namespace {

// Times `work` on every rank between two barriers.
template <typename Work>
double timed(MPI_Comm comm, Work&& work) {
    MPI_Barrier(comm);
    double start = MPI_Wtime();
    work();
    MPI_Barrier(comm);
    return MPI_Wtime() - start;
}

[[noreturn]] void fail(const std::string& what, const fs::path& path) {
    throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(errno));
}

void write_whole(int fd, std::span<const std::byte> data, off_t offset, const fs::path& file) {
    for (std::size_t done = 0; done < data.size();) {
        ssize_t n = ::pwrite(fd, data.data() + done, data.size() - done, offset + static_cast<off_t>(done));
        if (n < 0) fail("cannot write", file);
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace

double raw_durable_write(MPI_Comm comm, const fs::path& file, std::span<const std::byte> data) {
    fs::create_directories(file.parent_path());
    return timed(comm, [&] {
        int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) fail("cannot create", file);
        write_whole(fd, data, 0, file);
        if (::fsync(fd) != 0) fail("cannot fsync", file);
        ::close(fd);
    });
}

double raw_durable_write_new_file(MPI_Comm comm, const fs::path& file, std::span<const std::byte> data) {
    fs::create_directories(file.parent_path());
    return timed(comm, [&] {
        int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd < 0) fail("cannot create", file);
        write_whole(fd, data, 0, file);
        if (::fsync(fd) != 0) fail("cannot fsync", file);
        ::close(fd);
    });
}

double raw_shared_durable_write(MPI_Comm comm, const fs::path& file, std::span<const std::byte> data) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) fs::create_directories(file.parent_path());
    MPI_Barrier(comm);
    double seconds = timed(comm, [&] {
        int fd = ::open(file.c_str(), O_WRONLY | O_CREAT, 0644);
        if (fd < 0) fail("cannot create", file);
        write_whole(fd, data, static_cast<off_t>(rank) * static_cast<off_t>(data.size()), file);
        if (::fsync(fd) != 0) fail("cannot fsync", file);
        ::close(fd);
    });
    if (rank == 0) fs::remove(file);
    return seconds;
}

namespace {

// Collective MPI-IO calls take an int count: pieces of at most 1 GiB, the
// same number on every rank (every rank moves as many bytes).
constexpr std::size_t kMpiPiece = std::size_t{1} << 30;

void check_mpi(int rc, const char* what, const fs::path& file) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(rc, text, &length);
    throw std::runtime_error(std::string(what) + " " + file.string() + ": " + std::string(text, length));
}

}  // namespace

double raw_shared_mpiio_write(MPI_Comm comm, const fs::path& file, std::span<const std::byte> data) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) fs::create_directories(file.parent_path());
    MPI_Barrier(comm);
    const MPI_Offset base = static_cast<MPI_Offset>(rank) * static_cast<MPI_Offset>(data.size());
    return timed(comm, [&] {
        MPI_File fh = MPI_FILE_NULL;
        check_mpi(
            MPI_File_open(comm, file.c_str(), MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
            "cannot create", file);
        for (std::size_t done = 0; done < data.size(); done += kMpiPiece) {
            const int n = static_cast<int>(std::min(kMpiPiece, data.size() - done));
            check_mpi(MPI_File_write_at_all(fh, base + static_cast<MPI_Offset>(done), data.data() + done, n, MPI_BYTE,
                                            MPI_STATUS_IGNORE),
                      "cannot write", file);
        }
        check_mpi(MPI_File_sync(fh), "cannot sync", file);
        check_mpi(MPI_File_close(&fh), "cannot close", file);
    });
}

double raw_shared_mpiio_read_with_crc(MPI_Comm comm, const fs::path& file, std::span<std::byte> buffer) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const MPI_Offset base = static_cast<MPI_Offset>(rank) * static_cast<MPI_Offset>(buffer.size());
    return timed(comm, [&] {
        MPI_File fh = MPI_FILE_NULL;
        check_mpi(MPI_File_open(comm, file.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "cannot open", file);
        for (std::size_t done = 0; done < buffer.size(); done += kMpiPiece) {
            const int n = static_cast<int>(std::min(kMpiPiece, buffer.size() - done));
            check_mpi(MPI_File_read_at_all(fh, base + static_cast<MPI_Offset>(done), buffer.data() + done, n, MPI_BYTE,
                                           MPI_STATUS_IGNORE),
                      "cannot read", file);
        }
        check_mpi(MPI_File_close(&fh), "cannot close", file);
        volatile std::uint32_t crc = crc32_gzip_refl(0, reinterpret_cast<const unsigned char*>(buffer.data()),
                                                     static_cast<std::uint64_t>(buffer.size()));
        (void)crc;
    });
}

double raw_read_with_crc(MPI_Comm comm, const fs::path& file, std::span<std::byte> buffer) {
    return timed(comm, [&] {
        int fd = ::open(file.c_str(), O_RDONLY);
        if (fd < 0) fail("cannot open", file);
        std::size_t done = 0;
        for (ssize_t n = 1; n > 0 && done < buffer.size(); done += static_cast<std::size_t>(n)) {
            n = ::read(fd, buffer.data() + done, buffer.size() - done);
            if (n < 0) fail("cannot read", file);
        }
        ::close(fd);
        volatile std::uint32_t crc =
            crc32_gzip_refl(0, reinterpret_cast<const unsigned char*>(buffer.data()), static_cast<std::uint64_t>(done));
        (void)crc;
    });
}

double raw_block_crcs(MPI_Comm comm, std::span<const std::byte> data, std::size_t block, std::size_t threads) {
    const std::size_t blocks = (data.size() + block - 1) / block;
    return timed(comm, [&] {
        std::atomic<std::uint32_t> all{0};
        mlckpt::core::for_ranges(blocks, threads, [&](std::size_t begin, std::size_t end) {
            std::uint32_t mine = 0;
            for (std::size_t k = begin; k < end; ++k) {
                const std::size_t n = std::min(block, data.size() - k * block);
                mine ^= crc32_gzip_refl(0, reinterpret_cast<const unsigned char*>(data.data() + k * block), n);
            }
            all ^= mine;
        });
        volatile std::uint32_t keep = all;
        (void)keep;
    });
}

double raw_in_place_update(MPI_Comm comm, const fs::path& file, std::span<const std::byte> data, std::size_t block,
                           std::size_t step) {
    int fd = ::open(file.c_str(), O_WRONLY);
    if (fd < 0) fail("cannot open", file);
    double seconds = timed(comm, [&] {
        for (std::size_t pos = 0; pos < data.size(); pos += block * step) {
            const std::size_t n = std::min(block, data.size() - pos);
            if (::pwrite(fd, data.data() + pos, n, static_cast<off_t>(pos)) != static_cast<ssize_t>(n)) {
                fail("cannot write", file);
            }
        }
        if (::fsync(fd) != 0) fail("cannot fsync", file);
    });
    ::close(fd);
    return seconds;
}

double raw_memcpy(MPI_Comm comm, std::span<const std::byte> data, std::span<std::byte> buffer) {
    return timed(comm, [&] { std::memcpy(buffer.data(), data.data(), std::min(data.size(), buffer.size())); });
}

double raw_md5(MPI_Comm comm, std::span<const std::byte> data) {
    return timed(comm, [&] {
        EVP_MD_CTX* ctx = EVP_MD_CTX_new();
        unsigned char out[EVP_MAX_MD_SIZE];
        unsigned int len = 0;
        EVP_DigestInit_ex(ctx, EVP_md5(), nullptr);
        EVP_DigestUpdate(ctx, data.data(), data.size());
        EVP_DigestFinal_ex(ctx, out, &len);
        EVP_MD_CTX_free(ctx);
    });
}

double raw_isal_encode(MPI_Comm comm, int k, std::size_t fragment, std::size_t stripe, bool library) {
    const auto ku = static_cast<std::size_t>(k);
    std::vector<std::vector<unsigned char>> sources(ku, std::vector<unsigned char>(stripe));
    for (std::size_t s = 0; s < ku; ++s) {
        for (std::size_t i = 0; i < stripe; ++i) sources[s][i] = static_cast<unsigned char>(i * 31 + s);
    }
    std::vector<unsigned char> parity(stripe);
    std::vector<unsigned char*> in;
    for (auto& s : sources) in.push_back(s.data());
    unsigned char* out = parity.data();
    // The raw path: one Cauchy row, tables prepared once, as in ISA-L's examples.
    std::vector<unsigned char> matrix(2 * ku * ku);
    gf_gen_cauchy1_matrix(matrix.data(), 2 * k, k);
    std::vector<unsigned char> tables(32 * ku);
    ec_init_tables(k, 1, &matrix[ku * ku], tables.data());
    core::ReedSolomon rs(k);
    std::vector<int> rows;
    for (int r = 0; r < k; ++r) rows.push_back(r);
    core::ReedSolomon::Plan plan = rs.plan(rows, {k});
    std::vector<const unsigned char*> cin(in.begin(), in.end());
    return timed(comm, [&] {
        for (std::size_t done = 0; done < fragment; done += stripe) {
            int len = static_cast<int>(std::min(stripe, fragment - done));
            if (library) {
                core::ReedSolomon::apply(plan, static_cast<std::size_t>(len), cin, {out});
            } else {
                ec_encode_data(len, k, 1, tables.data(), in.data(), &out);
            }
        }
    });
}

double raw_mpi_ring(MPI_Comm comm, std::span<const std::byte> data, std::size_t piece) {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    std::vector<std::byte> in(piece);
    return timed(comm, [&] {
        for (std::size_t done = 0; done < data.size(); done += piece) {
            int n = static_cast<int>(std::min(piece, data.size() - done));
            MPI_Sendrecv(data.data() + done, n, MPI_BYTE, (rank + 1) % size, 7, in.data(), n, MPI_BYTE,
                         (rank + size - 1) % size, 7, comm, MPI_STATUS_IGNORE);
        }
    });
}

}  // namespace mlckpt::bench
