// scaling_bench: the control path of checkpoint and restart as the number of
// ranks grows, or as the checkpoints and the protected variables add up,
// with so little data that only the control path is measured; driven by
// bench/run_bench.py --scaling and --long-runs. It uses nothing but fti.h,
// so the same source also builds against FTI.
//
//   scaling_bench CONFIG --phase write|restart --level L[,L...] --checkpoints K
//                 --vars V --bytes B --out FILE [--finalize] [--trace]
//
// write: FTI_Init, V protected variables of B bytes per rank, K checkpoints
// at level L (with a list, checkpoint k at its (k-1) mod n-th level); then
// MPI_Finalize without FTI_Finalize (a crash, as FTI's own tests end),
// unless --finalize (heads only leave FTI_Init at FTI_Finalize: the config
// then keeps the last checkpoint). restart: FTI_Init (which selects and
// checks the checkpoint), FTI_Recover, the data checked, and FTI_Finalize.
// Each phase is timed on every rank, and rank 0 appends one JSON object with
// the slowest rank's times and the peak resident memory per rank to FILE.
// With --trace it also records, after every checkpoint, the most any rank
// holds from malloc, its resident set and its open descriptors: what a long
// run accumulates. Run under bench/fs_op_counter.c, the phases also split
// the file-system operations it counts (with --trace the second half of the
// checkpoints apart from the first: "checkpoint_late"), and heads (which
// never leave FTI_Init) count under the application's phase and record what
// they hold after each checkpoint. Asked to count (MLCKPT_COUNT_DIR set)
// without the counter loaded, it fails.
#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "fti.h"
#include "system_stats.hpp"

namespace {

struct Options {
    std::string config;
    std::string phase;
    std::vector<int> levels;
    int checkpoints = 1;
    int vars = 1;
    std::size_t bytes = 1024;
    std::string out;
    bool finalize = false;
    bool trace = false;
};

// "1" or "1,2,3,4".
std::vector<int> parse_levels(const std::string& text) {
    std::vector<int> out;
    std::istringstream in(text);
    for (std::string item; std::getline(in, item, ',');) out.push_back(static_cast<int>(std::stol(item)));
    return out;
}

bool parse(int argc, char** argv, Options& o) {
    if (argc < 2) return false;
    o.config = argv[1];
    mlckpt::bench::CommandLine line;
    if (!mlckpt::bench::parse_command_line(argc, argv, 2, {"finalize", "trace"}, line)) return false;
    o.finalize = line.switches.count("finalize") != 0;
    o.trace = line.switches.count("trace") != 0;
    // Every option is required; a missing one or a number that is none fails.
    auto count = [&](const char* option) { return static_cast<int>(std::stol(line.values.at(option))); };
    try {
        o.phase = line.values.at("phase");
        o.out = line.values.at("out");
        o.levels = parse_levels(line.values.at("level"));
        o.checkpoints = count("checkpoints");
        o.vars = count("vars");
        o.bytes = static_cast<std::size_t>(std::stoul(line.values.at("bytes")));
    } catch (const std::exception&) {
        return false;
    }
    return (o.phase == "write" || o.phase == "restart") && o.vars > 0 && o.checkpoints > 0 && !o.levels.empty();
}

// The file-system operation counter (bench/fs_op_counter.c), when it is
// preloaded. Asked to count ($MLCKPT_COUNT_DIR) without it, the program
// fails: counts of nothing must not pass for counts of zero.
struct Counter {
    void (*mark)(const char*) = nullptr;
    void (*sample)() = nullptr;
};

const Counter& counter() {
    static const Counter c{reinterpret_cast<void (*)(const char*)>(dlsym(RTLD_DEFAULT, "mlckpt_count_phase")),
                           reinterpret_cast<void (*)()>(dlsym(RTLD_DEFAULT, "mlckpt_count_sample"))};
    return c;
}

bool counter_missing() {
    return std::getenv("MLCKPT_COUNT_DIR") != nullptr && (counter().mark == nullptr || counter().sample == nullptr);
}

// Starts a phase of the counter.
void count_phase(const char* name) {
    if (counter().mark != nullptr) counter().mark(name);
}

// Asks the processes that mark no phase (heads) to record what they hold.
void count_sample() {
    if (counter().sample != nullptr) counter().sample();
}

// The value of byte i of variable v of application rank r after checkpoint k.
unsigned char content(int r, int v, std::size_t i, int k) {
    return static_cast<unsigned char>((r * 131 + v * 31 + static_cast<int>(i % 251) + k * 7) & 0xff);
}

double slowest(double seconds, MPI_Comm comm) {
    double out = 0;
    MPI_Reduce(&seconds, &out, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    return out;
}

struct Memory {
    double max_mib = 0;
    double median_mib = 0;
    double rank0_mib = 0;
};

Memory peak_memory(MPI_Comm comm) {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double mine = static_cast<double>(mlckpt::bench::peak_resident_bytes()) / (1 << 20);
    std::vector<double> all(static_cast<std::size_t>(size));
    MPI_Gather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, comm);
    Memory m;
    if (rank == 0) {
        m.rank0_mib = all[0];
        std::sort(all.begin(), all.end());
        m.max_mib = all.back();
        m.median_mib = all[all.size() / 2];
    }
    return m;
}

// What a process holds after a checkpoint, the most of any rank.
struct Holdings {
    std::vector<double> heap_mib;
    std::vector<double> rss_mib;
    std::vector<double> descriptors;

