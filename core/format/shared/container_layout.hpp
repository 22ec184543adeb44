// ckpt_io = 4: the block-aligned multi-task container, in the layout of a
// SIONlib file (docs/formats.md, "The multi-task container"). This file is
// the layout alone: which file holds which task, where every chunk starts,
// the metadata blocks as bytes, and reading them back with every check.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "format/data_extents.hpp"
#include "io/file.hpp"

namespace mlckpt::core::container {

constexpr std::int32_t kVersion = 1;  // of the mlckpt container writer
constexpr std::int32_t kPatchLevel = 0;
constexpr std::int32_t kFileFormatVersion = 1;  // of the layout in docs/formats.md
constexpr std::size_t kPrefixBytes = 1024;

// META1: everything that does not depend on what the tasks wrote.
struct Header {
    std::int32_t version = kVersion;
    std::int32_t patchlevel = kPatchLevel;
    std::int32_t fileformat_version = kFileFormatVersion;
    std::int32_t blocksize = 0;
    std::int32_t nfiles = 1;
    std::int32_t filenumber = 0;
    std::int64_t flag1 = 0;
    std::int64_t flag2 = 0;
    std::string prefix;                      // name of file 0
    std::vector<std::int64_t> global_ranks;  // one per task of this file
    std::vector<std::int64_t> sizes;         // requested chunk size per task
    std::int32_t maxchunks = 0;
    std::int64_t start_of_varheader = 0;  // offset of META2
    bool big_endian = false;              // as found when read

    std::size_t ntasks() const { return global_ranks.size(); }
};

// META2: what each task wrote.
struct Tail {
    std::vector<std::int64_t> chunks;                    // per task
    std::vector<std::vector<std::int64_t>> chunk_bytes;  // [chunk][task]; -1 when unused
};

// File 0 of a multi-file container: file and local rank of every rank.
struct MapEntry {
    std::int32_t file = 0;
    std::int32_t local_rank = 0;
};

std::uint64_t align_up(std::uint64_t value, std::uint64_t block);
std::uint64_t meta1_bytes(std::size_t ntasks);
std::uint64_t meta2_bytes(std::size_t ntasks, std::int64_t maxchunks);

// Where the chunks of a file go, from its META1.
struct Geometry {
    std::uint64_t data_start = 0;
    std::uint64_t globalskip = 0;         // one block: every task's chunk space
    std::vector<std::uint64_t> space;     // chunk space per task (aligned requested size)
    std::vector<std::uint64_t> in_block;  // start of each task's space within a block
    std::uint64_t meta2_start = 0;        // end of the data region

    std::uint64_t chunk_offset(std::size_t task, std::uint64_t chunk) const {
        return data_start + chunk * globalskip + in_block[task];
    }
};
Geometry geometry(const Header& header);

// Tasks are application ranks, split into `files` contiguous groups.
int first_rank_of_file(int file, int ranks, int files);
int file_of_rank(int rank, int ranks, int files);

// META1 of physical file `file` when rank r checkpoints sizes[r] bytes as a
// single chunk (what mlckpt writes: an empty task writes no chunk).
Header plan_file(int file, int files, const std::vector<std::uint64_t>& sizes, std::int32_t blocksize,
                 const std::string& prefix);
// The same from the sizes of the file's own tasks, the first of which is
// application rank `first_rank`: what the file's owner is sent.
Header plan_file_of_tasks(int file, int files, int first_rank, std::span<const std::uint64_t> task_sizes,
                          std::int32_t blocksize, const std::string& prefix);
// META2 of a planned file once each task wrote `written[task]` bytes.
Tail tail_for(const Header& header, const std::vector<std::uint64_t>& written);

std::vector<std::byte> encode_header(const Header& header);
std::vector<std::byte> encode_tail(const Tail& tail);
std::vector<std::byte> encode_mapping(int ranks, int files);

// A physical file read back, every field checked.
struct ContainerFile {
    Header header;
    Tail tail;
    std::optional<std::vector<MapEntry>> mapping;  // file 0 of a multi-file container
    Geometry geo;
    std::uint64_t file_size = 0;

    // Index of the task of application rank `rank` in this file, or -1.
    int task_of(std::int64_t rank) const;
    // Where the task's chunks are, in order, with the bytes written in each.
    Extents extents_of(std::size_t task) const;
};

// Whether the file starts with the container's identification.
bool is_container(const File& file);
// Reads and checks META1, META2 and the mapping; throws a corrupt Error
// naming the file and the defect.
ContainerFile read_container(const File& file);
// Where application rank `rank`'s data is in a container laid out as
// mlckpt writes it (consecutive ranks, one chunk a task), whose metadata
// recorded the rank's `size` bytes at `offset`: reads only META1's fixed
// part and the rank's own entries of META1 and META2, a few dozen bytes
// whatever the tasks of the file, so that a restart's read per rank does
// not grow with them; throws a corrupt Error when an entry disagrees with
// the record. std::nullopt for any other layout: read_container decides.
std::optional<Extents> read_task_extents(const File& file, std::int64_t rank, std::uint64_t offset, std::uint64_t size);

}  // namespace mlckpt::core::container
