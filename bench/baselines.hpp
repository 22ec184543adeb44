// The machine's own limits for the work a checkpoint does, measured with the
// same bytes, by the same ranks, in the same launch: the yardsticks the
// bench divides by. Every function is collective over `comm` and returns the
// seconds until the last rank is done.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <filesystem>
#include <span>

namespace mlckpt::bench {

namespace fs = std::filesystem;

// pwrite() of `data` to a new file per rank in `dir`, then fsync().
double raw_durable_write(MPI_Comm comm, const fs::path& file, std::span<const std::byte> data);
// The same into a new file: `file` is created exclusively (the caller has
// removed the previous one), as each checkpoint creates its own files, whose
// pages the page cache has to find anew.
double raw_durable_write_new_file(MPI_Comm comm, const fs::path& file, std::span<const std::byte> data);
// The same, every rank writing its `data` into one file shared by the
// ranks of `comm`, at offset rank x data.size() (pwrite()), then fsync(): the
// work of the shared-file modes (MPI-IO, container), where the file
// system serializes what it serializes for one file. The file is removed.
double raw_shared_durable_write(MPI_Comm comm, const fs::path& file, std::span<const std::byte> data);
// The work of one HDF5 file shared by the ranks (FTI_L4_H5_SINGLE): every
// rank writes its `data` into a new `file` shared by the ranks of `comm`,
// at offset rank x data.size(), with collective MPI-IO
// (MPI_File_write_at_all), then MPI_File_sync and MPI_File_close. `file`
// must not exist (the caller removes the previous one when the library
// removes its previous checkpoint); it stays for
// raw_shared_mpiio_read_with_crc.
double raw_shared_mpiio_write(MPI_Comm comm, const fs::path& file, std::span<const std::byte> data);
// Its reading: every rank reads its slice of that file into `buffer` with
// collective MPI-IO (MPI_File_read_at_all) and computes a CRC-32 (ISA-L) of it.
double raw_shared_mpiio_read_with_crc(MPI_Comm comm, const fs::path& file, std::span<std::byte> buffer);
// read() of that file into `buffer` with a CRC-32 (ISA-L) of what was read.
double raw_read_with_crc(MPI_Comm comm, const fs::path& file, std::span<std::byte> buffer);
// The pass over all the data with which an L4 differential checkpoint finds
// its changed blocks: a CRC-32 (ISA-L) of every `block` bytes of `data`, by
// `threads` threads per rank (the CPUs each rank has to itself).
double raw_block_crcs(MPI_Comm comm, std::span<const std::byte> data, std::size_t block, std::size_t threads);
// What a differential checkpoint must write: every `step`-th block of
// `block` bytes of `data`, pwrite() in place into `file` (which holds
// `data`'s size already), then fsync().
double raw_in_place_update(MPI_Comm comm, const fs::path& file, std::span<const std::byte> data, std::size_t block,
                           std::size_t step);
// memcpy of `data` into `buffer`.
double raw_memcpy(MPI_Comm comm, std::span<const std::byte> data, std::span<std::byte> buffer);
// OpenSSL MD5 of `data`.
double raw_md5(MPI_Comm comm, std::span<const std::byte> data);
// ISA-L Reed-Solomon encode of one parity fragment from `k` fragments of
// `fragment` bytes, in stripes of `stripe` bytes (what each L3 member
// computes); `library` runs the same through mlckpt's own encoder.
double raw_isal_encode(MPI_Comm comm, int k, std::size_t fragment, std::size_t stripe, bool library);
// MPI: every rank sends `data` to its right neighbour and receives as much
// from its left one, in pieces of `piece` bytes.
double raw_mpi_ring(MPI_Comm comm, std::span<const std::byte> data, std::size_t piece);

}  // namespace mlckpt::bench
