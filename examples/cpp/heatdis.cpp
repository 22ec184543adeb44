// heatdis.cpp - 2-D heat distribution (Jacobi iteration) protected by mlckpt,
// the C++ twin of examples/c/heatdis.c through the C++ wrapper
// (mlckpt::Session): same options, same solver, same output, and a
// bit-identical result.
//
// Every application rank owns `rows` x `cols` cells plus one ghost row above
// and below (from its neighbours) and one ghost column left and right (held
// at 0.0); the ghost row above rank 0 is the hot boundary (100.0). The
// iteration counter and the grid are protected: a run killed at any point
// and relaunched unchanged continues from the newest checkpoint and ends
// exactly like an uninterrupted run.
//
// Usage:
//   heatdis_cpp --config FILE [--iterations N] [--crash-at N] [--level 1-4]
//               [--ckpt-every K] [--rows R] [--cols C]
// (see examples/c/heatdis.c for the meaning of each option)
//
// At the end rank 0 prints one line:
//   heatdis: result iterations=<N> checksum=<16 hex digits> max=<max value>
#include <mpi.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "mlckpt/mlckpt.hpp"

namespace {

constexpr double kHotBoundary = 100.0;
constexpr int kVarIteration = 0;
constexpr int kVarGrid = 1;
constexpr std::uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr std::uint64_t kFnvPrime = 0x100000001b3ULL;

struct Options {
    std::string config;
    int iterations = 600;
    int crash_at = -1;  // never
    int level = 1;
    int ckpt_every = 0;  // FTI_Snapshot
    int rows = 256;
    int cols = 256;
};

void usage(std::FILE* out) {
    std::fputs(
        "usage: heatdis_cpp --config FILE [--iterations N] [--crash-at N] [--level 1-4]\n"
        "                   [--ckpt-every K] [--rows R] [--cols C]\n"
        "  --config FILE   mlckpt/FTI configuration file (required)\n"
        "  --iterations N  number of Jacobi steps (default 600)\n"
        "  --crash-at N    SIGKILL rank 1 (rank 0 when alone) after N steps; ignored on a restart\n"
        "  --level L       level of the --ckpt-every checkpoints: 1 to 4 (default 1)\n"
        "  --ckpt-every K  checkpoint every K steps; 0 = snapshot() every step with\n"
        "                  the intervals of the configuration (default 0)\n"
        "  --rows R        rows per rank (default 256)\n"
        "  --cols C        columns per rank (default 256)\n",
        out);
}

// The value of an integer option in [lo, hi]; nullopt (and a message) otherwise.
std::optional<int> parse_int(const std::string& option, const std::string& text, long lo, long hi) {
    char* end = nullptr;
    long v = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || v < lo || v > hi) {
        std::fprintf(stderr, "heatdis: %s '%s': expected an integer from %ld to %ld\n", option.c_str(), text.c_str(),
                     lo, hi);
        return std::nullopt;
    }
    return static_cast<int>(v);
}

// 0: parsed; 1: usage error; 2: --help.
int parse_options(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        const std::string opt = argv[i];
        if (opt == "--help" || opt == "-h") return 2;
        if (i + 1 >= argc) {
            std::fprintf(stderr, "heatdis: %s: unknown option or missing value\n", opt.c_str());
            return 1;
        }
        const std::string val = argv[++i];
        std::optional<int> n = 0;
        if (opt == "--config") {
            o.config = val;
        } else if (opt == "--iterations") {
            if ((n = parse_int(opt, val, 0, 2147483646))) o.iterations = *n;
        } else if (opt == "--crash-at") {
            if ((n = parse_int(opt, val, 0, 2147483646))) o.crash_at = *n;
        } else if (opt == "--level") {
            if ((n = parse_int(opt, val, 1, 4))) o.level = *n;
        } else if (opt == "--ckpt-every") {
            if ((n = parse_int(opt, val, 0, 2147483646))) o.ckpt_every = *n;
        } else if (opt == "--rows") {
            if ((n = parse_int(opt, val, 1, 1 << 20))) o.rows = *n;
        } else if (opt == "--cols") {
            if ((n = parse_int(opt, val, 1, 1 << 20))) o.cols = *n;
        } else {
            std::fprintf(stderr, "heatdis: %s: unknown option\n", opt.c_str());
            return 1;
        }
        if (!n) return 1;
    }
    if (o.config.empty()) {
        std::fprintf(stderr, "heatdis: --config FILE is required\n");
        return 1;
    }
    return 0;
}

