// mlckpt_bench: time per L4 checkpoint and files created, for per-rank files
// (ckpt_io = 1) against the shared-file modes (2, MPI-IO; 4, container),
// each beside a raw write() + fsync() of the same bytes by the same ranks to
// the same directory, measured in the same run. Run under mpiexec; see
// bench/README.md.
//
//   mlckpt_bench [--mib N] [--runs N] [--io LIST] [--dir DIR] [--json FILE]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "fti.h"
#include "raw_baselines.hpp"

namespace fs = std::filesystem;

namespace {

struct Options {
    std::size_t mib = 64;
    int runs = 5;
    std::vector<int> io = {1, 2, 4};
    fs::path dir = fs::temp_directory_path() / "mlckpt-bench";
    std::string json;
};

struct Result {
    int io = 0;
    std::size_t files = 0;
    double seconds = 0;      // median time of one L4 checkpoint
    double raw_seconds = 0;  // median raw write + fsync of the same bytes
};

const char* io_name(int io) {
    switch (io) {
        case 1: return "POSIX, per-rank files";
        case 2: return "MPI-IO, shared file";
        case 3: return "FTI-FF, per-rank files";
        case 4: return "container, shared";
        default: return "?";
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

bool parse(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        bool value = i + 1 < argc;
        if (a == "--mib" && value) {
            o.mib = std::stoul(argv[++i]);
        } else if (a == "--runs" && value) {
            o.runs = std::max(1, std::stoi(argv[++i]));
        } else if (a == "--dir" && value) {
            o.dir = argv[++i];
        } else if (a == "--json" && value) {
            o.json = argv[++i];
        } else if (a == "--io" && value) {
            o.io.clear();
            std::stringstream list(argv[++i]);
            for (std::string item; std::getline(list, item, ',');) {
                int io = std::stoi(item);
                if (io < 1 || io > 4) return false;
                o.io.push_back(io);
            }
        } else {
            return false;
        }
    }
    return !o.io.empty() && o.mib > 0;
}

// Rank 0 writes the configuration of one mode; everybody gets its path.
std::string write_config(const fs::path& dir, int io) {
    fs::path path = dir / "config.fti";
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        fs::create_directories(dir);
        std::ofstream out(path);
        out << "[basic]\nnode_size = 1\ngroup_size = 1\nverbosity = 3\nckpt_io = " << io << "\nckpt_dir = "
            << (dir / "local").string() << "\nglbl_dir = " << (dir / "global").string()
            << "\nmeta_dir = " << (dir / "meta").string() << "\n[restart]\nfailure = 0\nexec_id =\n"
            << "[advanced]\nlocal_test = 1\n";
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return path.string();
}

std::size_t files_below(const fs::path& dir) {
    std::size_t n = 0;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().string().find("/l4/") != std::string::npos) ++n;
    }
    return n;
}

Result measure(const Options& o, int io) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fs::path dir = o.dir / ("io" + std::to_string(io));
    std::string cfg = write_config(dir, io);
    std::vector<double> data(o.mib * (1u << 20) / sizeof(double));
    if (FTI_Init(cfg.c_str(), MPI_COMM_WORLD) != FTI_SCES) throw std::runtime_error(FTI_LastError());
    FTI_Protect(0, data.data(), static_cast<int64_t>(data.size()), FTI_DBLE);
    Result r;
    r.io = io;
    std::vector<double> times;
    std::vector<double> raw;
    for (int run = 1; run <= o.runs; ++run) {
        for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<double>(i * run + rank);
        raw.push_back(mlckpt::bench::raw_durable_write(MPI_COMM_WORLD, dir / "global",
                                                       std::as_bytes(std::span(data))));
        MPI_Barrier(FTI_COMM_WORLD);
        double start = MPI_Wtime();
        if (FTI_Checkpoint(run, FTI_L4) != FTI_DONE) throw std::runtime_error(FTI_LastError());
        MPI_Barrier(FTI_COMM_WORLD);
        times.push_back(MPI_Wtime() - start);
        if (rank == 0) r.files = files_below(dir / "global");
    }
    FTI_Finalize();
    if (rank == 0) fs::remove_all(dir);
    r.seconds = median(times);
    r.raw_seconds = median(raw);
    return r;
}

void report(const Options& o, int ranks, const std::vector<Result>& results) {
    const double gb = static_cast<double>(o.mib) * ranks * (1 << 20) / 1e9;
    std::printf("L4 checkpoint of %d ranks x %zu MiB (%.2f GB), median of %d runs\n", ranks, o.mib, gb, o.runs);
    std::printf("%-24s %6s %10s %8s %14s %8s\n", "mode (ckpt_io)", "files", "time [s]", "GB/s", "raw write [s]",
                "ratio");
    for (const Result& r : results) {
        std::printf("%-20s (%d) %6zu %10.3f %8.2f %14.3f %8.2f\n", io_name(r.io), r.io, r.files, r.seconds,
                    gb / r.seconds, r.raw_seconds, r.raw_seconds / r.seconds);
    }
    std::printf("files: files in the L4 directory after one checkpoint; raw write: write() + fsync() of the same "
                "bytes, one file per rank, same directory; ratio: raw time / checkpoint time\n");
    if (o.json.empty()) return;
    std::ofstream out(o.json);
    out << "{\"benchmark\": \"l4_shared_files\", \"ranks\": " << ranks << ", \"mib_per_rank\": " << o.mib
        << ", \"runs\": " << o.runs << ", \"results\": [";
    for (std::size_t i = 0; i < results.size(); ++i) {
        const Result& r = results[i];
        out << (i ? ", " : "") << "{\"ckpt_io\": " << r.io << ", \"files\": " << r.files
            << ", \"seconds\": " << r.seconds << ", \"raw_write_seconds\": " << r.raw_seconds
            << ", \"ratio\": " << r.raw_seconds / r.seconds << "}";
    }
    out << "]}\n";
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    int ranks = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    Options o;
    if (!parse(argc, argv, o)) {
        if (rank == 0) {
            std::cerr << "usage: mlckpt_bench [--mib N] [--runs N] [--io 1,2,4] [--dir DIR] [--json FILE]\n";
        }
        MPI_Finalize();
        return 2;
    }
    int rc = 0;
    try {
        std::vector<Result> results;
        for (int io : o.io) results.push_back(measure(o, io));
        if (rank == 0) report(o, ranks, results);
    } catch (const std::exception& e) {
        std::cerr << "mlckpt_bench: " << e.what() << "\n";
        rc = 1;
    }
    MPI_Finalize();
    return rc;
}
