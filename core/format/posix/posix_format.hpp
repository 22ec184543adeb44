// ckpt_io = 1: a rank's file is its variables' bytes, one after the other;
// the metadata (VarRecord) says where each one starts. CRC-32 of every
// variable and of the whole file are computed on the way out, from memory.
// A level that compresses its files packs each variable (but the smallest)
// into a frame of compressed blocks (compress/packed_frame.hpp).
#pragma once

#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>

#include "compress/block_codec.hpp"
#include "format/checkpoint_meta.hpp"
#include "format/file_writer.hpp"
#include "hash/crc32.hpp"
#include "io/file.hpp"

namespace mlckpt::core {

// The record of a variable of `size` bytes with CRC-32 `crc`, starting at
// `offset` of its rank's data.
VarRecord describe_var(int id, std::uint64_t offset, std::uint64_t size, std::uint32_t crc, const std::string& name);

// How a POSIX file stores its variables.
struct Packing {
    Codec codec = Codec::none;  // none: every variable as it is
    std::size_t block_bytes = std::size_t{1} << 20;
    // Element sizes by variable id: each packed variable's shuffle unit,
    // recorded (ELEM) for every variable when given, so that a later copy
    // of the file may pack it.
    std::unordered_map<int, std::size_t> element_sizes;
    // Error bounds by variable id (FTI_SetErrorBound): those float and
    // double variables are packed lossily (Codec::zfp) where `codec`
    // compresses.
    std::unordered_map<int, double> error_bounds;
};

// Variables smaller than this are stored as they are: a frame's table and
// trailer would cost more than compression saves.
inline constexpr std::size_t kMinPackedBytes = 1024;

class PosixWriter final : public FileWriter {
  public:
    // path_kind: how the variables' bytes reach the disk (see WritePath).
    explicit PosixWriter(File file, WritePath path_kind = WritePath::page_cache, Packing packing = {});
    explicit PosixWriter(const fs::path& path, WritePath path_kind = WritePath::page_cache)
        : PosixWriter(File::create(path), path_kind) {}

    void add(int id, std::span<const std::byte> data, const std::string& name) override;
    // A variable of `size` bytes that `produce` hands, in pieces of any
    // size and in order, to the sink it is given (a copy of a file, read a
    // piece at a time). Throws if the pieces do not add up to `size`.
    using PieceSink = std::function<void(std::span<const std::byte>)>;
    using PieceProducer = std::function<void(const PieceSink&)>;
    void add_pieces(int id, std::uint64_t size, const std::string& name, const PieceProducer& produce);
    bool has(int id) const override { return record_.find_var(id) != nullptr; }
    FileRecord finish() override;

  private:
    std::uint32_t element_size_of(int id) const;  // 0 when not given
    bool packs(std::uint64_t size) const;         // whether a variable of `size` bytes is packed

    File file_;
    WritePath path_kind_;
    Packing packing_;
    std::uint32_t file_crc_ = 0;
    FileRecord record_;
};

// Reads variable `var` of an open checkpoint file into `out` (sizes must
// match) and checks its CRC. Throws a corrupt Error naming file and variable.
void read_posix_var(const File& file, const VarRecord& var, std::span<std::byte> out);

// Throws a corrupt Error naming the file if `size` is not the recorded one.
void check_recorded_size(const fs::path& path, std::uint64_t size, const FileRecord& record);

// CRC-32 of a whole file, read in pieces of `buffer_bytes`.
std::uint32_t crc32_of_file(const fs::path& path, std::size_t buffer_bytes);

// Checks size and CRC of a whole file against its record; reads in pieces of
// `buffer_bytes`. Throws a corrupt Error naming the file and the defect.
void verify_posix_file(const fs::path& path, const FileRecord& record, std::size_t buffer_bytes);

}  // namespace mlckpt::core
