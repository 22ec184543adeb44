// The application of the power-loss crash-point tests (crash_points.py).
// It goes through fti.h only, as an FTI application does.
//
//   powerloss_app write|write-finalize CONFIG LEVEL CHECKPOINTS STATE_DIR CONTROL ARM
//   powerloss_app restart|restart-stay CONFIG LEVEL CHECKPOINTS STATE_DIR EXPECTED
//
// write: checkpoints 1 .. CHECKPOINTS at LEVEL (1 to 4, 8: FTI_L4_DCP,
// the first of them then written whole, or 9: FTI_L4_H5_SINGLE, the
// global HDF5 file, whose restart the harness asks for with failure = 3), each of data made from the
// rank and the checkpoint's number. Before the last one, rank 0 sets the
// power-loss file system's operation counter back to 0 through its control
// file CONTROL and, when ARM > 0, arms the power cut after ARM operations.
// Each rank appends the number of every checkpoint whose FTI_Checkpoint
// returned success to STATE_DIR/committed.<rank>, made durable before the
// next step (STATE_DIR is not on the file system that loses power): what
// the application knew was safe when the power went. Then the ranks go on
// "computing" (they sleep) until they are killed: FTI_Finalize would end
// the execution, which removes its checkpoints. write-finalize calls
// FTI_Finalize and exits instead (with keep_last_ckpt, which keeps the
// last checkpoint for the next execution).
//
// With MLCKPT_POWERLOSS_ICP=1 in the environment, each checkpoint is taken
// incrementally (FTI_InitICP, FTI_AddVarICP, FTI_FinalizeICP). With
// MLCKPT_POWERLOSS_SNAPSHOT=1 (the configuration says async_snapshot = 1),
// FTI_Checkpoint returns before its checkpoint is recoverable, and settles
// the previous one first (docs/levels.md, In-memory snapshots): checkpoint
// N - 1 is recorded when FTI_Checkpoint(N) returns, and the last one once
// FTI_WaitBackground has returned. With MLCKPT_POWERLOSS_STAGE=1
// (enable_staging = 1), each rank stages an output file before each
// checkpoint, and the restart checks them (staged_outputs.hpp).
//
// restart: must restart from checkpoint EXPECTED or a newer one, with every
// byte of every rank's data what that checkpoint held. Exit code 0 when it
// does; 1 with the reason otherwise. restart-stay: the same, but once it
// has, each rank appends the checkpoint's number to STATE_DIR/restarted.<rank>
// and the ranks go on computing until they are killed (a power cut during
// the restart's own work, and after it).
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app_records.hpp"
#include "fti.h"
#include "staged_outputs.hpp"

namespace {

struct Arguments {
    std::string mode;
    std::string config;
    int level = 0;
    int checkpoints = 0;
    std::string state_dir;
    std::string control;    // write
    long arm = 0;           // write
    int expected = 0;       // restart
    bool icp = false;       // MLCKPT_POWERLOSS_ICP=1: checkpoints through FTI_InitICP
    bool snapshot = false;  // MLCKPT_POWERLOSS_SNAPSHOT=1: async_snapshot = 1
    bool stage = false;     // MLCKPT_POWERLOSS_STAGE=1: outputs staged with FTI_SendFile
};

[[noreturn]] void usage() {
    std::fprintf(stderr,
                 "usage: powerloss_app write|write-finalize CONFIG LEVEL CHECKPOINTS STATE_DIR CONTROL ARM\n"
                 "       powerloss_app restart|restart-stay CONFIG LEVEL CHECKPOINTS STATE_DIR EXPECTED\n");
    std::exit(2);
}

Arguments parse(int argc, char** argv) {
    if (argc < 2) usage();
    Arguments a;
    a.mode = argv[1];
    if ((a.mode == "write" || a.mode == "write-finalize") && argc == 8) {
        a.control = argv[6];
        a.arm = std::atol(argv[7]);
    } else if ((a.mode == "restart" || a.mode == "restart-stay") && argc == 7) {
        a.expected = std::atoi(argv[6]);
    } else {
        usage();
    }
    a.config = argv[2];
    a.level = std::atoi(argv[3]);
    a.checkpoints = std::atoi(argv[4]);
    a.state_dir = argv[5];
    const char* icp = std::getenv("MLCKPT_POWERLOSS_ICP");
    a.icp = icp != nullptr && std::string(icp) == "1";
    const char* snapshot = std::getenv("MLCKPT_POWERLOSS_SNAPSHOT");
    a.snapshot = snapshot != nullptr && std::string(snapshot) == "1";
    const char* stage = std::getenv("MLCKPT_POWERLOSS_STAGE");
    a.stage = stage != nullptr && std::string(stage) == "1";
    if (!(a.level >= 1 && a.level <= 4) && a.level != FTI_L4_DCP && a.level != FTI_L4_H5_SINGLE) usage();
    if (a.checkpoints < 1) usage();
    return a;
}

// The folder of the configuration file: the power-loss mount's root.
std::string root_of(const Arguments& a) {
    const auto slash = a.config.rfind('/');
    return slash == std::string::npos ? std::string(".") : a.config.substr(0, slash);
}

// The data of `rank` at checkpoint `number`: a size of its own per rank
// (files of different sizes, and writes that end inside a page), bytes
// that differ between ranks and checkpoints.
std::size_t payload_size(int rank) {
    return 40 * 1024 + 4096 * static_cast<std::size_t>(rank % 4) + 123 * rank + 1;
}

std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// The first half depends on the rank alone, the rest on the checkpoint's
// number too: a differential checkpoint has blocks to skip and to write.
void fill(std::vector<unsigned char>& data, int rank, int number) {
    const std::uint64_t fixed = mix(static_cast<std::uint64_t>(rank) << 32);
    const std::uint64_t changing = mix((static_cast<std::uint64_t>(rank) << 32) | static_cast<std::uint32_t>(number));
    for (std::size_t i = 0; i < data.size(); i += 8) {
        const std::uint64_t word = mix((i < data.size() / 2 ? fixed : changing) + i);
        std::memcpy(data.data() + i, &word, std::min<std::size_t>(8, data.size() - i));
    }
}

[[noreturn]] void die(const std::string& what) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    powerloss::abort_job("powerloss_app", rank, what);
}

