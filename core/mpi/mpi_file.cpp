#include "mpi/mpi_file.hpp"

#include <string>

#include "mpi/collective.hpp"

namespace mlckpt::core {

namespace {

bool mpi_finalized() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    return finalized != 0;
}

int count_of(std::size_t bytes, const fs::path& path) {
    if (bytes > static_cast<std::size_t>(1) << 30) {
        fail(ErrorKind::usage, "MPI-IO transfer of " + std::to_string(bytes) + " bytes on '" + path.string() +
                                   "' exceeds one call's limit of 1 GiB");
    }
    return static_cast<int>(bytes);
}

}  // namespace

MpiFile::MpiFile(MPI_Comm comm, const fs::path& path, int amode) : comm_(comm), path_(path) {
    barrier(comm_, "every rank before a shared file is opened");
    check(MPI_File_open(comm, path.c_str(), amode, MPI_INFO_NULL, &fh_), "MPI_File_open");
}

MpiFile::~MpiFile() {
    if (fh_ == MPI_FILE_NULL || mpi_finalized()) return;
    try {
        barrier(comm_, "every rank before a shared file is closed");
    } catch (const Error&) {
        // An MPI error in the barrier: the close below reports nothing either.
    }
    MPI_File_close(&fh_);
}

void MpiFile::check(int rc, const char* what, std::uint64_t offset) const {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    fail(ErrorKind::io, std::string(what) + " on '" + path_.string() + "' at offset " + std::to_string(offset) +
                            " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

void MpiFile::check_count(const MPI_Status& status, std::size_t expected, const char* what,
                          std::uint64_t offset) const {
    // ROMIO leaves the status of an empty transfer untouched, whatever an
    // earlier call left in it: there is nothing to count then.
    if (expected == 0) return;
    int done = 0;
    MPI_Get_count(&status, MPI_BYTE, &done);
    if (done != static_cast<int>(expected)) {
        fail(ErrorKind::io, std::string(what) + " on '" + path_.string() + "' at offset " + std::to_string(offset) +
                                " moved " + std::to_string(done) + " of " + std::to_string(expected) +
                                " bytes (file system full, or file shorter than expected)");
    }
}

void MpiFile::write_at(std::uint64_t offset, std::span<const std::byte> data) {
    MPI_Status status;
    check(MPI_File_write_at(fh_, static_cast<MPI_Offset>(offset), data.data(), count_of(data.size(), path_), MPI_BYTE,
                            &status),
          "MPI_File_write_at", offset);
    check_count(status, data.size(), "MPI_File_write_at", offset);
}

void MpiFile::read_at(std::uint64_t offset, std::span<std::byte> data) {
    MPI_Status status;
    check(MPI_File_read_at(fh_, static_cast<MPI_Offset>(offset), data.data(), count_of(data.size(), path_), MPI_BYTE,
                           &status),
          "MPI_File_read_at", offset);
    check_count(status, data.size(), "MPI_File_read_at", offset);
}

void MpiFile::sync() {
    barrier(comm_, "every rank before a shared file is synced");
    check(MPI_File_sync(fh_), "MPI_File_sync");
}

void MpiFile::close() {
    if (fh_ == MPI_FILE_NULL) return;
    barrier(comm_, "every rank before a shared file is closed");
    int rc = MPI_File_close(&fh_);
    fh_ = MPI_FILE_NULL;  // never closed twice, even when closing failed
    check(rc, "MPI_File_close");
}

}  // namespace mlckpt::core
