// The SCR application of the power-loss crash-point tests (crash_points.py
// --interface scr): it writes its own files, as SCR applications do, and
// goes through scr.h only.
//
//   scr_powerloss_app write ROOT KIND DATASETS STATE_DIR CONTROL ARM
//   scr_powerloss_app restart|restart-stay ROOT KIND DATASETS STATE_DIR EXPECTED
//
// ROOT holds SCR's prefix (ROOT/prefix) and cache (ROOT/cache, a folder per
// simulated node of 2 ranks). KIND: 1 SINGLE, 2 PARTNER, 3 XOR (SCR_COPY_TYPE,
// the cache only), 4 SINGLE with every dataset flushed to the prefix
// (SCR_FLUSH = 1). The arguments and STATE_DIR's records are those of
// powerloss_app.cpp: write records every dataset whose SCR_Complete_output
// returned SCR_SUCCESS (after a plain fopen, fwrite, fclose of the files:
// no fsync, as applications write them) in committed.<rank>, arms the cut
// before the last, then computes on; restart must load dataset EXPECTED or
// a newer one with every byte right (restart-stay records it in
// restarted.<rank> and computes on).
#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "app_records.hpp"
#include "scr.h"

namespace {

int g_rank = 0;

[[noreturn]] void die(const std::string& what) {
    powerloss::abort_job("scr_powerloss_app", g_rank, what);
}

std::vector<char> content(int dataset, int rank) {
    std::vector<char> out(30000 + 4099 * static_cast<std::size_t>(rank % 4) + 7 * rank);
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = static_cast<char>(
            (i * 131 + static_cast<std::size_t>(rank) * 17 + static_cast<std::size_t>(dataset) * 7 + (i >> 9)) & 0xff);
    }
    return out;
}

std::string dataset_name(int dataset) {
    return "ckpt." + std::to_string(dataset);
}

std::string file_of(const std::string& root, int dataset, int rank) {
    return root + "/prefix/" + dataset_name(dataset) + "/rank_" + std::to_string(rank) + ".dat";
}

void record(const std::string& state_dir, const char* what, int number) {
    if (!powerloss::record(state_dir, what, g_rank, number)) die("cannot write to the state folder");
}

void configure(const std::string& root, int kind) {
    const char* copy = kind == 2 ? "PARTNER" : kind == 3 ? "XOR" : "SINGLE";
    const std::string settings[] = {"SCR_PREFIX=" + root + "/prefix",
                                    "SCR_CACHE_BASE=" + root + "/cache",
                                    "MLCKPT_NODE_SIZE=2",
                                    "SCR_COPY_TYPE=" + std::string(copy),
                                    "SCR_SET_SIZE=2",
                                    "SCR_CACHE_BYPASS=0",
                                    "SCR_CACHE_SIZE=2",
                                    std::string("SCR_FLUSH=") + (kind == 4 ? "1" : "0")};
    for (const std::string& s : settings) {
        if (SCR_Config(s.c_str()) != nullptr) die("SCR_Config(" + s + ") failed");
    }
    if (SCR_Init() != SCR_SUCCESS) die("SCR_Init failed");
}

// One dataset: the file written through its routed path, then committed.
bool write_dataset(const std::string& root, int dataset) {
    if (SCR_Start_output(dataset_name(dataset).c_str(), SCR_FLAG_CHECKPOINT) != SCR_SUCCESS) return false;
    char path[SCR_MAX_FILENAME];
    bool ok = SCR_Route_file(file_of(root, dataset, g_rank).c_str(), path) == SCR_SUCCESS;
    if (ok) {
        const std::vector<char> data = content(dataset, g_rank);
        FILE* f = std::fopen(path, "wb");
        ok = f != nullptr && std::fwrite(data.data(), 1, data.size(), f) == data.size();
        if (f != nullptr) ok = std::fclose(f) == 0 && ok;
    }
    return SCR_Complete_output(ok ? 1 : 0) == SCR_SUCCESS && ok;
}

