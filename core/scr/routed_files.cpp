#include "scr/routed_files.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "hash/crc32.hpp"
#include "io/buffer_pool.hpp"

namespace mlckpt::core {

namespace {

// Size and CRC-32 of the file at `path`, read in `buffer`-sized pieces.
std::pair<std::uint64_t, std::uint32_t> size_and_crc(const File& in, std::size_t buffer_bytes) {
    const std::uint64_t size = in.size();
    PooledBuffer buffer = take_buffer(buffer_bytes);
    Crc32 crc;
    read_in_pieces(in, 0, size, std::span(buffer.data(), buffer.size()),
                   [&](std::span<const std::byte> piece) { crc.update(piece); });
    return {size, crc.value()};
}

// Copies all of `in` to the end of `out`, returning its CRC-32.
std::uint32_t append_file(const File& in, std::uint64_t from, std::uint64_t length, File& out,
                          std::span<std::byte> buffer) {
    Crc32 crc;
    read_in_pieces(in, from, length, buffer, [&](std::span<const std::byte> piece) {
        crc.update(piece);
        out.write_all(piece);
    });
    return crc.value();
}

}  // namespace

RoutedName routed_name(const std::string& name, const fs::path& cwd) {
    fs::path p = fs::path(name);
    if (name.empty() || !p.has_filename() || p.filename() == "." || p.filename() == "..") {
        fail(ErrorKind::usage, "'" + name + "' does not name a file");
    }
    fs::path absolute = (cwd / p).lexically_normal();
    return {name, absolute.parent_path(), absolute.filename().string()};
}

FileRecord seal_routed_file(const fs::path& path, const RoutedName& name, int rank, int node, std::size_t buffer) {
    File file = File::open_update(path);  // read-write: fsync needs no more, and a directory is refused
    file.sync();
    auto [size, crc] = size_and_crc(file, buffer);
    FileRecord r;
    r.rank = rank;
    r.holder = rank;
    r.node = node;
    r.file = name.origname;
    r.type = "FULL";
    r.complete = true;
    r.size = size;
    r.crc32 = crc;
    r.orig = name.orig;
    r.origpath = name.origpath.string();
    r.origname = name.origname;
    return r;
}

std::optional<std::string> check_routed_file(const fs::path& path, const FileRecord& record, std::size_t buffer) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return "'" + path.string() + "' is missing";
    try {
        File in = File::open_read(path);
        auto [size, crc] = size_and_crc(in, buffer);
        if (size != record.size) {
            return "'" + path.string() + "' has " + std::to_string(size) + " bytes, its record says " +
                   std::to_string(record.size);
        }
        if (crc != record.crc32) {
            return "'" + path.string() + "' fails its CRC-32 (recorded " + crc32_hex(record.crc32) + ", computed " +
                   crc32_hex(crc) + ")";
        }
    } catch (const Error& e) {
        return std::string(e.what());
    }
    return std::nullopt;
}

MappedFiles::MappedFiles(const std::vector<fs::path>& paths) {
    files_.reserve(paths.size());
    for (const fs::path& path : paths) {
        files_.emplace_back(path);
        content_.append(files_.back().bytes());
    }
}

FileRecord stream_record(const std::vector<FileRecord>& files, int rank, int node, const std::string& name) {
    FileRecord r;
    r.rank = rank;
    r.holder = rank;
    r.node = node;
    r.file = name;
    r.type = "FULL";
    r.complete = true;
    for (const FileRecord& f : files) {
        r.crc32 = crc32_combine(r.crc32, f.crc32, f.size);
        r.size += f.size;
    }
    return r;
}

void write_stream_file(const std::vector<fs::path>& sources, const Directory& dir, const std::string& name,
                       std::size_t buffer_bytes, const FileRecord* expected) {
    const std::string tmp = name + ".tmp";
    try {
        File out = File::create(dir, tmp);
        PooledBuffer buffer = take_buffer(buffer_bytes);
        std::uint64_t size = 0;
        std::uint32_t crc = 0;
        for (const fs::path& source : sources) {
            File in = File::open_read(source);
            const std::uint64_t length = in.size();
            crc = crc32_combine(crc, append_file(in, 0, length, out, std::span(buffer.data(), buffer.size())), length);
            size += length;
        }
        if (expected != nullptr && (size != expected->size || crc != expected->crc32)) {
            fail(ErrorKind::corrupt, "the rebuilt '" + dir.path_of(name).string() + "' has " + std::to_string(size) +
                                         " bytes and CRC-32 " + crc32_hex(crc) + ", its record says " +
                                         std::to_string(expected->size) + " and " + crc32_hex(expected->crc32));
        }
        out.sync();
        out.close();
        dir.rename(tmp, name);
    } catch (...) {
        dir.remove(tmp);
        throw;
    }
}

void split_stream_file(const fs::path& stream, const std::vector<FileRecord>& files, const Directory& target,
                       std::size_t buffer_bytes) {
    File in = File::open_read(stream);
    PooledBuffer buffer = take_buffer(buffer_bytes);
    std::uint64_t offset = 0;
    for (const FileRecord& f : files) {
        const std::string tmp = f.file + ".tmp";
        try {
            File out = File::create(target, tmp);
            std::uint32_t crc = append_file(in, offset, f.size, out, std::span(buffer.data(), buffer.size()));
            if (crc != f.crc32) {
                fail(ErrorKind::corrupt, "the rebuilt '" + target.path_of(f.file).string() + "' fails its CRC-32");
            }
            out.sync();
            out.close();
            target.rename(tmp, f.file);
        } catch (...) {
            target.remove(tmp);
            throw;
        }
        offset += f.size;
    }
    target.sync();
}

}  // namespace mlckpt::core
