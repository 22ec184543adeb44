// mlckpt_bench: one benchmark case per launch, driven by bench/run_bench.py.
//
//   mlckpt_bench --phase checkpoint|recover --level 1|2|3|4|8|9 --io 1..5
//                --mib N --runs N --dir DIR --out FILE [--cold] [--changed PERCENT]
//                [--background | --snapshot] [--thread-multiple] [--verify-at-init 0|1]
//
// checkpoint: a fresh execution protects N MiB per rank and takes `runs`
//   checkpoints at the level, after two that warm up (level 8: `runs` full
//   L4 FTI-FF checkpoints,
//   then one full differential checkpoint and `runs` with PERCENT of the
//   blocks changed). Beside each checkpoint, measured back to back with it
//   so that each pair sees the same machine: a raw write() + fsync() of the
//   same bytes by the same ranks to the same directory; FTI-FF: MD5 of the
//   same bytes; L2 and L3: an L1 checkpoint of the same data; L3: ISA-L
//   encode, raw and through mlckpt's encoder; --background (head = 0,
//   inline_l2..4 = 0: the level completed by each rank's worker thread): an
//   L1 checkpoint of the same data; --snapshot (async_snapshot = 1, its
//   budget the data's size): a memcpy of the same bytes by the same ranks.
//   In these two modes each checkpoint is followed, outside its time, by
//   FTI_WaitBackground, whose work its counters (written bytes, CPU, peak
//   memory) include; --thread-multiple: MPI_Init_thread with
//   MPI_THREAD_MULTIPLE, so that the worker communicates too. Level 8: a
//   CRC-32 of every block, and the changed blocks written in place into the
//   raw file + fsync(); level 9 (FTI_L4_H5_SINGLE, one HDF5 file of a global dataset
//   of doubles, each rank's data one row of it): the same bytes written into
//   one new shared file with collective MPI-IO + MPI_File_sync (the raw
//   write per rank is kept for information); the per-rank HDF5 files (io 5):
//   also, for information, the raw write into a new file per rank, the
//   previous one removed when the library removes its retired checkpoint.
//   Also the CPU time of the ranks and the time the host took from
//   the machine's cores (steal); afterwards memcpy, MD5 and an MPI ring of
//   the same bytes. The launch ends without FTI_Finalize, as a crash.
// recover: a relaunch of that execution, timed from FTI_Init to the end of
//   FTI_Recover, beside a raw read + CRC-32 of the same bytes (FTI-FF: and
//   an MD5 of them; level 9: a restart with failure = 3 from the global
//   file, beside a collective MPI-IO read + CRC-32 of each rank's slice of
//   the raw shared file); with --cold every file is first dropped from the
//   page cache. --verify-at-init sets the configuration's [advanced]
//   verify_at_init for this restart (default 1, as FTI: FTI_Init reads and
//   checks every file whole; 0: the data is checked once, while read).
// Rank 0 appends one JSON object per launch to FILE.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "baselines.hpp"
#include "command_line.hpp"
#include "fti.h"
#include "system_stats.hpp"
#include "topology/cpu_share.hpp"

namespace fs = std::filesystem;
using namespace mlckpt::bench;

