// Writes the seed corpus of the fuzz targets with the library's own writers,
// each file read back by its reader first, so that every seed is a valid file
// the fuzzer mutates from deep inside the format:
//   mlckpt_fuzz_seeds DIR   (tests/fuzz/corpus: one directory per target)
// Kept small (a few KiB a file): libFuzzer mutates every byte of a seed.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "compress/packed_frame.hpp"
#include "config/config.hpp"
#include "config/restart_state.hpp"
#include "format/checkpoint_meta.hpp"
#include "format/dcp/redo_journal.hpp"
#include "format/ftiff/ftiff_file.hpp"
#include "format/packed_var.hpp"
#include "format/shared/container_layout.hpp"
#include "io/file.hpp"

using namespace mlckpt::core;

namespace {

std::vector<std::byte> numbered(std::size_t n, int salt) {
    std::vector<std::byte> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 13 + static_cast<std::size_t>(salt)) & 0xff);
    return v;
}

void write_bytes(const fs::path& path, std::span<const std::byte> bytes) {
    File f = File::create(path);
    f.write_all(bytes);
    f.close();
}

// FTI-FF: one checkpoint after another on the same layout, as a run writes
// them, so that later files hold several blocks, grown and emptied containers.
void ftiff_seeds(const fs::path& dir) {
    using Step = std::vector<std::pair<int, std::size_t>>;
    const std::vector<Step> steps = {
        {{1, 40}, {2, 100}, {3, 12}},
        {{1, 40}, {2, 300}, {4, 16}},  // 2 grows (a second container), 4 is new, 3 is gone
        {{1, 20}, {2, 64}, {4, 16}},   // containers partly used
    };
    ftiff::Layout layout;
    for (std::size_t s = 0; s < steps.size(); ++s) {
        std::vector<ftiff::VariableExtent> extents;
        std::vector<std::vector<std::byte>> buffers;
        for (auto [id, bytes] : steps[s]) {
            extents.push_back({id, static_cast<std::int64_t>(bytes)});
            buffers.push_back(numbered(bytes, id + static_cast<int>(s)));
        }
        layout.update(extents);
        std::vector<ftiff::VariableData> vars;
        for (std::size_t i = 0; i < extents.size(); ++i) vars.push_back({extents[i].id, buffers[i]});
        ftiff::write_file(dir / ("checkpoint_" + std::to_string(s + 1) + ".fti"), layout, vars, 2048, 1024, 42);
    }
    // Version 2: chunks hashed by blocks of CRC-32s, as L4 differential files are.
    ftiff::Layout blocked;
    blocked.update({{1, 200}, {2, 70}});
    ftiff::Writer writer(File::create(dir / "block_hashed.fti"), blocked, 64);
    writer.add(1, numbered(200, 5));
    writer.add(2, numbered(70, 6));
    writer.finish(0, 0, 43);

    for (const char* name : {"checkpoint_1.fti", "checkpoint_2.fti", "checkpoint_3.fti", "block_hashed.fti"}) {
        File f = File::open_read(dir / name);
        ftiff::verify_chunks(f, ftiff::read_structure(f).layout, 4096);
    }
}

// A container file as the shared L4 writer lays it out: META1, every task's
// chunk, META2, and in file 0 of several the mapping of every rank.
void write_container(const fs::path& path, int file, int files, const std::vector<std::uint64_t>& sizes) {
    const container::Header header = container::plan_file(file, files, sizes, 512, "ckpt.sion");
    const container::Geometry geo = container::geometry(header);
    std::vector<std::uint64_t> written;
    for (std::int64_t rank : header.global_ranks) written.push_back(sizes[static_cast<std::size_t>(rank)]);
    std::vector<std::byte> tail = container::encode_tail(container::tail_for(header, written));
    if (files > 1 && file == 0) {
        std::vector<std::byte> mapping = container::encode_mapping(static_cast<int>(sizes.size()), files);
        tail.insert(tail.end(), mapping.begin(), mapping.end());
    }
    File f = File::create(path);
    f.write_all_at(container::encode_header(header), 0);
    for (std::size_t task = 0; task < header.ntasks(); ++task) {
        if (written[task] > 0)
            f.write_all_at(numbered(written[task], static_cast<int>(task)), geo.chunk_offset(task, 0));
    }
    f.write_all_at(tail, geo.meta2_start);
    f.close();
    container::read_container(File::open_read(path));
}

