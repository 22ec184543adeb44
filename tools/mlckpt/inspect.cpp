#include "inspect.hpp"

#include "cli.hpp"
#include "container_dump.hpp"
#include "described_file.hpp"
#include "json.hpp"

#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>

#include "common/error.hpp"
#include "format/dcp/dcp_layers.hpp"
#include "format/ftiff/ftiff_file.hpp"
#include "format/shared/container_layout.hpp"
#include "hash/crc32.hpp"

namespace mlckpt::tools {

namespace {

using namespace mlckpt::core;
using namespace mlckpt::core::ftiff;

std::string chunk_hashes(const FileBlock& fb, std::size_t chunks) {
    if (fb.hash_block == 0) return std::to_string(chunks) + " chunk MD5s";
    return std::to_string(chunks) + " chunk block hashes (" + std::to_string(fb.hash_block) + "-byte blocks)";
}

void print_text(std::ostream& out, const std::string& path, const FileStructure& s, std::size_t chunks) {
    out << "FTI-FF file: " << path << "\n"
        << "  version:   "
        << (s.fb.hash_block == 0
                ? "1 (chunk hash: MD5 of the chunk)"
                : "2 (chunk hash: MD5 of the CRC-32s of " + std::to_string(s.fb.hash_block) + "-byte blocks)")
        << "\n"
        << "  checksum:  " << shown(s.fb.checksum) << "\n"
        << "  myHash:    " << hex(s.fb.my_hash) << "\n"
        << "  ckptSize:  " << s.fb.ckpt_size << "\n"
        << "  fs:        " << s.fb.fs << "\n"
        << "  maxFs:     " << s.fb.max_fs << "\n"
        << "  ptFs:      " << s.fb.pt_fs << "\n"
        << "  timestamp: " << s.fb.timestamp << "\n\n"
        << dump(s.layout) << "\n"
        << "verified: file block hash, block records checksum, " << chunk_hashes(s.fb, chunks) << "\n";
}

void print_json(std::ostream& out, const std::string& path, const FileStructure& s, std::size_t chunks) {
    out << "{\"file\": " << json_string(path) << ", \"fb\": {\"checksum\": " << json_string(s.fb.checksum)
        << ", \"myHash\": " << json_string(hex(s.fb.my_hash)) << ", \"ckptSize\": " << s.fb.ckpt_size
        << ", \"fs\": " << s.fb.fs << ", \"maxFs\": " << s.fb.max_fs << ", \"ptFs\": " << s.fb.pt_fs
        << ", \"timestamp\": " << s.fb.timestamp << ", \"version\": " << (s.fb.hash_block == 0 ? 1 : 2)
        << ", \"hashBlock\": " << s.fb.hash_block << "}, \"blocks\": [";
    for (std::size_t i = 0; i < s.layout.blocks().size(); ++i) {
        const Block& b = s.layout.blocks()[i];
        out << (i ? ", " : "") << "{\"id\": " << i << ", \"offset\": " << b.offset << ", \"numvars\": " << b.numvars()
            << ", \"dbsize\": " << b.dbsize << ", \"metadata\": " << b.metadata_bytes() << ", \"chunks\": [";
        for (std::size_t j = 0; j < b.chunks.size(); ++j) {
            const Chunk& c = b.chunks[j];
            out << (j ? ", " : "") << "{\"id\": " << c.id << ", \"idx\": " << c.idx
                << ", \"containerid\": " << c.container_id << ", \"hascontent\": " << (c.has_content ? "true" : "false")
                << ", \"dptr\": " << c.dptr << ", \"fptr\": " << c.fptr << ", \"chunksize\": " << c.chunk_size
                << ", \"containersize\": " << c.container_size << ", \"hash\": " << json_string(hex(c.hash)) << "}";
        }
        out << "]}";
    }
    out << "], \"verified\": {\"chunks\": " << chunks << "}}\n";
}

// A layered L4 differential file (ckpt_io = 1): its layers, oldest first.
void print_dcp_layers(std::ostream& out, const std::string& path, const DcpLayerScan& scan, bool json) {
    if (json) {
        out << "{\"file\": " << json_string(path) << ", \"format\": \"dcp-layers\", \"layers\": [";
        for (std::size_t i = 0; i < scan.layers.size(); ++i) {
            const auto& [l, info] = scan.layers[i];
            out << (i ? ", " : "") << "{\"seq\": " << l.seq << ", \"ckpt_id\": " << l.ckpt_id
                << ", \"offset\": " << l.offset << ", \"size\": " << l.size << ", \"crc32\": \"" << crc32_hex(l.crc32)
                << "\", \"extents\": " << info.extents << ", \"vars\": [";
            for (std::size_t v = 0; v < info.vars.size(); ++v) {
                out << (v ? ", " : "") << "{\"id\": " << info.vars[v].id << ", \"size\": " << info.vars[v].size
                    << ", \"crc32\": \"" << crc32_hex(info.vars[v].crc32) << "\"}";
            }
            out << "]}";
        }
        out << "], \"problem\": " << json_string(scan.problem) << "}\n";
        return;
    }
    out << "L4 differential file, layered (POSIX dCP): " << path << "\n"
        << "  layers: " << scan.layers.size() << ", oldest first; each checked whole (CRC-32)\n";
    for (std::size_t i = 0; i < scan.layers.size(); ++i) {
        const auto& [l, info] = scan.layers[i];
        out << "  layer " << i << ": checkpoint " << l.ckpt_id << " (seq " << l.seq << "), bytes " << l.offset << ".."
            << l.offset + l.size << ", CRC-32 " << crc32_hex(l.crc32) << ", " << info.extents << " extents\n";
        for (const VarRecord& v : info.vars) {
            out << "    variable " << v.id << ": " << v.size << " bytes, CRC-32 " << crc32_hex(v.crc32) << "\n";
        }
    }
    if (!scan.problem.empty()) {
        out << "  before layer 0: " << scan.problem
            << " (damaged, or layers before it; --meta <its metadata> checks the layers it records)\n";
    }
}

// What a file without the FTI-FF magic or a container id may be. A POSIX
// checkpoint file holds only the variables' bytes: what describes it is
// the checkpoint metadata, whose path follows from the file's own path.
std::string describe_unknown(const std::string& path) {
    std::string text = "'" + path +
                       "' is neither an FTI-FF file (no 'MLFF' magic in a 96-byte file block) nor a container (no "
                       "'sion' id)";
    const std::filesystem::path p = std::filesystem::absolute(path).lexically_normal();
    std::smatch name;
    const std::string file = p.filename().string();
    if (!std::regex_match(file, name, std::regex(R"(Ckpt(\d+)-(Rank|Pcof|RSed)(\d+)\.(fti|h5))"))) return text;
    const bool hdf5 = name[4] == "h5";
    const std::string what =
        name[2] == "Rank"   ? "the data file of rank " + name[3].str()
        : name[2] == "Pcof" ? "the partner copy that rank " + name[3].str() + " keeps of its left neighbour's data file"
                            : "the Reed-Solomon parity kept by rank " + name[3].str();
    text += ".\n  Its name makes it " + what + " in checkpoint " + name[1].str() + ". " +
            (name[2] == "RSed" ? "A parity file is raw parity bytes, with no description of its own"
             : hdf5            ? "It looks like an HDF5 (ckpt_io = 5) checkpoint file: h5dump and h5py read it"
                               : "It looks like a POSIX (ckpt_io = 1) checkpoint file: the variables' bytes one after "
                                 "the other, with no description of its own") +
            ".\n  Its size and CRC-32" +
            (name[2] == "RSed" ? std::string() : " and its variables' offsets, sizes and CRC-32s") +
            " are in the checkpoint metadata, ";
    // <dir>/<exec_id>/l<L>/<file>, as FTI keeps it: the metadata is
    // <meta_dir>/<exec_id>/ckpt<seq>.l<L>.meta with its id; in a directory
    // of its own, <dir>/<exec_id>/l<L>/ckpt<seq>/<file>, the seq is known.
    const std::filesystem::path dir = p.parent_path();
    const bool own = std::regex_match(dir.filename().string(), std::regex(R"(ckpt(\d+))"));
    const std::filesystem::path level_dir = own ? dir.parent_path() : dir;
    const std::string level = level_dir.filename().string();
    const std::string exec_id = level_dir.parent_path().filename().string();
    if (!std::regex_match(level, std::regex(R"(l[1-4])"))) {
        text += "<meta_dir>/<exec_id>/ckpt<seq>.l<level>.meta";
    } else if (own) {
        text += "<meta_dir>/" + exec_id + "/" + dir.filename().string() + "." + level + ".meta";
    } else {
        text += "<meta_dir>/" + exec_id + "/ckpt<seq>." + level + ".meta, the one whose CKPT is " + name[1].str() +
                " (mlckpt verify lists them)";
    }
    return text + " (a text file; see the on-disk layout in docs/configuration.md).";
}

}  // namespace

int inspect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    const char* usage =
        "usage: mlckpt inspect [--json] [--] FILE   (an FTI-FF file or a container)\n"
        "       mlckpt inspect [--json] --meta META [--] FILE   (any other checkpoint file, described by its "
        "checkpoint's metadata META)\n";
    if (asks_for_help(args)) {
        out << usage;
        return 0;
    }
    bool json = false;
    bool options_done = false;  // after "--", a FILE may start with '-'
    std::optional<std::string> path, meta;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (!options_done && a == "--") {
            options_done = true;
        } else if (!options_done && a == "--json" && !json) {
            json = true;
        } else if (!options_done && a == "--meta" && i + 1 < args.size() && !meta) {
            meta = args[++i];
        } else if (!path && !a.empty() && (options_done || a[0] != '-')) {
            path = a;
        } else {
            err << "mlckpt inspect: unexpected argument '" << a << "'\n" << usage;
            return 2;
        }
    }
    if (!path) {
        err << usage;
        return 2;
    }
    if (meta) return inspect_described_file(*path, *meta, json, out, err);
    try {
        File file = File::open_read(*path);
        if (container::is_container(file)) {
            container::ContainerFile c = container::read_container(file);
            if (json) {
                print_container_json(out, *path, c);
            } else {
                print_container_text(out, *path, c);
            }
            return 0;
        }
        if (ends_with_dcp_layer(file)) {
            print_dcp_layers(out, *path, scan_dcp_layers(file, 1 << 20), json);
            return 0;
        }
        if (!is_ftiff(file)) {
            err << "mlckpt inspect: " << describe_unknown(*path) << "\n  With --meta <that file>, mlckpt inspect "
                << "shows and checks its variables.\n";
            return 1;
        }
        FileStructure s = read_structure(file);
        std::size_t chunks = verify_chunks(file, s.layout, 1 << 20);
        if (json) {
            print_json(out, *path, s, chunks);
        } else {
            print_text(out, *path, s, chunks);
        }
        return 0;
    } catch (const Error& e) {
        err << "mlckpt inspect: " << shown(e.what()) << "\n";
        return 1;
    }
}

}  // namespace mlckpt::tools
