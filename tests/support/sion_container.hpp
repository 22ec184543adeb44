// A reader of block-aligned containers (ckpt_io = 4) for the tests, written
// from docs/formats.md and the SIONlib layout alone: it shares no code with
// the library, so a test that checks a container with it checks the library
// against the documentation, not against itself.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mlckpt::test::sion {

struct Meta1 {
    char id[4] = {};
    std::int32_t endianness = 0, version = 0, patchlevel = 0, fileformat_version = 0, blocksize = 0, ntasks = 0,
                 nfiles = 0, filenumber = 0;
    std::int64_t flag1 = 0, flag2 = 0;
    std::string filenameprefix;  // up to the first NUL
    std::vector<std::int64_t> globalrank, size;
    std::int32_t maxchunks = 0;
    std::int64_t start_of_varheader = 0;
};

struct Meta2 {
    std::vector<std::int64_t> chunks;                  // per task
    std::vector<std::vector<std::int64_t>> chunksize;  // [chunk][task]
};

struct Mapping {
    std::int32_t size = 0;
    std::vector<std::pair<std::int32_t, std::int32_t>> entries;  // (file, local rank) per global rank
};

struct ChunkLocation {
    std::uint64_t offset = 0;
    std::int64_t written = 0;
};

struct ParsedFile {
    Meta1 m1;
    Meta2 m2;
    std::optional<Mapping> mapping;
    std::uint64_t file_size = 0;
    std::uint64_t data_start = 0;
    std::uint64_t globalskip = 0;
    std::vector<std::vector<ChunkLocation>> chunks;  // per task, the chunks it wrote
};

namespace detail {

inline std::vector<unsigned char> slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Little-endian fields, one after the other, from a byte vector.
class Cursor {
  public:
    Cursor(const std::vector<unsigned char>& bytes, std::uint64_t at, const std::string& path)
        : bytes_(bytes), at_(at), path_(path) {}
    std::uint64_t unsigned_le(int width) {
        if (at_ + static_cast<std::uint64_t>(width) > bytes_.size()) {
            throw std::runtime_error(path_ + ": short file, field at " + std::to_string(at_) + " is past its end");
        }
        std::uint64_t v = 0;
        for (int i = 0; i < width; ++i)
            v |= static_cast<std::uint64_t>(bytes_[at_ + static_cast<std::uint64_t>(i)]) << (8 * i);
        at_ += static_cast<std::uint64_t>(width);
        return v;
    }
    std::int32_t i32() { return static_cast<std::int32_t>(static_cast<std::uint32_t>(unsigned_le(4))); }
    std::int64_t i64() { return static_cast<std::int64_t>(unsigned_le(8)); }
    std::uint64_t at() const { return at_; }

  private:
    const std::vector<unsigned char>& bytes_;
    std::uint64_t at_;
    const std::string& path_;
};

inline std::uint64_t align(std::uint64_t v, std::uint64_t b) {
    return b == 0 ? v : (v + b - 1) / b * b;
}

}  // namespace detail

inline ParsedFile parse_file(const std::string& path) {
    std::vector<unsigned char> bytes = detail::slurp(path);
    ParsedFile p;
    p.file_size = bytes.size();
    detail::Cursor c(bytes, 0, path);
    if (bytes.size() < 4) throw std::runtime_error(path + ": shorter than its identification");
    std::copy(bytes.begin(), bytes.begin() + 4, p.m1.id);
    c.unsigned_le(4);
    p.m1.endianness = c.i32();
    p.m1.version = c.i32();
    p.m1.patchlevel = c.i32();
    p.m1.fileformat_version = c.i32();
    p.m1.blocksize = c.i32();
    p.m1.ntasks = c.i32();
    p.m1.nfiles = c.i32();
    p.m1.filenumber = c.i32();
    p.m1.flag1 = c.i64();
    p.m1.flag2 = c.i64();
    if (bytes.size() < 52 + 1024) throw std::runtime_error(path + ": shorter than its file name prefix");
    for (std::size_t i = 52; i < 52 + 1024 && bytes[i] != 0; ++i) p.m1.filenameprefix += static_cast<char>(bytes[i]);
    detail::Cursor t(bytes, 1076, path);
    if (p.m1.ntasks < 0 || p.m1.blocksize <= 0) throw std::runtime_error(path + ": bad ntasks or blocksize");
    for (int i = 0; i < p.m1.ntasks; ++i) p.m1.globalrank.push_back(t.i64());
    for (int i = 0; i < p.m1.ntasks; ++i) p.m1.size.push_back(t.i64());
    p.m1.maxchunks = t.i32();
    p.m1.start_of_varheader = t.i64();
    if (p.m1.maxchunks < 0 || p.m1.start_of_varheader < 0) throw std::runtime_error(path + ": bad META1 tail");

    const auto block = static_cast<std::uint64_t>(p.m1.blocksize);
    p.data_start = detail::align(t.at(), block);
    std::vector<std::uint64_t> start_in_block;
    for (std::int64_t s : p.m1.size) {
        start_in_block.push_back(p.globalskip);
        p.globalskip += detail::align(static_cast<std::uint64_t>(s), block);
    }

    detail::Cursor m2(bytes, static_cast<std::uint64_t>(p.m1.start_of_varheader), path);
    for (int i = 0; i < p.m1.ntasks; ++i) p.m2.chunks.push_back(m2.i64());
    for (int k = 0; k < p.m1.maxchunks; ++k) {
        std::vector<std::int64_t> row;
        for (int i = 0; i < p.m1.ntasks; ++i) row.push_back(m2.i64());
        p.m2.chunksize.push_back(std::move(row));
    }
    if (p.m1.nfiles > 1 && p.m1.filenumber == 0) {
        Mapping map;
        map.size = m2.i32();
        if (map.size < 0) throw std::runtime_error(path + ": negative mapping size");
        for (int r = 0; r < map.size; ++r) {
            std::int32_t file = m2.i32();
            std::int32_t local = m2.i32();
            map.entries.emplace_back(file, local);
        }
        p.mapping = std::move(map);
    }
    for (int i = 0; i < p.m1.ntasks; ++i) {
        std::vector<ChunkLocation> mine;
        for (std::int64_t k = 0; k < p.m2.chunks[static_cast<std::size_t>(i)] && k < p.m1.maxchunks; ++k) {
            mine.push_back({p.data_start + static_cast<std::uint64_t>(k) * p.globalskip +
                                start_in_block[static_cast<std::size_t>(i)],
                            p.m2.chunksize[static_cast<std::size_t>(k)][static_cast<std::size_t>(i)]});
        }
        p.chunks.push_back(std::move(mine));
    }
    return p;
}