std::uint64_t fnv1a(std::uint64_t hash, const void* data, std::size_t len) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t k = 0; k < len; ++k) {
        hash ^= p[k];
        hash *= kFnvPrime;
    }
    return hash;
}

// FNV-1a over the eight bytes of v, least significant first.
std::uint64_t fnv1a_u64(std::uint64_t hash, std::uint64_t v) {
    for (int k = 0; k < 8; ++k) {
        hash ^= (v >> (8 * k)) & 0xffu;
        hash *= kFnvPrime;
    }
    return hash;
}

// The grid of one rank: (rows + 2) x (cols + 2) cells, ghosts included.
class Grid {
  public:
    Grid(int rows, int cols) : rows_(rows), cols_(cols), h_(cells(), 0.0), g_(cells(), 0.0) {}

    double& at(int i, int j) { return h_[index(i, j)]; }
    std::vector<double>& cells_vector() { return h_; }

    // Fills the ghost rows from the neighbours (MPI_PROC_NULL keeps the outer ones).
    void exchange_halos(int up, int down, MPI_Comm comm) {
        const int n = cols_ + 2;
        MPI_Sendrecv(&h_[index(1, 0)], n, MPI_DOUBLE, up, 0, &h_[index(rows_ + 1, 0)], n, MPI_DOUBLE, down, 0, comm,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&h_[index(rows_, 0)], n, MPI_DOUBLE, down, 1, &h_[index(0, 0)], n, MPI_DOUBLE, up, 1, comm,
                     MPI_STATUS_IGNORE);
    }

    // One Jacobi step, in the C example's order of operations.
    void jacobi_step() {
        for (int i = 1; i <= rows_; ++i) {
            for (int j = 1; j <= cols_; ++j) {
                g_[index(i, j)] =
                    0.25 * (h_[index(i - 1, j)] + h_[index(i + 1, j)] + h_[index(i, j - 1)] + h_[index(i, j + 1)]);
            }
        }
        for (int i = 1; i <= rows_; ++i) {
            std::copy_n(&g_[index(i, 1)], cols_, &h_[index(i, 1)]);
        }
    }

    std::uint64_t owned_hash() const {
        std::uint64_t hash = kFnvOffset;
        for (int i = 1; i <= rows_; ++i) {
            hash = fnv1a(hash, &h_[index(i, 1)], static_cast<std::size_t>(cols_) * sizeof(double));
        }
        return hash;
    }
    double owned_max() const {
        double m = 0.0;
        for (int i = 1; i <= rows_; ++i) {
            for (int j = 1; j <= cols_; ++j) m = std::max(m, h_[index(i, j)]);
        }
        return m;
    }

  private:
    std::size_t cells() const { return static_cast<std::size_t>(rows_ + 2) * static_cast<std::size_t>(cols_ + 2); }
    std::size_t index(int i, int j) const {
        return static_cast<std::size_t>(i) * static_cast<std::size_t>(cols_ + 2) + static_cast<std::size_t>(j);
    }

    int rows_;
    int cols_;
    std::vector<double> h_;
    std::vector<double> g_;
};

void say(int rank, const std::string& line) {
    if (rank != 0) return;
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
}

