// time_to_solution: the time a compute-bound application takes to its
// result, without checkpoints and with L4 checkpoints taken inline, by the
// worker thread (background promotion) or as in-memory snapshots; driven by
// bench/run_bench.py --time-to-solution.
//
//   time_to_solution --mode none|inline|background|snapshot --mib N
//                    --iterations N --every N --dir DIR --out FILE
//                    [--baseline first|last] [--thread-multiple]
//
// The application is a heat-distribution solver: Jacobi sweeps of a 2-D grid
// split by rows between the ranks (halo rows exchanged with MPI), N MiB of
// grid per rank protected. One launch solves the same problem twice from the
// same start, in the same memory: once without checkpoints (the baseline)
// and once with an L4 checkpoint (POSIX) every `every` iterations, none at
// the last; `--baseline` says which comes first (default first). The speed
// of the same loop differs by several per cent between launches on a
// virtual machine (where the memory and the vCPUs land), far more than what
// is measured, so the two are timed in one process. Mode none solves it
// once, without checkpoints. Each time runs from the loop's start to its end,
// the background work of the last checkpoint included. Rank 0 appends one
// JSON object per launch to FILE, with a checksum of the result (the same in
// both loops and every mode).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fti.h"

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kColumns = 2048;
constexpr double kHot = 100.0;  // the top edge of the plate

struct Options {
    std::string mode;
    std::size_t mib = 32;
    long iterations = 0;
    long every = 0;
    fs::path dir;
    std::string out;
    bool baseline_first = true;
};

bool parse(int argc, char** argv, Options& o) {
    std::map<std::string, std::string> kv;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--thread-multiple") continue;  // read by main
        if (a.rfind("--", 0) != 0 || i + 1 >= argc) return false;
        kv[a.substr(2)] = argv[++i];
    }
    try {
        o.mode = kv.at("mode");
        o.mib = std::stoul(kv.at("mib"));
        o.iterations = std::stol(kv.at("iterations"));
        o.every = std::stol(kv.at("every"));
        o.dir = kv.at("dir");
        o.out = kv.at("out");
        if (kv.count("baseline")) {
            if (kv["baseline"] != "first" && kv["baseline"] != "last") return false;
            o.baseline_first = kv["baseline"] == "first";
        }
    } catch (const std::exception&) {
        return false;
    }
    return (o.mode == "none" || o.mode == "inline" || o.mode == "background" || o.mode == "snapshot") &&
           o.iterations > 0 && o.every > 0 && o.mib > 0;
}

void check(int rc, int expected, const char* what) {
    if (rc != expected) throw std::runtime_error(std::string(what) + ": " + FTI_LastError());
}