namespace {

struct Options {
    std::string phase;
    int level = 1;
    int io = 1;
    std::size_t mib = 64;
    int runs = 5;
    fs::path dir;
    std::string out;
    bool cold = false;
    double changed_percent = 1.0;
    bool background = false;
    bool snapshot = false;
    bool thread_multiple = false;
    int verify_at_init = 1;
};

constexpr std::size_t kDcpBlock = 16384;
constexpr int kWarmup = 2;                 // checkpoints taken before the measured ones
constexpr std::size_t kStripe = 1u << 20;  // the library's default block_size (1024 KiB)

int g_rank = 0;
int g_ranks = 1;

bool parse(int argc, char** argv, Options& o) {
    CommandLine line;
    if (!parse_command_line(argc, argv, 1, {"cold", "background", "snapshot", "thread-multiple"}, line)) return false;
    o.cold = line.switches.count("cold") != 0;
    o.background = line.switches.count("background") != 0;
    o.snapshot = line.switches.count("snapshot") != 0;
    o.thread_multiple = line.switches.count("thread-multiple") != 0;
    const std::map<std::string, std::string>& kv = line.values;
    try {
        o.phase = kv.at("phase");
        o.level = std::stoi(kv.at("level"));
        o.io = std::stoi(kv.at("io"));
        o.mib = std::stoul(kv.at("mib"));
        o.runs = std::stoi(kv.at("runs"));
        o.dir = kv.at("dir");
        o.out = kv.at("out");
        if (kv.count("changed")) o.changed_percent = std::stod(kv.at("changed"));
        if (kv.count("verify-at-init")) o.verify_at_init = std::stoi(kv.at("verify-at-init"));
    } catch (const std::exception&) {
        return false;
    }
    return (o.phase == "checkpoint" || o.phase == "recover") && o.runs > 0 && o.mib > 0 &&
           !(o.background && o.snapshot) && (o.verify_at_init == 0 || o.verify_at_init == 1);
}

int group_size() {
    return std::min(4, g_ranks);
}

// The CPUs each rank has to itself, as the library counts them for its own
// passes over the data (1 unless a rank has spare cores).
int cpus_per_rank() {
    MPI_Comm host = MPI_COMM_NULL;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &host);
    const int cpus = mlckpt::core::cpu_share(host).cpus;
    MPI_Comm_free(&host);
    return cpus;
}

void check(int rc, int expected, const char* what) {
    if (rc != expected) throw std::runtime_error(std::string(what) + ": " + FTI_LastError());
}

// Level 9: one HDF5 file of every rank's data (FTI_L4_H5_SINGLE).
bool single_file(const Options& o) {
    return o.level == FTI_L4_H5_SINGLE;
}

constexpr const char* kVerifyKey = "verify_at_init = ";

// A restart keeps the configuration the library rewrote (failure = 1): only
// its verify_at_init line changes, to this launch's value.
void set_verify_at_init(const fs::path& path, int value) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    std::string s = text.str();
    const std::size_t at = s.find(kVerifyKey);
    if (at == std::string::npos) throw std::runtime_error(path.string() + " has no verify_at_init line");
    s[at + std::strlen(kVerifyKey)] = static_cast<char>('0' + value);
    std::ofstream(path) << s;
}

