#include "format/posix/posix_repack.hpp"

#include <vector>

#include "common/error.hpp"
#include "format/data_extents.hpp"
#include "format/packed_var.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::core {

namespace {

// Hands the bytes of `var` to `sink` a piece at a time, checking its CRC-32.
void produce_var(const File& in, const Extents& extents, const VarRecord& var, std::size_t buffer_bytes,
                 const PosixWriter::PieceSink& sink) {
    if (var.packed()) {
        stream_packed_var(in, extents, var, sink);
        return;
    }
    Crc32 crc;
    for_each_piece(in, sub_extents(extents, var.offset, var.size), buffer_bytes, [&](std::span<const std::byte> piece) {
        crc.update(piece);
        sink(piece);
    });
    if (crc.value() != var.crc32) {
        fail(Damage::checksum, "variable " + std::to_string(var.id) + " in '" + in.path().string() +
                                   "' fails its checksum: stored " + crc32_hex(var.crc32) + ", read " +
                                   crc32_hex(crc.value()));
    }
}

}  // namespace

FileRecord repack_posix_file(const fs::path& source, const FileRecord& record, const Directory& dir, Packing packing,
                             std::size_t buffer_bytes) {
    const std::string target = source.filename().string();
    const std::string tmp = target + ".tmp";
    try {
        File in = File::open_read(source);
        check_recorded_size(source, in.size(), record);
        const Extents extents{{0, record.size}};
        for (const VarRecord& v : record.vars) {
            if (v.elem != 0) packing.element_sizes[v.id] = v.elem;
        }
        PosixWriter writer(File::create(dir, tmp), WritePath::page_cache, std::move(packing));
        for (const VarRecord& v : record.vars) {
            writer.add_pieces(v.id, v.size, v.name, [&](const PosixWriter::PieceSink& sink) {
                produce_var(in, extents, v, buffer_bytes, sink);
            });
        }
        FileRecord copy = writer.finish();
        dir.rename(tmp, target);
        dir.sync();
        copy.file = target;
        copy.rank = record.rank;
        copy.holder = record.holder;
        copy.node = record.node;
        copy.type = record.type;
        for (std::size_t i = 0; i < copy.vars.size(); ++i) copy.vars[i].dataset = record.vars[i].dataset;
        return copy;
    } catch (...) {
        dir.remove(tmp);
        throw;
    }
}

}  // namespace mlckpt::core