// FTI_L4_H5_SINGLE: the checkpoint's number and every rank's data as two
// global datasets, each rank a subset of each (after FTI_Protect).
void declare_global_datasets(int rank, int ranks) {
    FTIT_hsize_t number_dims[1] = {static_cast<FTIT_hsize_t>(ranks)};
    FTIT_hsize_t payload_dims[1] = {0};
    FTIT_hsize_t offset = 0;
    for (int r = 0; r < ranks; ++r) {
        if (r == rank) offset = payload_dims[0];
        payload_dims[0] += payload_size(r);
    }
    FTIT_hsize_t number_offset[1] = {static_cast<FTIT_hsize_t>(rank)};
    FTIT_hsize_t one[1] = {1};
    FTIT_hsize_t payload_offset[1] = {offset};
    FTIT_hsize_t payload_count[1] = {payload_size(rank)};
    if (FTI_DefineGlobalDataset(0, 1, number_dims, "number", nullptr, FTI_INTG) != FTI_SCES ||
        FTI_DefineGlobalDataset(1, 1, payload_dims, "payload", nullptr, FTI_CHAR) != FTI_SCES ||
        FTI_AddSubset(0, 1, number_offset, one, 0) != FTI_SCES ||
        FTI_AddSubset(1, 1, payload_offset, payload_count, 1) != FTI_SCES) {
        die("cannot declare the global datasets");
    }
}

void record(const std::string& state_dir, const char* what, int rank, int number) {
    if (!powerloss::record(state_dir, what, rank, number)) die("cannot write to the state folder");
}

// FTI_InitICP, a variable at a time, FTI_FinalizeICP: FTI_DONE when the
// checkpoint is taken.
int checkpoint_incrementally(int number, int level) {
    if (FTI_InitICP(number, level, 1) != FTI_SCES) return FTI_NSCS;
    for (int id : {0, 1}) {
        if (FTI_AddVarICP(id) != FTI_SCES) return FTI_NSCS;
    }
    return FTI_FinalizeICP();
}