void container_seeds(const fs::path& dir) {
    write_container(dir / "two_tasks.sion", 0, 1, {100, 200});
    write_container(dir / "empty_task.sion", 0, 1, {0, 64, 32});
    write_container(dir / "of_two_file_0.sion", 0, 2, {48, 96, 16});
    write_container(dir / "of_two_file_1.sion", 1, 2, {48, 96, 16});
}

FileRecord file_record(int rank, int node, const std::string& type, std::uint64_t offset) {
    FileRecord r;
    r.rank = rank;
    r.holder = type == "PARTNER" ? rank ^ 1 : rank;
    r.node = node;
    r.file = "Ckpt7-Rank" + std::to_string(rank) + (type == "FULL" ? ".fti" : "." + type);
    r.type = type;
    r.complete = true;
    r.size = 2400;
    r.crc32 = 0x1234abcdu + static_cast<std::uint32_t>(rank);
    r.offset = offset;
    r.vars = {{0, 0, 400, 0x0badf00du, "step", "", 0, 0}, {1, 400, 2000, 0xfeedbeefu, "", "", 1700, 8}};
    return r;
}

void meta_seeds(const fs::path& dir) {
    CheckpointMeta m;
    m.exec_id = "2024-05-01_12-00-00";
    m.ckpt_id = 7;
    m.seq = 3;
    m.ranks = 2;
    m.node_size = 1;
    m.group_size = 2;
    m.time_ns = 1714564800000000000;
    m.complete = true;
    m.files = {file_record(0, 0, "FULL", 0), file_record(1, 1, "FULL", 0)};
    const auto write = [&](const char* name) {
        const std::string text = serialize_meta(m);
        write_bytes(dir / name, std::as_bytes(std::span(text.data(), text.size())));
        parse_meta(text, name);
    };
    write("l1_posix.meta");
    m.level = 2;
    m.redundancy = {file_record(0, 1, "PARTNER", 0), file_record(1, 0, "PARTNER", 0)};
    write("l2_partner.meta");
    m.level = 3;
    m.redundancy = {file_record(0, 0, "PARITY", 0), file_record(1, 1, "PARITY", 0)};
    write("l3_parity.meta");
    m.level = 4;
    m.io = IoMode::container;
    m.redundancy.clear();
    m.files = {file_record(0, 0, "FULL", 0), file_record(1, 1, "FULL", 2560)};
    write("l4_container.meta");
}

// Journals of updates to the fuzz target's 4 KiB file.
void journal_seeds(const fs::path& dir) {
    {
        RedoJournal j(dir / "update.journal", 7);
        j.write_at(numbered(100, 1), 10);
        j.zeros_at(1000, 200);
        j.write_at(numbered(150, 2), 4000);  // past the end: the file grows
        j.resize(4150);
        j.sync();
    }
    {
        RedoJournal j(dir / "shrink.journal", 8);
        j.zeros_at(1024, 512);
        j.resize(2048);
        j.sync();
    }
    {
        RedoJournal j(dir / "nothing_changed.journal", 9);
        j.resize(4096);
        j.sync();
    }
    for (const char* name : {"update.journal", "shrink.journal", "nothing_changed.journal"}) {
        if (!redo_journal_seq(dir / name)) fail(ErrorKind::usage, std::string(name) + ": unreadable header");
    }
}

const char* const kConfigs[][2] = {
    {"minimal.fti",
     "[basic]\nnode_size = 2\ngroup_size = 2\nckpt_dir = local\nglbl_dir = global\nmeta_dir = meta\n"
     "[restart]\nfailure = 0\nexec_id =\n[advanced]\nlocal_test = 1\n"},
    {"every_section.fti",
     "# comment\n[basic]\nhead = 1\nnode_size = 4\nckpt_dir = \"./node local\"\nglbl_dir = ./global\n"
     "meta_dir = ./meta\nckpt_l1 = 0.5\nckpt_l2 = 2\nckpt_l3 = 4\nckpt_l4 = -1\ninline_l2 = 0\ninline_l3 = 1\n"
     "inline_l4 = 0\nkeep_last_ckpt = 1\nkeep_l4_ckpt = 0\nkeep_heads_alive = 0\ngroup_size = 4\nverbosity = 1\n"
     "ckpt_io = 3\nenable_dcp = 1\ndcp_mode = 2\ndcp_block_size = 4096\nmax_var_id = 1000\nmax_sync_intv = 64\n"
     "[restart]\nfailure = 1\nexec_id = 2024-05-01_12-00-00\n"
     "[injection]\nrank = 0\nnumber = 0\nposition = 0\nfrequency = 0\n"
     "[advanced]\nblock_size = 512\ntransfer_size = 8\ncontainer_block_size = 4096\ncontainer_files = 2\n"
     "local_test = 1\ngeneral_tag = 2612\nckpt_tag = 711\nstage_tag = 406\nfinal_tag = 3107\nfast_forward = 2\n"},
    {"fti_replaced_values.fti",
     "[basic]\nnode_size = 1\nckpt_dir = l\nglbl_dir = g\nmeta_dir = m\nckpt_io = 5\ninline_l2 = 2\n"
     "h5_single_file_enable = 0\ndcp_stack_size = 5\n[restart]\nfailure = 3\nexec_id = NULL\n"
     "[advanced]\ntransfer_size = 0\nmpi_tag = 2612\n"},
};

