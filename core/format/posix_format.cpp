#include "format/posix_format.hpp"

#include <vector>

#include "common/error.hpp"
#include "compress/packed_frame.hpp"
#include "format/data_extents.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {

PosixWriter::PosixWriter(File file, WritePath path_kind, Packing packing)
    : file_(std::move(file)), path_kind_(path_kind), packing_(std::move(packing)) {
    record_.file = file_.path().filename().string();
}

VarRecord describe_var(int id, std::uint64_t offset, std::uint64_t size, std::uint32_t crc, const std::string& name) {
    VarRecord var;
    var.id = id;
    var.offset = offset;
    var.size = size;
    var.crc32 = crc;
    var.name = name;
    return var;
}

void PosixWriter::add(int id, std::span<const std::byte> data, const std::string& name) {
    const auto elem = packing_.element_sizes.find(id);
    const std::size_t element_size = elem == packing_.element_sizes.end() ? 0 : elem->second;
    if (packing_.codec != Codec::none && data.size() >= kMinPackedBytes) {
        VarRecord var = describe_var(id, record_.size, data.size(), 0, name);
        var.elem = static_cast<std::uint32_t>(element_size);
        const std::uint32_t frame_crc = add_packed(var, data);
        file_crc_ = crc32_combine(file_crc_, frame_crc, var.stored);
        record_.size += var.stored;
        record_.vars.push_back(std::move(var));
        return;
    }
    Crc32 crc;
    write_overlapped(
        file_, record_.size, data, [&](std::span<const std::byte> piece) { crc.update(piece); }, path_kind_);
    VarRecord var = describe_var(id, record_.size, data.size(), crc.value(), name);
    var.elem = static_cast<std::uint32_t>(element_size);
    file_crc_ = crc32_combine(file_crc_, var.crc32, data.size());  // no second pass over the data
    record_.size += data.size();
    record_.vars.push_back(std::move(var));
}

std::uint32_t PosixWriter::add_packed(VarRecord& var, std::span<const std::byte> data) {
    // The frame's pieces are gathered and written a few MiB at a time.
    constexpr std::size_t kGather = std::size_t{8} << 20;
    std::vector<std::byte> gathered;
    std::uint64_t at = var.offset;
    Crc32 crc;
    auto write_gathered = [&] {
        if (gathered.empty()) return;
        file_.write_all_at(gathered, at);
        file_.start_writeback(at, gathered.size());
        at += gathered.size();
        gathered.clear();
    };
    PackedEncoder encoder(packing_.codec, shuffle_unit(var.elem), packing_.block_bytes, codec_threads(),
                          [&](std::span<const std::byte> piece) {
                              crc.update(piece);
                              if (gathered.size() + piece.size() > kGather) write_gathered();
                              if (piece.size() >= kGather) {
                                  file_.write_all_at(piece, at);
                                  at += piece.size();
                                  return;
                              }
                              gathered.insert(gathered.end(), piece.begin(), piece.end());
                          });
    encoder.feed(data);
    encoder.finish();
    write_gathered();
    var.crc32 = encoder.raw_crc();
    var.stored = encoder.frame_bytes();
    return crc.value();
}

FileRecord PosixWriter::finish() {
    file_.sync();
    file_.close();
    record_.crc32 = file_crc_;
    record_.complete = true;
    return record_;
}

void read_posix_var(const File& file, const VarRecord& var, std::span<std::byte> out) {
    read_checked_var(file, {{0, var.offset + var.stored_bytes()}}, var, out);
}

void check_recorded_size(const fs::path& path, std::uint64_t size, const FileRecord& record) {
    if (size != record.size) {
        fail(ErrorKind::corrupt, "checkpoint file '" + path.string() + "' has " + std::to_string(size) +
                                     " bytes, its metadata says " + std::to_string(record.size) +
                                     (size < record.size ? " (truncated)" : ""));
    }
}

std::uint32_t crc32_of_file(const fs::path& path, std::size_t buffer_bytes) {
    File file = File::open_read(path);
    return crc32_of_extents(file, {{0, file.size()}}, buffer_bytes);
}

void verify_posix_file(const fs::path& path, const FileRecord& record, std::size_t buffer_bytes) {
    check_recorded_size(path, File::open_read(path).size(), record);
    std::uint32_t crc = crc32_of_file(path, buffer_bytes);
    if (crc != record.crc32) {
        fail(ErrorKind::corrupt, "checkpoint file '" + path.string() + "' fails its checksum (stored " +
                                     crc32_hex(record.crc32) + ", computed " + crc32_hex(crc) + ")");
    }
}

}  // namespace mlckpt::core