int write_run(const Arguments& a, int rank, std::vector<unsigned char>& payload, int& number) {
    for (int n = 1; n <= a.checkpoints; ++n) {
        number = n;
        fill(payload, rank, n);
        if (n == a.checkpoints) {
            MPI_Barrier(FTI_COMM_WORLD);
            if (rank == 0 && !powerloss::control(a.control, powerloss::arm_commands(a.arm))) {
                die("cannot write the power-loss file system's control file");
            }
            MPI_Barrier(FTI_COMM_WORLD);
        }
        if (std::string why; a.stage && !powerloss::stage_output(root_of(a), a.state_dir, rank, n, why)) die(why);
        const int rc = a.icp ? checkpoint_incrementally(n, a.level) : FTI_Checkpoint(n, a.level);
        // FTI_L4_H5_SINGLE returns FTI_SCES, as FTI's does: no level's checkpoint is taken.
        if (rc != (a.level == FTI_L4_H5_SINGLE ? FTI_SCES : FTI_DONE)) {
            std::fprintf(stderr, "powerloss_app: rank %d: checkpoint %d at level %d%s returned %d\n", rank, n, a.level,
                         a.icp ? " (FTI_FinalizeICP)" : "", rc);
            return 1;
        }
        if (!a.snapshot) {
            record(a.state_dir, "committed", rank, n);
            continue;
        }
        if (n > 1) record(a.state_dir, "committed", rank, n - 1);
        if (n == a.checkpoints) {
            if (const int waited = FTI_WaitBackground(); waited != FTI_SCES) {
                std::fprintf(stderr, "powerloss_app: rank %d: FTI_WaitBackground after checkpoint %d returned %d\n",
                             rank, n, waited);
                return 1;
            }
            record(a.state_dir, "committed", rank, n);
        }
    }
    return 0;
}

int restart_run(const Arguments& a, int rank, std::vector<unsigned char>& payload, int& number) {
    if (FTI_Status() == 0) {
        if (a.expected == 0) return 0;
        std::fprintf(stderr, "powerloss_app: rank %d: a fresh start, while checkpoint %d had been committed\n", rank,
                     a.expected);
        return 1;
    }
    number = -1;
    const int rc = FTI_Recover();
    if (rc != FTI_SCES) {
        std::fprintf(stderr, "powerloss_app: rank %d: FTI_Recover returned %d (checkpoint %d had been committed)\n",
                     rank, rc, a.expected);
        return 1;
    }
    if (number < a.expected || number > a.checkpoints) {
        std::fprintf(stderr, "powerloss_app: rank %d: recovered checkpoint %d; allowed: %d to %d\n", rank, number,
                     a.expected, a.checkpoints);
        return 1;
    }
    std::vector<unsigned char> wanted(payload.size());
    fill(wanted, rank, number);
    if (payload != wanted) {
        std::size_t first = 0;
        while (payload[first] == wanted[first]) ++first;
        std::fprintf(stderr,
                     "powerloss_app: rank %d: checkpoint %d recovered with wrong data (first at byte %zu of %zu)\n",
                     rank, number, first, payload.size());
        return 1;
    }
    int lowest = 0;
    int highest = 0;
    MPI_Allreduce(&number, &lowest, 1, MPI_INT, MPI_MIN, FTI_COMM_WORLD);
    MPI_Allreduce(&number, &highest, 1, MPI_INT, MPI_MAX, FTI_COMM_WORLD);
    if (lowest != highest) {
        std::fprintf(stderr, "powerloss_app: ranks recovered different checkpoints (%d to %d)\n", lowest, highest);
        return 1;
    }
    if (rank == 0) std::printf("powerloss_app: recovered checkpoint %d (committed: %d)\n", number, a.expected);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const Arguments a = parse(argc, argv);
    if (FTI_Init(a.config.c_str(), MPI_COMM_WORLD) != FTI_SCES) die("FTI_Init failed");
    int rank = 0;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    int number = 0;
    std::vector<unsigned char> payload(payload_size(rank));
    FTI_Protect(0, &number, 1, FTI_INTG);
    FTI_Protect(1, payload.data(), static_cast<std::int64_t>(payload.size()), FTI_CHAR);
    if (a.level == FTI_L4_H5_SINGLE) {
        int ranks = 0;
        MPI_Comm_size(FTI_COMM_WORLD, &ranks);
        declare_global_datasets(rank, ranks);
    }
    const bool restart = a.mode.rfind("restart", 0) == 0;
    int failed = restart ? restart_run(a, rank, payload, number) : write_run(a, rank, payload, number);
    if (restart && a.stage) {
        if (const std::string problem = powerloss::check_staged_outputs(root_of(a), a.state_dir, rank, a.checkpoints);
            !problem.empty()) {
            std::fprintf(stderr, "powerloss_app: rank %d: %s\n", rank, problem.c_str());
            failed = 1;
        }
    }
    if (a.mode == "restart-stay" && failed == 0) record(a.state_dir, "restarted", rank, number);
    if ((a.mode == "write" || a.mode == "restart-stay") && failed == 0) {
        for (;;) ::pause();  // until the power cut's kill
    }
    int any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, FTI_COMM_WORLD);
    FTI_Finalize();
    MPI_Finalize();
    return any_failed;
}
