// One HDF5 file shared by every application rank (FTI_L4_H5_SINGLE): the
// global datasets of FTI_DefineGlobalDataset, created with parallel HDF5,
// each rank's subsets written into them. Beside them
// the dataset "mlckpt_subsets" records every subset written (dataset id,
// writing rank, variable, CRC-32 of its bytes, offset, count), so that a
// restart on any number of ranks verifies the whole file first
// (docs/hdf5.md). Reading needs no MPI: each rank opens the file alone.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "format/hdf5/hdf5_schema.hpp"

namespace mlckpt::core::h5 {

namespace fs = std::filesystem;

inline constexpr const char* kSubsetTable = "mlckpt_subsets";

struct GlobalDatasetSpec {
    int id = 0;
    std::string name;
    GroupPath group;
    std::vector<std::uint64_t> dims;
    std::shared_ptr<const Type> type;

    std::string path() const;  // "/group/name"
};

// What every rank declares alike.
struct GlobalSchema {
    std::vector<GroupPath> groups;  // parents first
    std::vector<GlobalDatasetSpec> datasets;
};

// A rank's part of a global dataset: a hyperslab and its bytes, laid out
// as an array of `count` (row-major), in the dataset's element type.
struct Piece {
    std::size_t dataset = 0;  // in GlobalSchema::datasets
    int var = 0;
    std::vector<std::uint64_t> offset;
    std::vector<std::uint64_t> count;
    std::span<const std::byte> data;
    std::uint32_t crc32 = 0;  // of `data`; write_global_file computes it
};

// A row of the subset table.
struct SubsetRecord {
    int dataset_id = 0;
    int writer = 0;  // the application rank that wrote it
    int var = 0;
    std::uint32_t crc32 = 0;
    std::vector<std::uint64_t> offset;
    std::vector<std::uint64_t> count;
};

// Collective over `comm`: creates `file` exclusively, reserves its storage
// (rank 0), writes the groups, the datasets, every rank's pieces and the
// subset table, closes it and makes it durable (fsync on every rank). A
// dataset whose subsets are each one run of its storage is written by each
// rank straight to that storage (direct I/O); others through collective
// H5Dwrite. Where the storage could not be reserved, every rank reads its
// subsets back: MPI-IO has been seen to report a collective write that
// failed (a full disk) as a success. Every rank throws the same io Error,
// at the same point, when any rank failed.
void write_global_file(MPI_Comm comm, const fs::path& file, const GlobalSchema& schema, std::vector<Piece> pieces,
                       int ckpt_id);

struct StoredDataset {
    std::string path;
    int id = 0;
    std::vector<std::uint64_t> dims;
};

// What a global file holds, without its data.
struct GlobalIndex {
    int ckpt_id = 0;
    int writers = 0;  // the number of application ranks that wrote it
    std::vector<StoredDataset> datasets;
    std::vector<SubsetRecord> subsets;

    const StoredDataset* find(const std::string& path) const;
    const StoredDataset* find(int id) const;
};

// For sending an index from the rank that read it to the others.
std::string serialize_index(const GlobalIndex& index);
GlobalIndex parse_index(const std::string& text);

// Without HDF5 (MLCKPT_HDF5=OFF), write_global_file and GlobalFileReader
// refuse (format/hdf5/hdf5_unavailable.cpp).

// A global file opened read-only by one rank alone. Every failure is a
// corrupt Error naming the file.
class GlobalFileReader {
  public:
    explicit GlobalFileReader(const fs::path& file);
    ~GlobalFileReader();
    GlobalFileReader(const GlobalFileReader&) = delete;
    GlobalFileReader& operator=(const GlobalFileReader&) = delete;

    GlobalIndex index() const;
    // Reads subset `s` of dataset `path` back and checks its CRC-32: in
    // row-major pieces of at most 8 MiB, into one buffer, with a running
    // CRC-32, so that the memory it takes does not grow with the subset.
    void verify(const std::string& path, const SubsetRecord& s) const;
    // Where element `coords` of contiguous dataset `path` lies in the file.
    std::uint64_t byte_offset(const std::string& path, const std::vector<std::uint64_t>& coords) const;
    // Reads the hyperslab (offset, count) of dataset `path` into `out`, in
    // `memory_type` (HDF5 converts when the file's type differs).
    void read(const std::string& path, const std::vector<std::uint64_t>& offset,
              const std::vector<std::uint64_t>& count, const Type& memory_type, std::span<std::byte> out) const;

  private:
    struct Open;  // the HDF5 file (the header stays free of HDF5's)
    std::unique_ptr<Open> open_;
};

}  // namespace mlckpt::core::h5