std::string write_config(const Options& o, int rank) {
    fs::path path = o.dir / "config.fti";
    if (rank == 0) {
        fs::create_directories(o.dir);
        std::ofstream out(path);
        out << "[basic]\nnode_size = 1\ngroup_size = 2\nverbosity = 3\nckpt_io = 1\nckpt_dir = "
            << (o.dir / "local").string() << "\nglbl_dir = " << (o.dir / "global").string()
            << "\nmeta_dir = " << (o.dir / "meta").string() << "\n";
        if (o.mode == "background") out << "head = 0\ninline_l4 = 0\n";
        if (o.mode == "snapshot") out << "async_snapshot = 1\n";
        out << "[restart]\nfailure = 0\nexec_id =\n[advanced]\nlocal_test = 1\n";
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return path.string();
}

// The rank's rows of the plate with a halo row above and below.
class Plate {
  public:
    Plate(std::size_t rows, int rank, int ranks)
        : rows_(rows),
          up_(rank > 0 ? rank - 1 : MPI_PROC_NULL),
          down_(rank + 1 < ranks ? rank + 1 : MPI_PROC_NULL),
          u_((rows + 2) * kColumns, 0.0),
          next_(u_.size()) {
        reset();
    }

    // The plate at the start, in the same memory.
    void reset() {
        std::fill(u_.begin(), u_.end(), 0.0);
        if (up_ == MPI_PROC_NULL) std::fill_n(u_.begin(), kColumns, kHot);
        next_ = u_;  // the edges, which no sweep writes
    }

    std::vector<double>& grid() { return u_; }

    // One iteration: two sweeps, so that the result is in the protected grid.
    void iterate() {
        sweep(u_, next_);
        sweep(next_, u_);
    }

    double checksum() const {
        double sum = 0;
        for (std::size_t i = kColumns; i < (rows_ + 1) * kColumns; ++i) sum += u_[i];
        return sum;
    }

  private:
    void exchange(std::vector<double>& g) {
        const int n = static_cast<int>(kColumns);
        MPI_Sendrecv(&g[kColumns], n, MPI_DOUBLE, up_, 0, &g[(rows_ + 1) * kColumns], n, MPI_DOUBLE, down_, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&g[rows_ * kColumns], n, MPI_DOUBLE, down_, 1, &g[0], n, MPI_DOUBLE, up_, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }

    // Each point becomes the mean of its four neighbours; the plate's edges
    // (the outer halo rows, the first and last columns) keep their
    // temperature.
    void sweep(std::vector<double>& from, std::vector<double>& to) {
        exchange(from);
        for (std::size_t r = 1; r <= rows_; ++r) {
            const double* above = &from[(r - 1) * kColumns];
            const double* row = &from[r * kColumns];
            const double* below = &from[(r + 1) * kColumns];
            double* out = &to[r * kColumns];
            for (std::size_t c = 1; c + 1 < kColumns; ++c) {
                out[c] = 0.25 * (above[c] + below[c] + row[c - 1] + row[c + 1]);
            }
        }
    }

    std::size_t rows_;
    int up_, down_;
    std::vector<double> u_, next_;
};

double max_over_ranks(double v) {
    double out = 0;
    MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

struct Solved {
    double seconds = 0;
    double checksum = 0;
    std::vector<double> blocking;  // of each checkpoint, sorted
};

// Solves the problem from the start, with checkpoints or without.
Solved solve(const Options& o, Plate& plate, long& iteration, bool checkpoints) {
    plate.reset();
    Solved out;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (iteration = 1; iteration <= o.iterations; ++iteration) {
        plate.iterate();
        if (checkpoints && iteration % o.every == 0 && iteration < o.iterations) {
            const double t = MPI_Wtime();
            check(FTI_Checkpoint(static_cast<int>(iteration / o.every), FTI_L4), FTI_DONE, "FTI_Checkpoint");
            out.blocking.push_back(MPI_Wtime() - t);
        }
    }
    if (checkpoints) check(FTI_WaitBackground(), FTI_SCES, "FTI_WaitBackground");
    out.seconds = max_over_ranks(MPI_Wtime() - start);
    const double mine = plate.checksum();
    MPI_Allreduce(&mine, &out.checksum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    std::sort(out.blocking.begin(), out.blocking.end());
    return out;
}

std::string run(const Options& o, int rank, int ranks) {
    const std::string cfg = write_config(o, rank);
    Plate plate(o.mib * (1u << 20) / (kColumns * sizeof(double)), rank, ranks);
    check(FTI_Init(cfg.c_str(), MPI_COMM_WORLD), FTI_SCES, "FTI_Init");
    long iteration = 0;
    check(FTI_Protect(0, &iteration, 1, FTI_LONG), FTI_SCES, "FTI_Protect");
    check(FTI_Protect(1, plate.grid().data(), static_cast<int64_t>(plate.grid().size()), FTI_DBLE), FTI_SCES,
          "FTI_Protect");
    Solved without, with;
    if (o.mode == "none") {
        without = solve(o, plate, iteration, false);
    } else if (o.baseline_first) {
        without = solve(o, plate, iteration, false);
        with = solve(o, plate, iteration, true);
    } else {
        with = solve(o, plate, iteration, true);
        without = solve(o, plate, iteration, false);
    }
    check(FTI_Finalize(), FTI_SCES, "FTI_Finalize");
    if (o.mode != "none" && with.checksum != without.checksum) {
        throw std::runtime_error("the result with checkpoints differs from the result without");
    }
    const Solved& timed = o.mode == "none" ? without : with;
    std::ostringstream json;
    json.precision(12);
    json << "{\"mode\": \"" << o.mode << "\", \"ranks\": " << ranks << ", \"mib\": " << o.mib
         << ", \"iterations\": " << o.iterations << ", \"every\": " << o.every
         << ", \"baseline_first\": " << (o.baseline_first ? "true" : "false") << ", \"seconds\": " << timed.seconds
         << ", \"none_s\": " << without.seconds << ", \"checkpoints\": " << timed.blocking.size()
         << ", \"median_blocking_s\": " << (timed.blocking.empty() ? 0.0 : timed.blocking[timed.blocking.size() / 2])
         << ", \"checksum\": " << timed.checksum << "}";
    return json.str();
}

}  // namespace

int main(int argc, char** argv) {
    const bool multiple = std::find(argv + 1, argv + argc, std::string("--thread-multiple")) != argv + argc;
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    Options o;
    if (!parse(argc, argv, o) || (multiple && provided != MPI_THREAD_MULTIPLE)) {
        if (rank == 0) {
            std::cerr << "usage: time_to_solution --mode none|inline|background|snapshot --mib N --iterations N "
                         "--every N --dir DIR --out FILE [--baseline first|last] [--thread-multiple] "
                         "(MPI_THREAD_MULTIPLE must be provided)\n";
        }
        MPI_Finalize();
        return 2;
    }
    int rc = 0;
    try {
        std::string line = run(o, rank, ranks);
        if (rank == 0) std::ofstream(o.out, std::ios::app) << line << "\n";
    } catch (const std::exception& e) {
        std::cerr << "time_to_solution (rank " << rank << "): " << e.what() << "\n";
        MPI_Abort(MPI_COMM_WORLD, 1);
        rc = 1;
    }
    MPI_Finalize();
    return rc;
}
