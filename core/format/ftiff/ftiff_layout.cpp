#include "format/ftiff/ftiff_layout.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "common/error.hpp"

namespace mlckpt::core::ftiff {

Layout::Layout(std::vector<Block> blocks) : blocks_(std::move(blocks)) {}

std::int64_t Layout::file_size() const {
    std::int64_t size = kFileBlockBytes;
    for (const Block& b : blocks_) size += b.dbsize;
    return size;
}

std::int64_t Layout::data_size() const {
    std::int64_t size = 0;
    for (const Block& b : blocks_) {
        for (const Chunk& c : b.chunks) size += c.chunk_size;
    }
    return size;
}

std::vector<const Chunk*> Layout::chunks_of(int id) const {
    std::vector<const Chunk*> out;
    for (const Block& b : blocks_) {
        for (const Chunk& c : b.chunks) {
            if (c.id == id) out.push_back(&c);
        }
    }
    return out;
}

void Layout::update(const std::vector<VariableExtent>& vars) {
    // Containers of variables no longer protected stay, empty.
    for (Block& b : blocks_) {
        for (Chunk& c : b.chunks) {
            bool protected_now =
                std::any_of(vars.begin(), vars.end(), [&](const VariableExtent& v) { return v.id == c.id; });
            if (!protected_now) {
                c.chunk_size = 0;
                c.has_content = false;
            }
        }
    }
    Block fresh;
    fresh.offset = file_size();
    for (std::size_t idx = 0; idx < vars.size(); ++idx) {
        const VariableExtent& v = vars[idx];
        if (v.bytes < 0) fail(ErrorKind::usage, "variable " + std::to_string(v.id) + " has a negative size");
        // Refill the existing containers in order; what is left needs a new one.
        std::int64_t left = v.bytes;
        std::int64_t capacity = 0;
        int containers = 0;
        for (Block& b : blocks_) {
            for (Chunk& c : b.chunks) {
                if (c.id != v.id) continue;
                c.idx = static_cast<int>(idx);
                c.chunk_size = std::min(left, c.container_size);
                c.has_content = c.chunk_size > 0;
                left -= c.chunk_size;
                capacity += c.container_size;
                ++containers;
            }
        }
        if (left == 0 && containers > 0) continue;
        Chunk c;
        c.id = v.id;
        c.idx = static_cast<int>(idx);
        c.container_id = containers;
        c.dptr = capacity;
        c.chunk_size = left;
        c.container_size = left;
        c.has_content = left > 0;
        fresh.chunks.push_back(c);
    }
    if (fresh.chunks.empty()) return;
    std::int64_t fptr = fresh.offset + fresh.metadata_bytes();
    for (Chunk& c : fresh.chunks) {
        c.fptr = fptr;
        fptr += c.container_size;
    }
    fresh.dbsize = fptr - fresh.offset;
    blocks_.push_back(std::move(fresh));
}

std::string hex(const Md5& hash) {
    std::string out;
    char buf[3];
    for (std::uint8_t b : hash) {
        std::snprintf(buf, sizeof buf, "%02x", b);
        out += buf;
    }
    return out;
}

std::string dump(const Layout& layout) {
    std::ostringstream out;
    const char* field = "                 ";
    out << "------------------- DATASTRUCTURE BEGIN -------------------\n\n";
    for (std::size_t i = 0; i < layout.blocks().size(); ++i) {
        const Block& b = layout.blocks()[i];
        out << "    DataBase-id: " << i << "\n"
            << field << "numvars: " << b.numvars() << "\n"
            << field << "dbsize: " << b.dbsize << "\n"
            << field << "*dbvars: -\n"
            << field << "*previous: -\n"
            << field << "*next: -\n"
            << field << "[size metadata: " << b.metadata_bytes() << "]\n\n";
        for (std::size_t j = 0; j < b.chunks.size(); ++j) {
            const Chunk& c = b.chunks[j];
            out << "         Var-id: " << j << "\n"
                << field << "id: " << c.id << "\n"
                << field << "idx: " << c.idx << "\n"
                << field << "containerid: " << c.container_id << "\n"
                << field << "hascontent: " << (c.has_content ? "true" : "false") << "\n"
                << field << "dptr: " << c.dptr << "\n"
                << field << "fptr: " << c.fptr << "\n"
                << field << "chunksize: " << c.chunk_size << "\n"
                << field << "containersize: " << c.container_size << "\n"
                << field << "hash: " << hex(c.hash) << "\n\n";
        }
    }
    out << "\n------------------- DATASTRUCTURE END ---------------------\n";
    return out.str();
}

}  // namespace mlckpt::core::ftiff
