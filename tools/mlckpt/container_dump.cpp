#include "container_dump.hpp"

#include <iomanip>

#include "json.hpp"

namespace mlckpt::tools {

using core::container::ContainerFile;
using core::container::Header;

namespace {

std::string list(const std::vector<std::int64_t>& values, const char* separator) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) out += (i ? separator : "") + std::to_string(values[i]);
    return out;
}

}  // namespace

void print_container_text(std::ostream& out, const std::string& path, const ContainerFile& c) {
    const Header& h = c.header;
    out << "Container file: " << path << " (" << c.file_size << " bytes)\n"
        << "META1 (at 0, " << core::container::meta1_bytes(h.ntasks()) << " bytes)\n"
        << "  identification:     sion\n"
        << "  endianness:         1 (" << (h.big_endian ? "big" : "little") << "-endian)\n"
        << "  version:            " << h.version << "." << h.patchlevel << "\n"
        << "  fileformat_version: " << h.fileformat_version << "\n"
        << "  blocksize:          " << h.blocksize << "\n"
        << "  ntasks:             " << h.ntasks() << "\n"
        << "  nfiles:             " << h.nfiles << "\n"
        << "  filenumber:         " << h.filenumber << "\n"
        << "  flag1, flag2:       " << h.flag1 << ", " << h.flag2 << "\n"
        << "  filenameprefix:     " << shown(h.prefix) << "\n"
        << "  maxchunks:          " << h.maxchunks << "\n"
        << "  start_of_varheader: " << h.start_of_varheader << "\n"
        << "data: from " << c.geo.data_start << ", " << h.maxchunks << " block(s) of " << c.geo.globalskip << " bytes\n"
        << "META2 (at " << c.geo.meta2_start << ", " << core::container::meta2_bytes(h.ntasks(), h.maxchunks)
        << " bytes)\n"
        << "  chunks:            " << list(c.tail.chunks, " ") << "\n";
    for (std::size_t k = 0; k < c.tail.chunk_bytes.size(); ++k) {
        out << "  chunksize[" << k << "]:" << std::string(k < 10 ? 6 : 5, ' ') << list(c.tail.chunk_bytes[k], " ")
            << "\n";
    }
    out << "\n";
    out << std::setw(6) << "task" << std::setw(12) << "globalrank" << std::setw(14) << "requested" << std::setw(8)
        << "chunks" << std::setw(7) << "chunk" << std::setw(16) << "offset" << std::setw(14) << "space" << std::setw(14)
        << "written"
        << "\n";
    for (std::size_t t = 0; t < h.ntasks(); ++t) {
        out << std::setw(6) << t << std::setw(12) << h.global_ranks[t] << std::setw(14) << h.sizes[t] << std::setw(8)
            << c.tail.chunks[t];
        if (c.tail.chunks[t] == 0) out << std::setw(7) << "-";
        for (std::int64_t k = 0; k < c.tail.chunks[t]; ++k) {
            if (k > 0) out << "\n" << std::setw(40) << "";
            out << std::setw(7) << k << std::setw(16) << c.geo.chunk_offset(t, static_cast<std::uint64_t>(k))
                << std::setw(14) << c.geo.space[t] << std::setw(14)
                << c.tail.chunk_bytes[static_cast<std::size_t>(k)][t];
        }
        out << "\n";
    }
    if (c.mapping) {
        out << "\nmapping (" << c.mapping->size() << " ranks)\n"
            << std::setw(6) << "rank" << std::setw(6) << "file" << std::setw(12) << "local rank"
            << "\n";
        for (std::size_t r = 0; r < c.mapping->size(); ++r) {
            out << std::setw(6) << r << std::setw(6) << (*c.mapping)[r].file << std::setw(12)
                << (*c.mapping)[r].local_rank << "\n";
        }
    }
    out << "\nchecked: metadata blocks (the data is checked against the checkpoint metadata at recovery)\n";
}

void print_container_json(std::ostream& out, const std::string& path, const ContainerFile& c) {
    const Header& h = c.header;
    out << "{\"file\": " << json_string(path) << ", \"size\": " << c.file_size
        << ", \"meta1\": {\"version\": " << h.version << ", \"version_patchlevel\": " << h.patchlevel
        << ", \"fileformat_version\": " << h.fileformat_version
        << ", \"big_endian\": " << (h.big_endian ? "true" : "false") << ", \"blocksize\": " << h.blocksize
        << ", \"ntasks\": " << h.ntasks() << ", \"nfiles\": " << h.nfiles << ", \"filenumber\": " << h.filenumber
        << ", \"flag1\": " << h.flag1 << ", \"flag2\": " << h.flag2 << ", \"filenameprefix\": " << json_string(h.prefix)
        << ", \"maxchunks\": " << h.maxchunks << ", \"start_of_varheader\": " << h.start_of_varheader
        << "}, \"meta2\": {\"chunks\": [" << list(c.tail.chunks, ", ") << "], \"chunksize\": [";
    for (std::size_t k = 0; k < c.tail.chunk_bytes.size(); ++k) {
        out << (k ? ", " : "") << "[" << list(c.tail.chunk_bytes[k], ", ") << "]";
    }
    out << "]}, \"data_start\": " << c.geo.data_start << ", \"globalskip\": " << c.geo.globalskip << ", \"tasks\": [";
    for (std::size_t t = 0; t < h.ntasks(); ++t) {
        out << (t ? ", " : "") << "{\"task\": " << t << ", \"globalrank\": " << h.global_ranks[t]
            << ", \"requested\": " << h.sizes[t] << ", \"space\": " << c.geo.space[t] << ", \"chunks\": [";
        for (std::int64_t k = 0; k < c.tail.chunks[t]; ++k) {
            out << (k ? ", " : "") << "{\"offset\": " << c.geo.chunk_offset(t, static_cast<std::uint64_t>(k))
                << ", \"written\": " << c.tail.chunk_bytes[static_cast<std::size_t>(k)][t] << "}";
        }
        out << "]}";
    }
    out << "]";
    if (c.mapping) {
        out << ", \"mapping\": [";
        for (std::size_t r = 0; r < c.mapping->size(); ++r) {
            out << (r ? ", " : "") << "{\"file\": " << (*c.mapping)[r].file
                << ", \"local_rank\": " << (*c.mapping)[r].local_rank << "}";
        }
        out << "]";
    }
    out << "}\n";
}

}  // namespace mlckpt::tools