// Everything in the file that departs from the documented layout.
inline std::vector<std::string> layout_problems(const ParsedFile& p) {
    std::vector<std::string> out;
    auto expect = [&](bool ok, const std::string& what) {
        if (!ok) out.push_back(what);
    };
    const Meta1& m = p.m1;
    expect(std::string(m.id, 4) == "sion", "identification is not 'sion'");
    expect(m.endianness == 1, "endianness is not 1");
    expect(m.nfiles >= 1 && m.filenumber >= 0 && m.filenumber < m.nfiles, "nfiles or filenumber out of range");
    expect(m.flag1 == 0 && m.flag2 == 0, "flags are not 0");
    expect(m.start_of_varheader ==
               static_cast<std::int64_t>(p.data_start + static_cast<std::uint64_t>(m.maxchunks) * p.globalskip),
           "start_of_varheader is not the end of the data region");
    std::int64_t most = 0;
    for (int i = 0; i < m.ntasks; ++i) {
        const auto task = static_cast<std::size_t>(i);
        const std::int64_t chunks = p.m2.chunks[task];
        most = std::max(most, chunks);
        expect(chunks >= 0 && chunks <= m.maxchunks, "task " + std::to_string(i) + " has a bad chunk count");
        const auto space =
            detail::align(static_cast<std::uint64_t>(m.size[task]), static_cast<std::uint64_t>(m.blocksize));
        for (int k = 0; k < m.maxchunks; ++k) {
            std::int64_t bytes = p.m2.chunksize[static_cast<std::size_t>(k)][task];
            if (k < chunks) {
                expect(bytes >= 0 && static_cast<std::uint64_t>(bytes) <= space,
                       "chunk " + std::to_string(k) + " of task " + std::to_string(i) + " overflows its space");
            } else {
                expect(bytes == -1,
                       "unused chunk " + std::to_string(k) + " of task " + std::to_string(i) + " is not -1");
            }
        }
        for (const ChunkLocation& c : p.chunks[task]) {
            expect(c.offset % static_cast<std::uint64_t>(m.blocksize) == 0,
                   "a chunk of task " + std::to_string(i) + " is not block-aligned");
        }
    }
    expect(most == m.maxchunks, "maxchunks is not the largest chunk count");
    std::uint64_t end = static_cast<std::uint64_t>(m.start_of_varheader) +
                        8 * static_cast<std::uint64_t>(m.ntasks) * (1 + static_cast<std::uint64_t>(m.maxchunks));
    if (p.mapping) end += 4 + 8 * static_cast<std::uint64_t>(p.mapping->size);
    expect(p.file_size == end, "the file does not end right after META2 (and the mapping)");
    expect(p.mapping.has_value() == (m.nfiles > 1 && m.filenumber == 0), "mapping present in the wrong file");
    return out;
}

inline std::vector<std::byte> task_data(const std::string& path, const ParsedFile& p, int task) {
    std::vector<unsigned char> bytes = detail::slurp(path);
    std::vector<std::byte> out;
    for (const ChunkLocation& c : p.chunks.at(static_cast<std::size_t>(task))) {
        if (c.written < 0 || c.offset + static_cast<std::uint64_t>(c.written) > bytes.size()) {
            throw std::runtime_error(path + ": a chunk of task " + std::to_string(task) + " is past the end");
        }
        for (std::uint64_t i = 0; i < static_cast<std::uint64_t>(c.written); ++i) {
            out.push_back(static_cast<std::byte>(bytes[c.offset + i]));
        }
    }
    return out;
}

inline std::string physical_file_name(const std::string& file0_name, int f) {
    if (f == 0) return file0_name;
    char suffix[16];
    std::snprintf(suffix, sizeof suffix, ".%06d", f);
    return file0_name + suffix;
}

}  // namespace mlckpt::test::sion