void config_seeds(const fs::path& dir) {
    for (const auto& [name, text] : kConfigs) {
        const std::string t = text;
        write_bytes(dir / name, std::as_bytes(std::span(t.data(), t.size())));
        load_config((dir / name).string());
    }
    // After the first checkpoint, rank 0 rewrites [restart] in place.
    const std::string restarted = with_restart_state(kConfigs[0][1], 1, "2024-05-01_12-00-00");
    write_bytes(dir / "restart_state.fti", std::as_bytes(std::span(restarted.data(), restarted.size())));
    load_config((dir / "restart_state.fti").string());
}

}  // namespace

// 300 doubles of a smooth curve.
std::vector<std::byte> smooth_doubles() {
    std::vector<std::byte> out(300 * sizeof(double));
    for (std::size_t i = 0; i < 300; ++i) {
        const double v = 10.0 + static_cast<double>(i * i) / 1000.0;
        std::memcpy(out.data() + i * sizeof(double), &v, sizeof v);
    }
    return out;
}

// Packed variables: smooth doubles in several blocks (LZ4, Zstandard, ZFP
// within a bound), a block stored as it is beside compressed ones, and an
// empty variable.
void packed_seeds(const fs::path& dir) {
    struct Seed {
        const char* name;
        Codec codec;
        std::size_t block;
        std::vector<std::byte> raw;
        double bound = 0;
    };
    std::vector<std::byte> smooth(3000);
    for (std::size_t i = 0; i < smooth.size(); ++i) smooth[i] = static_cast<std::byte>(i % 8 < 6 ? 0 : i / 64);
    std::vector<std::byte> mixed = smooth;
    const std::vector<std::byte> noise = numbered(700, 5);
    for (std::size_t i = 0; i < noise.size(); ++i)
        mixed[i] = static_cast<std::byte>(static_cast<int>(noise[i]) * 37 % 251);
    const Seed seeds[] = {{"lz4_three_blocks", Codec::lz4, 1024, smooth},
                          {"zstd_three_blocks", Codec::zstd, 1024, smooth},
                          {"lz4_block_as_is", Codec::lz4, 1024, mixed},
                          {"zstd_empty", Codec::zstd, 1024, {}},
                          {"zfp_doubles", Codec::zfp, 1024, smooth_doubles(), 1e-3}};
    for (const Seed& seed : seeds) {
        std::vector<std::byte> frame;
        PackedEncoder encoder(
            seed.codec, 8, seed.block, 1,
            [&](std::span<const std::byte> p) { frame.insert(frame.end(), p.begin(), p.end()); }, seed.bound);
        encoder.feed(seed.raw);
        encoder.finish();
        const fs::path path = dir / (std::string(seed.name) + ".fti");
        write_bytes(path, frame);
        VarRecord var;
        var.stored = frame.size();
        var.size = seed.raw.size();
        var.crc32 = encoder.raw_crc();
        std::vector<std::byte> back(seed.raw.size());
        read_packed_var(File::open_read(path), {{0, frame.size()}}, var, back);
    }
}

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const fs::path root = argv[1];
    try {
        for (const char* target :
             {"ftiff_file", "container", "checkpoint_meta", "redo_journal", "config", "packed_var"}) {
            make_dirs(root, root / target);
        }
        ftiff_seeds(root / "ftiff_file");
        container_seeds(root / "container");
        meta_seeds(root / "checkpoint_meta");
        journal_seeds(root / "redo_journal");
        config_seeds(root / "config");
        packed_seeds(root / "packed_var");
    } catch (const Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
