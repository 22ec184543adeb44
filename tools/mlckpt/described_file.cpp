#include "described_file.hpp"

#include <array>
#include <filesystem>
#include <optional>
#include <vector>

#include "common/error.hpp"
#include "compress/packed_frame.hpp"
#include "config/config.hpp"
#include "format/checkpoint_meta.hpp"
#include "format/data_extents.hpp"
#include "format/packed_var.hpp"
#include "format/posix/posix_format.hpp"
#include "hash/crc32.hpp"
#include "io/file.hpp"
#include "json.hpp"
#include "read_limits.hpp"

namespace mlckpt::tools {

namespace {

using namespace mlckpt::core;

// What a packed variable's frame says of itself.
struct FrameFacts {
    PackedTrailer trailer;
    std::size_t as_is = 0;  // blocks stored as they are
};

// The record of the file named `name`: its own, else (a partner copy
// whose record lists no variables) with the variables of the rank's data.
std::optional<FileRecord> record_of(const CheckpointMeta& meta, const std::string& name) {
    for (const std::vector<FileRecord>* list : {&meta.files, &meta.redundancy}) {
        for (const FileRecord& f : *list) {
            if (f.file != name) continue;
            FileRecord r = f;
            if (r.type == "PARTNER" && r.vars.empty()) {
                for (const FileRecord& full : meta.files) {
                    if (full.rank == r.rank) r.vars = full.vars;
                }
            }
            return r;
        }
    }
    return std::nullopt;
}

// Checks variable `v` of the file (the whole file is its stream) and, when
// packed, reads what its frame says. Throws a corrupt Error on damage.
std::optional<FrameFacts> check_var(const File& file, const VarRecord& v) {
    const Extents whole{{0, file.size()}};
    const std::string what = "variable " + std::to_string(v.id) + " of '" + file.path().string() + "'";
    if (!v.packed()) {
        const std::uint32_t crc = crc32_of_extents(file, sub_extents(whole, v.offset, v.size), kBufferBytes);
        if (crc != v.crc32) {
            fail(ErrorKind::corrupt,
                 what + " fails its checksum (metadata " + crc32_hex(v.crc32) + ", computed " + crc32_hex(crc) + ")");
        }
        return std::nullopt;
    }
    if (v.stored < kPackedTrailerBytes) {
        fail(ErrorKind::corrupt, what + ": a frame of " + std::to_string(v.stored) + " bytes has no trailer");
    }
    std::array<std::byte, kPackedTrailerBytes> tail{};
    sub_extents(whole, v.offset, v.stored);  // the frame lies inside the file
    file.read_exact_at(tail, v.offset + v.stored - kPackedTrailerBytes);
    FrameFacts facts{parse_packed_trailer(tail, v.stored, what), 0};
    std::vector<std::byte> table(facts.trailer.table_bytes());
    file.read_exact_at(table, v.offset + v.stored - kPackedTrailerBytes - table.size());
    for (const PackedBlock& b : parse_packed_table(facts.trailer, table, v.stored, what)) facts.as_is += b.as_is();
    // Every block's CRC, then the decompressed bytes' against the metadata.
    stream_packed_var(file, whole, v, [](std::span<const std::byte>) {});
    return facts;
}

std::string ratio(const VarRecord& v) {
    if (v.stored_bytes() == 0) return "-";
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", static_cast<double>(v.size) / static_cast<double>(v.stored_bytes()));
    return text;
}

void print_text(std::ostream& out, const std::string& path, const CheckpointMeta& meta, const FileRecord& r,
                const std::vector<std::optional<FrameFacts>>& frames, bool per_var) {
    out << io_mode_name(meta.io) << " checkpoint file: " << path << "\n"
        << "  checkpoint: " << meta.ckpt_id << " (sequence " << meta.seq << ", L" << meta.level << ", execution "
        << meta.exec_id << ")\n"
        << "  holds:      " << r.type << " data of rank " << r.rank << ", on node " << r.node << "\n"
        << "  size:       " << r.size << " bytes, CRC-32 " << crc32_hex(r.crc32) << "\n";
    if (!r.vars.empty()) out << "\n  id  offset  size  stored  ratio  codec  blocks  as-is  CRC-32  name\n";
    for (std::size_t i = 0; i < r.vars.size(); ++i) {
        const VarRecord& v = r.vars[i];
        const std::optional<FrameFacts>& f = frames[i];
        out << "  " << v.id << "  " << v.offset << "  " << v.size << "  " << v.stored_bytes() << "  " << ratio(v)
            << "  " << (f ? std::string(codec_name(f->trailer.codec)) : "none") << "  "
            << (f ? std::to_string(f->trailer.blocks) + "x" + std::to_string(f->trailer.block_bytes) : "-") << "  "
            << (f ? std::to_string(f->as_is) : "-") << "  " << crc32_hex(v.crc32) << "  "
            << (v.dataset.empty() ? v.name : v.dataset) << "\n";
    }
    out << "\nverified: size and CRC-32 of the file"
        << (per_var ? ", every variable's CRC-32 (packed ones: every block's, then the decompressed bytes)" : "")
        << "\n";
}

void print_json(std::ostream& out, const std::string& path, const CheckpointMeta& meta, const FileRecord& r,
                const std::vector<std::optional<FrameFacts>>& frames, bool per_var) {
    out << "{\"file\": " << json_string(path) << ", \"format\": " << json_string(io_mode_name(meta.io))
        << ", \"ckptId\": " << meta.ckpt_id << ", \"seq\": " << meta.seq << ", \"level\": " << meta.level
        << ", \"execId\": " << json_string(meta.exec_id) << ", \"type\": " << json_string(r.type)
        << ", \"rank\": " << r.rank << ", \"node\": " << r.node << ", \"size\": " << r.size
        << ", \"crc32\": " << json_string(crc32_hex(r.crc32)) << ", \"variables\": [";
    for (std::size_t i = 0; i < r.vars.size(); ++i) {
        const VarRecord& v = r.vars[i];
        out << (i ? ", " : "") << "{\"id\": " << v.id << ", \"name\": " << json_string(v.name)
            << ", \"dataset\": " << json_string(v.dataset) << ", \"offset\": " << v.offset << ", \"size\": " << v.size
            << ", \"stored\": " << v.stored_bytes() << ", \"elem\": " << v.elem
            << ", \"crc32\": " << json_string(crc32_hex(v.crc32));
        if (const std::optional<FrameFacts>& f = frames[i]) {
            out << ", \"codec\": " << json_string(std::string(codec_name(f->trailer.codec)))
                << ", \"blockSize\": " << f->trailer.block_bytes << ", \"blocks\": " << f->trailer.blocks
                << ", \"blocksAsIs\": " << f->as_is;
        }
        out << "}";
    }
    out << "], \"verified\": {\"file\": true, \"variables\": " << (per_var ? "true" : "false") << "}}\n";
}

}  // namespace

int inspect_described_file(const std::string& path, const std::string& meta_path, bool json, std::ostream& out,
                           std::ostream& err) {
    try {
        if (fs::file_size(meta_path) > kMaxMetadataBytes) {
            err << "mlckpt inspect: '" << meta_path << "' is too large to be checkpoint metadata\n";
            return 1;
        }
        const CheckpointMeta meta = parse_meta(read_text_file(meta_path), meta_path);
        const std::string name = fs::path(path).filename().string();
        const std::optional<FileRecord> record = record_of(meta, name);
        if (!record) {
            err << "mlckpt inspect: '" << meta_path << "' (checkpoint " << meta.ckpt_id << ", L" << meta.level
                << ") has no file named '" << name << "'; allowed: the metadata of the checkpoint FILE belongs to\n";
            return 1;
        }
        verify_posix_file(path, *record, kBufferBytes);  // size and CRC-32 of every byte
        // The variables lie in the file as in a POSIX file's stream; an
        // HDF5 file's datasets are checked by the file's CRC-32 above.
        const bool per_var = meta.io == IoMode::posix && record->type != "PARITY" && record->type != "XOR";
        std::vector<std::optional<FrameFacts>> frames(record->vars.size());
        if (per_var) {
            const File file = File::open_read(path);
            for (std::size_t i = 0; i < frames.size(); ++i) frames[i] = check_var(file, record->vars[i]);
        }
        (json ? print_json : print_text)(out, path, meta, *record, frames, per_var);
        return 0;
    } catch (const Error& e) {
        err << "mlckpt inspect: " << shown(e.what()) << "\n";
        return 1;
    } catch (const fs::filesystem_error& e) {
        err << "mlckpt inspect: " << shown(e.what()) << "\n";
        return 1;
    }
}

}  // namespace mlckpt::tools