int restart(const std::string& root, int datasets, int expected, int& loaded) {
    int flag = 0;
    char name[SCR_MAX_FILENAME] = {};
    if (SCR_Have_restart(&flag, name) != SCR_SUCCESS) die("SCR_Have_restart failed");
    loaded = 0;
    if (flag == 0) {
        if (expected == 0) return 0;
        std::fprintf(stderr, "scr_powerloss_app: rank %d: no restart, while dataset %d had been committed\n", g_rank,
                     expected);
        return 1;
    }
    if (SCR_Start_restart(name) != SCR_SUCCESS) die("SCR_Start_restart failed");
    loaded = std::atoi(name + std::strlen("ckpt."));
    char path[SCR_MAX_FILENAME];
    bool ok = SCR_Route_file(file_of(root, loaded, g_rank).c_str(), path) == SCR_SUCCESS;
    std::vector<char> read;
    if (ok) {
        FILE* f = std::fopen(path, "rb");
        ok = f != nullptr;
        if (ok) {
            char buf[65536];
            std::size_t n;
            while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) read.insert(read.end(), buf, buf + n);
            std::fclose(f);
        }
    }
    const bool right = ok && read == content(loaded, g_rank);
    if (SCR_Complete_restart(right ? 1 : 0) != SCR_SUCCESS || !right) {
        std::fprintf(stderr, "scr_powerloss_app: rank %d: dataset %s %s\n", g_rank, name,
                     ok ? "read back with wrong bytes" : "cannot be read through SCR_Route_file");
        return 1;
    }
    if (loaded < expected || loaded > datasets) {
        std::fprintf(stderr, "scr_powerloss_app: rank %d: restarted from dataset %d; allowed: %d to %d\n", g_rank,
                     loaded, expected, datasets);
        return 1;
    }
    if (g_rank == 0) std::printf("scr_powerloss_app: restarted from dataset %d (committed: %d)\n", loaded, expected);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    const std::string mode = argc > 1 ? argv[1] : "";
    const bool writing = mode == "write" && argc == 8;
    const bool restarting = (mode == "restart" || mode == "restart-stay") && argc == 7;
    if (!writing && !restarting) {
        std::fprintf(stderr,
                     "usage: scr_powerloss_app write ROOT KIND DATASETS STATE_DIR CONTROL ARM\n"
                     "       scr_powerloss_app restart|restart-stay ROOT KIND DATASETS STATE_DIR EXPECTED\n");
        return 2;
    }
    const std::string root = argv[2];
    const int kind = std::atoi(argv[3]);
    const int datasets = std::atoi(argv[4]);
    const std::string state_dir = argv[5];
    configure(root, kind);
    int failed = 0;
    if (writing) {
        for (int d = 1; d <= datasets && failed == 0; ++d) {
            if (d == datasets) {
                MPI_Barrier(MPI_COMM_WORLD);
                const long arm = std::atol(argv[7]);
                if (g_rank == 0 && !powerloss::control(argv[6], powerloss::arm_commands(arm))) {
                    die("cannot write the power-loss file system's control file");
                }
                MPI_Barrier(MPI_COMM_WORLD);
            }
            if (write_dataset(root, d)) {
                record(state_dir, "committed", d);
            } else {
                std::fprintf(stderr, "scr_powerloss_app: rank %d: dataset %d failed\n", g_rank, d);
                failed = 1;
            }
        }
        if (failed == 0) {
            for (;;) ::pause();  // until the power cut's kill
        }
    } else {
        int loaded = 0;
        failed = restart(root, datasets, std::atoi(argv[6]), loaded);
        if (mode == "restart-stay" && failed == 0) {
            record(state_dir, "restarted", loaded);
            for (;;) ::pause();
        }
    }
    int any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    SCR_Finalize();
    MPI_Finalize();
    return any_failed;
}