int run(const Options& opt) {
    mlckpt::Session session{opt.config, MPI_COMM_WORLD};
    if (session.is_head()) return EXIT_SUCCESS;  // a head rank: its work is done
    // As in the C example, a relaunch that finds nothing to restart from
    // stops (the exception leaves the checkpoints and [restart] as they are)
    // instead of silently starting over.
    if (session.restart_failed()) {
        throw mlckpt::Error("no checkpoint to restart from", FTI_NREC, session.restart_error());
    }
    MPI_Comm comm = session.comm();
    int rank = 0;
    int nranks = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int down = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;
    const int crash_rank = nranks > 1 ? 1 : 0;

    Grid grid(opt.rows, opt.cols);
    if (rank == 0) {
        for (int j = 0; j < opt.cols + 2; ++j) grid.at(0, j) = kHotBoundary;
    }
    int iteration = 0;
    session.protect(kVarIteration, iteration);
    // The whole array, ghosts included: with the counter, the complete state.
    session.protect(kVarGrid, grid.cells_vector());

    const bool restarting = session.status() != 0;
    const bool use_snapshot = opt.ckpt_every == 0;
    char line[256];
    std::snprintf(line, sizeof line, "heatdis: %d ranks, %d x %d cells per rank (%lld x %d in all), %d iterations, ",
                  nranks, opt.rows, opt.cols, static_cast<long long>(opt.rows) * nranks, opt.cols, opt.iterations);
    std::string head = line;
    if (use_snapshot) {
        head += "FTI_Snapshot every iteration";
    } else {
        std::snprintf(line, sizeof line, "FTI_Checkpoint at L%d every %d iterations", opt.level, opt.ckpt_every);
        head += line;
    }
    say(rank, head);

    if (restarting && !use_snapshot) {
        session.recover();
        say(rank, "heatdis: restarted from iteration " + std::to_string(iteration));
    }
    bool awaiting_snapshot_recovery = restarting && use_snapshot;
    while (iteration < opt.iterations) {
        if (!restarting && iteration == opt.crash_at) {
            // Every rank reaches the crash point, so the previous checkpoint
            // is complete everywhere; then one process dies for real.
            MPI_Barrier(comm);
            if (rank == crash_rank) {
                std::fprintf(stderr, "heatdis: rank %d crashes at iteration %d\n", rank, iteration);
                std::fflush(stderr);
                std::raise(SIGKILL);
            }
        }
        if (use_snapshot) {
            // On a restart the first call recovers; afterwards it checkpoints
            // when an interval of the configuration has elapsed.
            session.snapshot();
            if (awaiting_snapshot_recovery) {
                awaiting_snapshot_recovery = false;
                say(rank, "heatdis: restarted from iteration " + std::to_string(iteration));
                if (iteration >= opt.iterations) break;
            }
        }
        grid.exchange_halos(up, down, comm);
        grid.jacobi_step();
        ++iteration;
        if (!use_snapshot && iteration % opt.ckpt_every == 0 && iteration < opt.iterations) {
            // Checkpoint ids grow with the iteration, across restarts too.
            session.checkpoint(iteration / opt.ckpt_every, static_cast<mlckpt::Level>(opt.level));
        }
    }

    // Result: hash of every rank's owned cells, combined in rank order, and
    // the hottest cell of the whole grid.
    std::uint64_t local_hash = grid.owned_hash();
    double local_max = grid.owned_max();
    std::vector<std::uint64_t> hashes(rank == 0 ? static_cast<std::size_t>(nranks) : 0);
    MPI_Gather(&local_hash, 1, MPI_UINT64_T, hashes.data(), 1, MPI_UINT64_T, 0, comm);
    double global_max = 0.0;
    MPI_Reduce(&local_max, &global_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank == 0) {
        std::uint64_t checksum = kFnvOffset;
        for (std::uint64_t h : hashes) checksum = fnv1a_u64(checksum, h);
        std::snprintf(line, sizeof line, "heatdis: result iterations=%d checksum=%016llx max=%.10f", iteration,
                      static_cast<unsigned long long>(checksum), global_max);
        say(rank, line);
    }
    session.finalize();
    return EXIT_SUCCESS;
}

}  // namespace

int main(int argc, char** argv) {
    Options opt;
    int parsed = parse_options(argc, argv, opt);
    if (parsed == 2) {
        usage(stdout);
        return EXIT_SUCCESS;
    }
    if (parsed != 0) {
        usage(stderr);
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rc = EXIT_FAILURE;
    try {
        rc = run(opt);
    } catch (const std::exception& e) {
        // The session was destroyed by the exception without FTI_Finalize,
        // so the checkpoints stay for a relaunch. Another rank may be
        // waiting in a collective call: stop the whole job.
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        std::fprintf(stderr, "heatdis: rank %d: %s\n", rank, e.what());
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
    }
    MPI_Finalize();
    return rc;
}