// A recovery from the global file is a variate restart (failure = 3), a
// fresh execution: each such launch writes its own configuration.
std::string write_config(const Options& o) {
    fs::path path = o.dir / "config.fti";
    if ((o.phase == "checkpoint" || single_file(o)) && g_rank == 0) {
        fs::create_directories(o.dir);
        std::ofstream out(path);
        out << "[basic]\nnode_size = 1\ngroup_size = " << std::max(2, group_size()) << "\nverbosity = 3\n"
            << "ckpt_io = " << (o.level == 8 ? 3 : o.io) << "\nckpt_dir = " << (o.dir / "local").string()
            << "\nglbl_dir = " << (o.dir / "global").string() << "\nmeta_dir = " << (o.dir / "meta").string() << "\n";
        if (o.level == 8) out << "enable_dcp = 1\ndcp_mode = 2\ndcp_block_size = " << kDcpBlock << "\n";
        if (single_file(o)) out << "h5_single_file_enable = 1\n";  // into glbl_dir, FTI's default
        if (o.background) out << "head = 0\ninline_l2 = 0\ninline_l3 = 0\ninline_l4 = 0\n";
        // The budget is the data's size: the memory target is then a bound on the library's own use.
        if (o.snapshot) out << "async_snapshot = 1\nasync_snapshot_mb = " << o.mib << "\n";
        out << "[restart]\nfailure = " << (single_file(o) && o.phase == "recover" ? 3 : 0)
            << "\nexec_id =\n[advanced]\nlocal_test = 1\n"
            << kVerifyKey << o.verify_at_init << "\n";
    } else if (g_rank == 0) {
        set_verify_at_init(path, o.verify_at_init);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return path.string();
}

// Every rank's data: a pattern that depends on the rank and the version.
void fill(std::vector<std::uint64_t>& data, std::uint64_t version) {
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = (i * 0x9E3779B97F4A7C15ull) ^ (version << 32) ^ g_rank;
}

// Every how many differential blocks one is changed.
std::size_t changed_block_step(double percent) {
    return static_cast<std::size_t>(std::max(1.0, 100.0 / percent));
}

// Changes `percent` of the differential blocks, evenly spread.
void change_blocks(std::vector<std::uint64_t>& data, double percent, std::uint64_t version) {
    const std::size_t words_per_block = kDcpBlock / sizeof(std::uint64_t);
    const std::size_t blocks = data.size() / words_per_block;
    const std::size_t step = changed_block_step(percent);
    for (std::size_t b = 0; b < blocks; b += step) data[b * words_per_block] ^= version * 0x100000001ull;
}

// Where a rank's files of this level go: its node's directory, or glbl_dir.
fs::path raw_file(const Options& o) {
    fs::path base = o.level >= 4 ? o.dir / "global" : o.dir / "local" / ("node" + std::to_string(g_rank));
    return base / ("raw-rank" + std::to_string(g_rank) + ".bin");
}

// The raw file per rank written anew for every checkpoint (io 5, for information).
fs::path raw_new_file(const Options& o) {
    return o.dir / "global" / ("raw-new-rank" + std::to_string(g_rank) + ".bin");
}

// Level 9's raw shared file, beside the global HDF5 file.
fs::path raw_shared_file(const Options& o) {
    return o.dir / "global" / "raw-shared-mpiio.bin";
}

// Level 9: the data is protected as doubles (the same bytes, bit for bit)
// and is row `rank` of global dataset 0, of ranks x elements doubles: each
// rank one contiguous slab of it, at the place of its slice in the raw
// shared file.
void protect(const Options& o, std::vector<std::uint64_t>& data) {
    const auto n = static_cast<int64_t>(data.size());
    if (!single_file(o)) {
        check(FTI_Protect(0, data.data(), n, FTI_ULNG), FTI_SCES, "FTI_Protect");
        return;
    }
    check(FTI_Protect(0, data.data(), n, FTI_DBLE), FTI_SCES, "FTI_Protect");
    FTIT_hsize_t dims[2] = {static_cast<FTIT_hsize_t>(g_ranks), static_cast<FTIT_hsize_t>(data.size())};
    check(FTI_DefineGlobalDataset(0, 2, dims, "field", nullptr, FTI_DBLE), FTI_SCES, "FTI_DefineGlobalDataset");
    FTIT_hsize_t offset[2] = {static_cast<FTIT_hsize_t>(g_rank), 0};
    FTIT_hsize_t count[2] = {1, static_cast<FTIT_hsize_t>(data.size())};
    check(FTI_AddSubset(0, 2, offset, count, 0), FTI_SCES, "FTI_AddSubset");
}

// Every measurement starts with nothing left to write back from the ones
// before, so that no figure pays for another's data.
void quiet_disk() {
    if (g_rank == 0) ::sync();
    MPI_Barrier(MPI_COMM_WORLD);
}

// An application computes between two checkpoints; mlckpt removes the
// retired checkpoint's files meanwhile, in the background. The pause keeps
// that removal out of the raw write measured next (the next checkpoint
// waits for whatever is left of it, so its own figure pays for that).
void compute_between_checkpoints() {
    std::this_thread::sleep_for(std::chrono::seconds(1));
}

double max_over_ranks(double v) {
    double out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

std::uint64_t sum_over_ranks(std::uint64_t v) {
    std::uint64_t out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return out;
}

double sum_over_ranks(double v) {
    double out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return out;
}

// Forgets the counters of the last checkpoint (a warm-up, or the L1
// checkpoint beside an L2 or L3 one): only the level's measured
// checkpoints are reported.
void drop_counters(std::vector<double>& written, std::vector<double>& cpu, std::vector<double>& stolen,
                   std::vector<double>& faults) {
    for (auto* v : {&written, &cpu, &stolen, &faults}) v->pop_back();
}

class Json {
  public:
    Json& field(const std::string& k, double v) {
        std::ostringstream s;
        s.precision(9);
        s << v;
        return raw(k, s.str());
    }
    Json& field(const std::string& k, const std::string& v) { return raw(k, "\"" + v + "\""); }
    Json& field(const std::string& k, const std::vector<double>& v) {
        std::ostringstream s;
        s.precision(9);
        s << "[";
        for (std::size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
        return raw(k, s.str() + "]");
    }
    std::string str() const { return "{" + body_ + "}"; }

  private:
    Json& raw(const std::string& k, const std::string& v) {
        body_ += (body_.empty() ? "\"" : ", \"") + k + "\": " + v;
        return *this;
    }
    std::string body_;
};

Json common(const Options& o) {
    Json j;
    j.field("phase", o.phase)
        .field("level", o.level)
        .field("io", o.level == 8 ? 3 : o.io)
        .field("ranks", g_ranks)
        .field("mib", static_cast<double>(o.mib));
    if (o.background || o.snapshot) {
        j.field("mode", o.background ? "background" : "snapshot")
            .field("thread", o.thread_multiple ? "multiple" : "single");
    }
    return j;
}

Json checkpoint_phase(const Options& o) {
    std::string cfg = write_config(o);
    std::vector<std::uint64_t> data(o.mib * (1u << 20) / sizeof(std::uint64_t));
    fill(data, 0);
    // The memcpy yardstick's destination, touched before the baseline of the
    // resident set so that it is not counted as the library's.
    std::vector<std::byte> scratch(o.snapshot ? data.size() * sizeof(std::uint64_t) : 0);
    const std::uint64_t rss_before = resident_bytes();
    check(FTI_Init(cfg.c_str(), MPI_COMM_WORLD), FTI_SCES, "FTI_Init");
    protect(o, data);
    auto bytes = std::as_bytes(std::span(data));

    const int cpus = cpus_per_rank();
    std::vector<double> ckpt, raw_write, raw_shared_write, raw_per_rank_write, raw_new_file_write, written, cpu, stolen,
        faults, full_l4, dcp_crc_pass, dcp_in_place, md5, l1, isal_raw, isal_library, memcpy_runs;
    const bool shared_file = o.level == 4 && (o.io == 2 || o.io == 4);
    const bool ftiff = o.io == 3 && o.level != 8;
    const bool new_file_info = o.io == 5 && o.level != FTI_L4_H5_SINGLE;
    const int k = std::max(2, group_size());
    // The peak of the resident set over FTI_Init and the checkpoints, not
    // over the yardsticks between them (MPI-IO's collective buffers).
    std::uint64_t peak = peak_resident_bytes();
    auto timed_checkpoint = [&](int id, int level) {
        quiet_disk();
        reset_peak_resident();
        std::uint64_t before = bytes_written_by_syscalls();
        MPI_Barrier(FTI_COMM_WORLD);
        double cpu_start = cpu_seconds();
        double stolen_start = stolen_cpu_seconds();
        std::uint64_t faults_start = minor_page_faults();
        double start = MPI_Wtime();
        // FTI_L4_H5_SINGLE returns FTI_SCES, as in FTI; the levels FTI_DONE.
        check(FTI_Checkpoint(id, level), level == FTI_L4_H5_SINGLE ? FTI_SCES : FTI_DONE, "FTI_Checkpoint");
        double seconds = max_over_ranks(MPI_Wtime() - start);
        // The work left to the background is done before the next
        // measurement starts; the counters below include it.
        if (o.background || o.snapshot) check(FTI_WaitBackground(), FTI_SCES, "FTI_WaitBackground");
        stolen.push_back(stolen_cpu_seconds() - stolen_start);  // the machine's: rank 0's figure is reported
        cpu.push_back(sum_over_ranks(cpu_seconds() - cpu_start));
        faults.push_back(sum_over_ranks(static_cast<double>(minor_page_faults() - faults_start)));
        written.push_back(static_cast<double>(sum_over_ranks(bytes_written_by_syscalls() - before)));
        peak = std::max(peak, peak_resident_bytes());
        return seconds;
    };
    int id = 0;
    if (o.level == 8) {
        for (int run = 1 - kWarmup; run <= o.runs; ++run) {
            fill(data, static_cast<std::uint64_t>(run + kWarmup));
            double seconds = timed_checkpoint(++id, 4);
            if (run >= 1) full_l4.push_back(seconds);
        }
        timed_checkpoint(++id, 8);  // the first differential checkpoint writes everything
        written.clear();
        cpu.clear();
        faults.clear();
        stolen.clear();
    }
    // The first runs only warm up: the file system's first allocations of
    // fresh space (on a virtual disk especially) are not what a long run sees.
    for (int run = 1 - kWarmup; run <= o.runs; ++run) {
        if (o.level == 8) {
            change_blocks(data, o.changed_percent, static_cast<std::uint64_t>(run + kWarmup));
        } else {
            fill(data, static_cast<std::uint64_t>(run + kWarmup));
        }
        // The last checkpoint removed its predecessor's files right after
        // its commit: the predecessors of the raw files written anew go at
        // the same moment.
        if (new_file_info) fs::remove(raw_new_file(o));
        if (single_file(o) && g_rank == 0) fs::remove(raw_shared_file(o));
        compute_between_checkpoints();
        quiet_disk();
        // The new file first: the raw write's truncation frees pages that a
        // write right after it would find again, as no checkpoint does.
        double new_file = 0;
        if (new_file_info) {
            new_file = raw_durable_write_new_file(MPI_COMM_WORLD, raw_new_file(o), bytes);
            quiet_disk();
        }
        double raw = raw_durable_write(MPI_COMM_WORLD, raw_file(o), bytes);
        double per_rank = raw;
        if (single_file(o)) {  // the target's yardstick: one shared file, as the checkpoint writes
            quiet_disk();
            raw = raw_shared_mpiio_write(MPI_COMM_WORLD, raw_shared_file(o), bytes);
        }
        double raw_shared = 0;
        if (shared_file) {
            quiet_disk();
            raw_shared = raw_shared_durable_write(MPI_COMM_WORLD, o.dir / "global" / "raw-shared.bin", bytes);
            compute_between_checkpoints();  // the removal of that file stays out of the checkpoint
        }
        double crc_pass = 0;
        double in_place = 0;
        if (o.level == 8) {  // the least a differential checkpoint does: read everything, write the changes
            crc_pass = raw_block_crcs(MPI_COMM_WORLD, bytes, kDcpBlock, static_cast<std::size_t>(cpus));
            in_place = raw_in_place_update(MPI_COMM_WORLD, raw_file(o), bytes, kDcpBlock,
                                           changed_block_step(o.changed_percent));
        }
        // The yardsticks that need no disk, right before the checkpoint too.
        if (ftiff) md5.push_back(raw_md5(MPI_COMM_WORLD, bytes));
        if (o.level == 3) {
            isal_raw.push_back(raw_isal_encode(MPI_COMM_WORLD, k, bytes.size(), kStripe, false));
            isal_library.push_back(raw_isal_encode(MPI_COMM_WORLD, k, bytes.size(), kStripe, true));
        }
        if (o.level == 2 || o.level == 3 || o.background) {
            // L2, L3 and a level completed in the background are bounded by
            // a multiple of L1's time: an L1 checkpoint of the same data,
            // taken just before, is that time on the same machine at the same
            // moment. The level's own checkpoint comes last, so that recovery
            // launches restart from it.
            quiet_disk();
            l1.push_back(timed_checkpoint(++id, 1));
            drop_counters(written, cpu, stolen, faults);
            compute_between_checkpoints();
            quiet_disk();
        }
        // A snapshot is bounded by a multiple of a memcpy of the same bytes.
        if (o.snapshot) memcpy_runs.push_back(raw_memcpy(MPI_COMM_WORLD, bytes, scratch));
        double seconds = timed_checkpoint(++id, o.level);  // level 9: FTI_L4_H5_SINGLE
        // Warm-ups (the first snapshot allocates its region).
        if (run < 1) {
            drop_counters(written, cpu, stolen, faults);
            if (ftiff) md5.pop_back();
            if (o.snapshot) memcpy_runs.pop_back();
            if (o.level == 3) {
                isal_raw.pop_back();
                isal_library.pop_back();
            }
            if (!l1.empty()) l1.pop_back();
            continue;
        }
        raw_write.push_back(raw);
        raw_per_rank_write.push_back(per_rank);
        raw_new_file_write.push_back(new_file);
        raw_shared_write.push_back(raw_shared);
        ckpt.push_back(seconds);
        dcp_crc_pass.push_back(crc_pass);
        dcp_in_place.push_back(in_place);
    }
    const std::uint64_t rss_extra = peak - std::min(peak, rss_before);
    const double rss_extra_max = max_over_ranks(static_cast<double>(rss_extra));
    // Files of the newest checkpoint (older ones were retired, and are gone
    // once the application has computed a while), less the raw files.
    compute_between_checkpoints();
    double files = 0;
    if (g_rank == 0) {
        files = static_cast<double>(tree_below(o.dir / "local").files + tree_below(o.dir / "global").files) - g_ranks -
                (single_file(o) ? 1 : 0) - (new_file_info ? g_ranks : 0);
    }

    // The machine's limits for the rest of the work, on the same bytes.
    scratch.resize(bytes.size());
    Json j = common(o);
    j.field("checkpoint_s", ckpt)
        .field("raw_write_s", raw_write)
        .field("bytes_written", written)
        .field("checkpoint_cpu_s", cpu)
        .field("checkpoint_stolen_s", stolen)
        .field("checkpoint_minor_faults", faults)
        .field("cpus_per_rank", cpus)
        .field("files", files)
        .field("rss_extra_bytes", rss_extra_max)
        .field("memcpy_s", raw_memcpy(MPI_COMM_WORLD, bytes, scratch))
        .field("md5_s", raw_md5(MPI_COMM_WORLD, bytes))
        .field("mpi_ring_s", raw_mpi_ring(MPI_COMM_WORLD, bytes, 16u << 20));
    if (shared_file) j.field("raw_shared_write_s", raw_shared_write);
    if (single_file(o)) j.field("raw_per_rank_write_s", raw_per_rank_write);
    if (new_file_info) j.field("raw_new_file_write_s", raw_new_file_write);
    if (ftiff) j.field("md5_runs_s", md5);
    if (!l1.empty()) j.field("l1_checkpoint_s", l1);
    if (o.snapshot) j.field("memcpy_runs_s", memcpy_runs);
    if (o.level == 3) j.field("isal_raw_s", isal_raw).field("isal_library_s", isal_library).field("group_size", k);
    if (o.level == 8) {
        j.field("full_l4_s", full_l4)
            .field("changed_percent", o.changed_percent)
            .field("raw_dcp_crc_s", dcp_crc_pass)
            .field("raw_dcp_write_s", dcp_in_place);
    }
    // The raw file stays for the recovery launches' raw read.
    return j;  // no FTI_Finalize: the next launch restarts
}

Json recover_phase(const Options& o) {
    std::string cfg = write_config(o);
    std::vector<std::uint64_t> data(o.mib * (1u << 20) / sizeof(std::uint64_t));
    std::vector<std::byte> scratch(data.size() * sizeof(std::uint64_t));
    double evicted = 0;
    if (o.cold && g_rank == 0) evicted = static_cast<double>(evict_from_page_cache(o.dir));
    MPI_Barrier(MPI_COMM_WORLD);
    double raw_read = single_file(o) ? raw_shared_mpiio_read_with_crc(MPI_COMM_WORLD, raw_shared_file(o), scratch)
                                     : raw_read_with_crc(MPI_COMM_WORLD, raw_file(o), scratch);
    reset_peak_resident();  // the raw read's buffers (MPI-IO's collective ones) are not the library's
    const std::uint64_t rss_before = resident_bytes();
    MPI_Barrier(MPI_COMM_WORLD);
    double cpu_start = cpu_seconds();
    double stolen_start = stolen_cpu_seconds();
    std::uint64_t faults_start = minor_page_faults();
    double start = MPI_Wtime();
    check(FTI_Init(cfg.c_str(), MPI_COMM_WORLD), FTI_SCES, "FTI_Init");
    // FTI_Init's share: the fixed costs (configuration, topology, catalog,
    // selection and the checks of the files' structure), not the data.
    double init_seconds = max_over_ranks(MPI_Wtime() - start);
    protect(o, data);
    check(FTI_Recover(), FTI_SCES, "FTI_Recover");
    double seconds = max_over_ranks(MPI_Wtime() - start);
    double stolen = stolen_cpu_seconds() - stolen_start;
    double cpu = sum_over_ranks(cpu_seconds() - cpu_start);
    double faults = sum_over_ranks(static_cast<double>(minor_page_faults() - faults_start));
    const std::uint64_t rss_extra = peak_resident_bytes() - std::min(peak_resident_bytes(), rss_before);
    // The data must be the last checkpoint's, bit for bit.
    std::vector<std::uint64_t> expected(data.size());
    fill(expected, static_cast<std::uint64_t>(o.runs + kWarmup));
    if (o.level == 8) {
        for (int run = 1; run <= o.runs + kWarmup; ++run) {
            change_blocks(expected, o.changed_percent, static_cast<std::uint64_t>(run));
        }
    }
    int wrong = expected != data ? 1 : 0;
    int any_wrong = 0;
    MPI_Allreduce(&wrong, &any_wrong, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (any_wrong != 0) throw std::runtime_error("recovered data differs from the checkpointed data");
    // FTI-FF's checksum is MD5: the machine's limit for verifying the same
    // bytes, in this launch (dCP files are verified with CRC-32s).
    const bool ftiff = o.io == 3 && o.level != 8;
    const double md5 = ftiff ? raw_md5(MPI_COMM_WORLD, std::as_bytes(std::span(data))) : 0.0;
    Json j = common(o);
    j.field("cold", o.cold ? "yes" : "no")
        .field("verify_at_init", o.verify_at_init)
        .field("files_evicted", evicted)
        .field("recover_s", seconds)
        .field("init_s", init_seconds)
        .field("recover_cpu_s", cpu)
        .field("recover_stolen_s", stolen)
        .field("recover_minor_faults", faults)
        .field("raw_read_s", raw_read)
        .field("rss_extra_bytes", max_over_ranks(static_cast<double>(rss_extra)));
    if (ftiff) j.field("md5_s", md5);
    return j;  // no FTI_Finalize: the next recovery launch restarts again
}

}  // namespace

int main(int argc, char** argv) {
    const bool multiple = std::find(argv + 1, argv + argc, std::string("--thread-multiple")) != argv + argc;
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_ranks);
    Options o;
    if (!parse(argc, argv, o) || (multiple && provided != MPI_THREAD_MULTIPLE)) {
        if (g_rank == 0) {
            std::cerr << "usage: mlckpt_bench --phase checkpoint|recover --level 1|2|3|4|8|9 --io 1..5 --mib N "
                         "--runs N --dir DIR --out FILE [--cold] [--changed PERCENT] [--background | --snapshot] "
                         "[--thread-multiple] [--verify-at-init 0|1] (MPI_THREAD_MULTIPLE must be provided)\n"
                         "(normally run by bench/run_bench.py)\n";
        }
        MPI_Finalize();
        return 2;
    }
    int rc = 0;
    try {
        Json j = o.phase == "checkpoint" ? checkpoint_phase(o) : recover_phase(o);
        if (g_rank == 0) std::ofstream(o.out, std::ios::app) << j.str() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "mlckpt_bench (rank " << g_rank << "): " << e.what() << "\n";
        MPI_Abort(MPI_COMM_WORLD, 1);  // the other ranks may be waiting in a collective call
        rc = 1;
    }
    MPI_Finalize();
    return rc;
}
