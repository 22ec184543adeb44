// MPI-IO with RAII. Errors throw an io Error naming the file; a collective
// call that fails on one rank has still completed there, so the caller can
// remember the failure, keep taking part in the collective calls that
// follow, and agree at the end (no rank is left waiting).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <span>

namespace mlckpt::core {

namespace fs = std::filesystem;

class MpiFile {
  public:
    // Collective over `comm`: opens an existing file with MPI_MODE_WRONLY or
    // MPI_MODE_RDONLY.
    MpiFile(MPI_Comm comm, const fs::path& path, int amode);
    MpiFile(const MpiFile&) = delete;
    MpiFile& operator=(const MpiFile&) = delete;
    ~MpiFile();  // collective close if still open (never after MPI_Finalize)

    // Independent calls: every rank's slice is one large contiguous range,
    // which collective calls would only synchronise and, under OMPIO, copy
    // through aggregator ranks (docs/configuration.md, ckpt_io, says why).
    void write_at(std::uint64_t offset, std::span<const std::byte> data);
    void read_at(std::uint64_t offset, std::span<std::byte> data);
    void sync();   // collective: MPI_File_sync
    void close();  // collective
    // Forgets the handle without closing it, for when some rank could not
    // open the file and a collective close would never complete.
    void abandon() { fh_ = MPI_FILE_NULL; }

    const fs::path& path() const { return path_; }

  private:
    void check(int rc, const char* what, std::uint64_t offset = 0) const;
    void check_count(const MPI_Status& status, std::size_t expected, const char* what, std::uint64_t offset) const;

    // MPI-IO's collective calls have no bounded form: a bounded barrier
    // over `comm_` before each makes sure every rank is there.
    MPI_Comm comm_ = MPI_COMM_NULL;
    MPI_File fh_ = MPI_FILE_NULL;
    fs::path path_;
};

}  // namespace mlckpt::core