    // Reserved up front, so that the record's own growth is not counted.
    void reserve(int checkpoints) {
        for (auto* v : {&heap_mib, &rss_mib, &descriptors}) v->reserve(static_cast<std::size_t>(checkpoints));
    }

    void sample(MPI_Comm comm) {
        const double mine[3] = {static_cast<double>(mlckpt::bench::heap_in_use_bytes()) / (1 << 20),
                                static_cast<double>(mlckpt::bench::resident_bytes()) / (1 << 20),
                                static_cast<double>(mlckpt::bench::open_descriptors())};
        double most[3] = {0, 0, 0};
        MPI_Reduce(mine, most, 3, MPI_DOUBLE, MPI_MAX, 0, comm);
        heap_mib.push_back(most[0]);
        rss_mib.push_back(most[1]);
        descriptors.push_back(most[2]);
    }
};

template <typename T>
std::string join(const std::vector<T>& v) {
    std::ostringstream out;
    for (std::size_t i = 0; i < v.size(); ++i) out << (i ? ", " : "") << v[i];
    return out.str();
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    Options o;
    if (!parse(argc, argv, o)) {
        std::cerr << "usage: scaling_bench CONFIG --phase write|restart --level L[,L...] --checkpoints K --vars V "
                     "--bytes B --out FILE [--finalize] [--trace]\n";
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (counter_missing()) {
        std::cerr << "scaling_bench: MLCKPT_COUNT_DIR is set but the counter (libfs_op_counter.so) is not loaded: "
                     "preload it with LD_PRELOAD\n";
        MPI_Abort(MPI_COMM_WORLD, 7);
    }
    int world = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &world);

    count_phase("init");
    double t = MPI_Wtime();
    if (FTI_Init(o.config.c_str(), MPI_COMM_WORLD) != FTI_SCES) MPI_Abort(MPI_COMM_WORLD, 3);
    const double init_s = MPI_Wtime() - t;
    // Heads never return from FTI_Init: the application ranks report, over
    // a communicator of their own that outlives FTI_Finalize.
    MPI_Comm app = MPI_COMM_NULL;
    MPI_Comm_dup(FTI_COMM_WORLD, &app);
    int rank = 0;
    int ranks = 0;
    MPI_Comm_rank(app, &rank);
    MPI_Comm_size(app, &ranks);

    std::vector<std::vector<unsigned char>> data(static_cast<std::size_t>(o.vars), std::vector<unsigned char>(o.bytes));
    for (int v = 0; v < o.vars; ++v) {
        FTI_Protect(v, data[static_cast<std::size_t>(v)].data(), static_cast<long>(o.bytes), FTI_CHAR);
    }

    std::vector<double> checkpoint_s;
    Holdings holdings;
    checkpoint_s.reserve(static_cast<std::size_t>(o.checkpoints));
    holdings.reserve(o.checkpoints);
    double recover_s = 0;
    double finalize_s = 0;
    bool correct = true;
    if (o.phase == "write") {
        count_phase("checkpoint");
        for (int k = 1; k <= o.checkpoints; ++k) {
            for (int v = 0; v < o.vars; ++v) {
                for (std::size_t i = 0; i < o.bytes; ++i) data[static_cast<std::size_t>(v)][i] = content(rank, v, i, k);
            }
            if (o.trace && k == o.checkpoints / 2 + 1) count_phase("checkpoint_late");
            t = MPI_Wtime();
            const int level = o.levels[static_cast<std::size_t>(k - 1) % o.levels.size()];
            if (FTI_Checkpoint(k, level) != FTI_DONE) MPI_Abort(MPI_COMM_WORLD, 4);
            checkpoint_s.push_back(slowest(MPI_Wtime() - t, app));
            if (o.trace) {
                holdings.sample(app);
                if (rank == 0) count_sample();  // one sample per checkpoint, whatever the ranks
            }
        }
    } else {
        if (FTI_Status() == 0) MPI_Abort(MPI_COMM_WORLD, 5);
        count_phase("recover");
        t = MPI_Wtime();
        if (FTI_Recover() != FTI_SCES) MPI_Abort(MPI_COMM_WORLD, 6);
        recover_s = MPI_Wtime() - t;
        for (int v = 0; v < o.vars; ++v) {
            for (std::size_t i = 0; i < o.bytes; ++i) {
                correct = correct && data[static_cast<std::size_t>(v)][i] == content(rank, v, i, o.checkpoints);
            }
        }
    }
    const Memory memory = peak_memory(app);
    const double init_max = slowest(init_s, app);
    const double recover_max = slowest(recover_s, app);
    int wrong = correct ? 0 : 1;
    int wrong_ranks = 0;
    MPI_Reduce(&wrong, &wrong_ranks, 1, MPI_INT, MPI_SUM, 0, app);
    if (o.phase == "restart" || o.finalize) {
        count_phase("finalize");
        t = MPI_Wtime();
        FTI_Finalize();
        finalize_s = MPI_Wtime() - t;
    }
    count_phase("end");
    const double finalize_max = slowest(finalize_s, app);
    MPI_Comm_free(&app);
    if (rank == 0) {
        std::ofstream out(o.out, std::ios::app);
        out << "{\"phase\": \"" << o.phase << "\", \"world\": " << world << ", \"ranks\": " << ranks
            << ", \"levels\": [" << join(o.levels) << "]"
            << ", \"vars\": " << o.vars << ", \"bytes\": " << o.bytes << ", \"checkpoints\": " << o.checkpoints
            << ", \"init_s\": " << init_max << ", \"checkpoint_s\": [" << join(checkpoint_s)
            << "], \"recover_s\": " << recover_max << ", \"finalize_s\": " << finalize_max
            << ", \"peak_rss_mib_max\": " << memory.max_mib << ", \"peak_rss_mib_median\": " << memory.median_mib
            << ", \"peak_rss_mib_rank0\": " << memory.rank0_mib << ", \"wrong_ranks\": " << wrong_ranks;
        if (o.trace) {
            out << ", \"heap_mib\": [" << join(holdings.heap_mib) << "], \"rss_mib\": [" << join(holdings.rss_mib)
                << "], \"descriptors\": [" << join(holdings.descriptors) << "]";
        }
        out << "}\n";
    }
    MPI_Finalize();
    return rank != 0 || wrong_ranks == 0 ? 0 : 1;
}
