#include "format/posix_format.hpp"

#include <cinttypes>
#include <cstdio>
#include <vector>

#include "common/error.hpp"

namespace mlckpt::core {

namespace {

std::string hex(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08" PRIx32, v);
    return buf;
}

}  // namespace

PosixWriter::PosixWriter(const fs::path& path) : file_(File::create(path)) {
    record_.file = path.filename().string();
}

void PosixWriter::add(int id, std::span<const std::byte> data, const std::string& name) {
    VarRecord var;
    var.id = id;
    var.offset = record_.size;
    var.size = data.size();
    var.crc32 = crc32_of(data);
    var.name = name;
    file_.write_all(data);
    file_crc_.update(data);
    record_.size += data.size();
    record_.vars.push_back(std::move(var));
}

FileRecord PosixWriter::finish() {
    file_.sync();
    file_.close();
    record_.crc32 = file_crc_.value();
    record_.complete = true;
    return record_;
}

void read_posix_var(const File& file, const VarRecord& var, std::span<std::byte> out) {
    if (out.size() != var.size) {
        fail(ErrorKind::usage, "variable " + std::to_string(var.id) + ": buffer of " + std::to_string(out.size()) +
                                   " bytes for " + std::to_string(var.size) + " stored bytes");
    }
    file.read_exact_at(out, var.offset);
    std::uint32_t crc = crc32_of(out);
    if (crc != var.crc32) {
        fail(ErrorKind::corrupt, "variable " + std::to_string(var.id) + " in '" + file.path().string() + "' (bytes " +
                                     std::to_string(var.offset) + ".." + std::to_string(var.offset + var.size) +
                                     ") fails its checksum: stored " + hex(var.crc32) + ", read " + hex(crc));
    }
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
    const std::uint64_t size = file.size();
    std::vector<std::byte> buffer(std::max<std::size_t>(buffer_bytes, 4096));
    Crc32 crc;
    for (std::uint64_t pos = 0; pos < size;) {
        std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - pos));
        std::span<std::byte> piece(buffer.data(), n);
        file.read_exact_at(piece, pos);
        crc.update(piece);
        pos += n;
    }
    return crc.value();
}

void verify_posix_file(const fs::path& path, const FileRecord& record, std::size_t buffer_bytes) {
    check_recorded_size(path, File::open_read(path).size(), record);
    std::uint32_t crc = crc32_of_file(path, buffer_bytes);
    if (crc != record.crc32) {
        fail(ErrorKind::corrupt, "checkpoint file '" + path.string() + "' fails its checksum (stored " +
                                     hex(record.crc32) + ", computed " + hex(crc) + ")");
    }
}

}  // namespace mlckpt::core
