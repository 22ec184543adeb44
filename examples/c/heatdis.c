/*
 * heatdis.c - 2-D heat distribution (Jacobi iteration) protected by mlckpt.
 *
 * The global grid is split into blocks of rows, one block per application
 * rank of FTI_COMM_WORLD. Every rank owns `rows` x `cols` cells and keeps
 * one ghost row above and below (filled from its neighbours before every
 * step) and one ghost column left and right (held at 0.0). The ghost row
 * above rank 0 is the hot boundary, held at 100.0; every other cell starts
 * at 0.0.
 *
 * The iteration counter and the grid are protected, so a run killed at any
 * point and relaunched with the same command continues from the newest
 * checkpoint and ends with a grid identical, bit for bit, to the one of an
 * uninterrupted run.
 *
 * Usage:
 *   heatdis --config FILE [--iterations N] [--crash-at N] [--level 1-4]
 *           [--ckpt-every K] [--rows R] [--cols C]
 *
 *   --config FILE   mlckpt/FTI configuration file (required)
 *   --iterations N  number of Jacobi steps (default 600)
 *   --crash-at N    kill one rank with SIGKILL when N steps are done
 *                   (rank 1, or rank 0 when alone); ignored on a restart
 *   --level L       checkpoint level for --ckpt-every: 1 to 4 (default 1)
 *   --ckpt-every K  checkpoint with FTI_Checkpoint every K steps; 0 (the
 *                   default) calls FTI_Snapshot every step instead, which
 *                   checkpoints at the intervals of the configuration
 *   --rows R        rows per rank (default 256)
 *   --cols C        columns per rank (default 256)
 *
 * At the end rank 0 prints one line:
 *   heatdis: result iterations=<N> checksum=<16 hex digits> max=<max value>
 * where the checksum is a 64-bit FNV-1a hash of the per-rank hashes (in
 * rank order) of the raw bytes of each rank's cells.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fti.h"

#define HOT_BOUNDARY 100.0

/* Variable ids given to FTI_Protect. */
enum { VAR_ITERATION = 0, VAR_GRID = 1 };

typedef struct {
    const char* config;
    int iterations;
    int crash_at; /* -1: never */
    int level;
    int ckpt_every; /* 0: FTI_Snapshot */
    int rows;
    int cols;
} Options;

static void usage(FILE* out) {
    fprintf(out,
            "usage: heatdis --config FILE [--iterations N] [--crash-at N] [--level 1-4]\n"
            "               [--ckpt-every K] [--rows R] [--cols C]\n"
            "  --config FILE   mlckpt/FTI configuration file (required)\n"
            "  --iterations N  number of Jacobi steps (default 600)\n"
            "  --crash-at N    SIGKILL rank 1 (rank 0 when alone) after N steps; ignored on a "
            "restart\n"
            "  --level L       level of the --ckpt-every checkpoints: 1 to 4 (default 1)\n"
            "  --ckpt-every K  FTI_Checkpoint every K steps; 0 = FTI_Snapshot every step with\n"
            "                  the intervals of the configuration (default 0)\n"
            "  --rows R        rows per rank (default 256)\n"
            "  --cols C        columns per rank (default 256)\n");
}

/* Parses an integer in [lo, hi]; returns 0 on success. */
static int parse_int(const char* option, const char* text, int lo, int hi, int* out) {
    char* end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (text[0] == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi) {
        fprintf(stderr, "heatdis: %s '%s': expected an integer from %d to %d\n", option, text, lo, hi);
        return 1;
    }
    *out = (int)v;
    return 0;
}

/* Returns 0 on success, 1 on a usage error, 2 when --help was given. */
static int parse_options(int argc, char** argv, Options* o) {
    o->config = NULL;
    o->iterations = 600;
    o->crash_at = -1;
    o->level = 1;
    o->ckpt_every = 0;
    o->rows = 256;
    o->cols = 256;
    for (int i = 1; i < argc; ++i) {
        const char* opt = argv[i];
        if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) return 2;
        if (i + 1 >= argc) {
            fprintf(stderr, "heatdis: %s: unknown option or missing value\n", opt);
            return 1;
        }
        const char* val = argv[++i];
        int rc = 0;
        if (strcmp(opt, "--config") == 0) {
            o->config = val;
        } else if (strcmp(opt, "--iterations") == 0) {
            rc = parse_int(opt, val, 0, INT_MAX - 1, &o->iterations);
        } else if (strcmp(opt, "--crash-at") == 0) {
            rc = parse_int(opt, val, 0, INT_MAX - 1, &o->crash_at);
        } else if (strcmp(opt, "--level") == 0) {
            rc = parse_int(opt, val, 1, 4, &o->level);
        } else if (strcmp(opt, "--ckpt-every") == 0) {
            rc = parse_int(opt, val, 0, INT_MAX - 1, &o->ckpt_every);
        } else if (strcmp(opt, "--rows") == 0) {
            rc = parse_int(opt, val, 1, 1 << 20, &o->rows);
        } else if (strcmp(opt, "--cols") == 0) {
            rc = parse_int(opt, val, 1, 1 << 20, &o->cols);
        } else {
            fprintf(stderr, "heatdis: %s: unknown option\n", opt);
            return 1;
        }
        if (rc != 0) return 1;
    }
    if (o->config == NULL) {
        fprintf(stderr, "heatdis: --config FILE is required\n");
        return 1;
    }
    return 0;
}

/* A collective library call failed. The library makes every rank of a
 * collective call fail together, with the same reason, so every rank gets
 * here and can leave MPI cleanly; rank 0 reports. FTI_Finalize is not
 * called: it would remove the checkpoints a relaunch could restart from. */
static int fail_collective(const char* call, int rc) {
    int rank = 0;
    MPI_Comm_rank(FTI_COMM_WORLD != MPI_COMM_NULL ? FTI_COMM_WORLD : MPI_COMM_WORLD, &rank);
    if (rank == 0) fprintf(stderr, "heatdis: %s failed (%d): %s\n", call, rc, FTI_LastError());
    MPI_Finalize();
    return EXIT_FAILURE;
}

/* A local call failed (or MPI itself): the other ranks may be waiting in a
 * collective call, so the whole job has to be stopped. */
static void fail_local(const char* call, int rc, const char* reason) {
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "heatdis: rank %d: %s failed (%d): %s\n", rank, call, rc, reason);
    MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
    exit(EXIT_FAILURE); /* not reached */
}

static void check_mpi(int rc, const char* call) {
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) strcpy(text, "unknown MPI error");
        fail_local(call, rc, text);
    }
}

/* Cell (i, j) of a (rows + 2) x (cols + 2) array, ghosts included. */
#define AT(a, i, j) ((a)[(size_t)(i) * (size_t)(ncols) + (size_t)(j)])

/* Fills the ghost rows from the neighbours. MPI_PROC_NULL leaves the outer
 * ghost rows (hot boundary above rank 0, cold below the last rank) alone. */
static void exchange_halos(double* h, int rows, int cols, int up, int down, MPI_Comm comm) {
    const int ncols = cols + 2;
    check_mpi(MPI_Sendrecv(&AT(h, 1, 0), ncols, MPI_DOUBLE, up, 0, &AT(h, rows + 1, 0), ncols, MPI_DOUBLE, down, 0,
                           comm, MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
    check_mpi(MPI_Sendrecv(&AT(h, rows, 0), ncols, MPI_DOUBLE, down, 1, &AT(h, 0, 0), ncols, MPI_DOUBLE, up, 1, comm,
                           MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
}

/* One Jacobi step: g = average of the four neighbours in h, then h = g on
 * the owned cells (ghost cells of h are kept). */
static void jacobi_step(double* h, double* g, int rows, int cols) {
    const int ncols = cols + 2;
    for (int i = 1; i <= rows; ++i) {
        for (int j = 1; j <= cols; ++j) {
            AT(g, i, j) = 0.25 * (AT(h, i - 1, j) + AT(h, i + 1, j) + AT(h, i, j - 1) + AT(h, i, j + 1));
        }
    }
    for (int i = 1; i <= rows; ++i) {
        memcpy(&AT(h, i, 1), &AT(g, i, 1), (size_t)cols * sizeof(double));
    }
}

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME UINT64_C(0x100000001b3)

static uint64_t fnv1a(uint64_t hash, const void* data, size_t len) {
    const unsigned char* p = (const unsigned char*)data;
    for (size_t k = 0; k < len; ++k) {
        hash ^= p[k];
        hash *= FNV_PRIME;
    }
    return hash;
}

/* FNV-1a over the eight bytes of v, least significant first (independent
 * of the byte order of the machine). */
static uint64_t fnv1a_u64(uint64_t hash, uint64_t v) {
    for (int k = 0; k < 8; ++k) {
        hash ^= (v >> (8 * k)) & 0xffu;
        hash *= FNV_PRIME;
    }
    return hash;
}

int main(int argc, char** argv) {
    Options opt;
    int parsed = parse_options(argc, argv, &opt);
    if (parsed == 2) {
        usage(stdout);
        return EXIT_SUCCESS;
    }
    if (parsed != 0) {
        usage(stderr);
        return 2;
    }

    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "heatdis: MPI_Init failed\n");
        return EXIT_FAILURE;
    }
    int rc = FTI_Init(opt.config, MPI_COMM_WORLD);
    if (rc == FTI_HEAD) { /* head rank with keep_heads_alive = 1: its work is done */
        rc = FTI_Finalize();
        if (rc != FTI_SCES) return fail_collective("FTI_Finalize", rc);
        MPI_Finalize();
        return EXIT_SUCCESS;
    }
    if (rc != FTI_SCES) return fail_collective("FTI_Init", rc);

    /* From here on the application talks over FTI_COMM_WORLD only. */
    int rank = 0;
    int nranks = 0;
    check_mpi(MPI_Comm_rank(FTI_COMM_WORLD, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(FTI_COMM_WORLD, &nranks), "MPI_Comm_size");
    const int up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int down = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;
    const int crash_rank = nranks > 1 ? 1 : 0;

    const int rows = opt.rows;
    const int cols = opt.cols;
    const int ncols = cols + 2;
    const size_t cells = (size_t)(rows + 2) * (size_t)ncols;
    double* h = calloc(cells, sizeof(double));
    double* g = calloc(cells, sizeof(double));
    if (h == NULL || g == NULL) {
        fail_local("calloc", -1, "cannot allocate the grid");
    }
    if (rank == 0) {
        for (int j = 0; j < ncols; ++j) AT(h, 0, j) = HOT_BOUNDARY;
    }

    int iteration = 0; /* number of completed Jacobi steps */
    rc = FTI_Protect(VAR_ITERATION, &iteration, 1, FTI_INTG);
    if (rc != FTI_SCES) fail_local("FTI_Protect(iteration)", rc, FTI_LastError());
    /* The whole array, ghosts included: together with the iteration counter
     * it is the complete state of the computation. */
    rc = FTI_Protect(VAR_GRID, h, (int64_t)cells, FTI_DBLE);
    if (rc != FTI_SCES) fail_local("FTI_Protect(grid)", rc, FTI_LastError());

    const int status = FTI_Status();
    if (status < 0) return fail_collective("FTI_Status", status);
    const int restarting = status != 0;

    if (rank == 0) {
        printf("heatdis: %d ranks, %d x %d cells per rank (%lld x %d in all), %d iterations, ", nranks, rows, cols,
               (long long)rows * nranks, cols, opt.iterations);
        if (opt.ckpt_every > 0) {
            printf("FTI_Checkpoint at L%d every %d iterations\n", opt.level, opt.ckpt_every);
        } else {
            printf("FTI_Snapshot every iteration\n");
        }
        fflush(stdout);
    }

    const int use_snapshot = opt.ckpt_every == 0;
    if (restarting && !use_snapshot) {
        rc = FTI_Recover();
        if (rc != FTI_SCES) return fail_collective("FTI_Recover", rc);
        if (rank == 0) {
            printf("heatdis: restarted from iteration %d\n", iteration);
            fflush(stdout);
        }
    }

    int awaiting_snapshot_recovery = restarting && use_snapshot;
    while (iteration < opt.iterations) {
        if (!restarting && iteration == opt.crash_at) {
            /* Every rank reaches the crash point, so the previous checkpoint
             * is complete everywhere; then one process dies for real. */
            check_mpi(MPI_Barrier(FTI_COMM_WORLD), "MPI_Barrier");
            if (rank == crash_rank) {
                fprintf(stderr, "heatdis: rank %d crashes at iteration %d\n", rank, iteration);
                fflush(stderr);
                raise(SIGKILL);
            }
        }
        if (use_snapshot) {
            /* On a restart the first call recovers every protected variable;
             * afterwards it checkpoints when an interval has elapsed. */
            rc = FTI_Snapshot();
            if (rc != FTI_SCES && rc != FTI_DONE) return fail_collective("FTI_Snapshot", rc);
            if (awaiting_snapshot_recovery) {
                awaiting_snapshot_recovery = 0;
                if (rank == 0) {
                    printf("heatdis: restarted from iteration %d\n", iteration);
                    fflush(stdout);
                }
                if (iteration >= opt.iterations) break;
            }
        }

        exchange_halos(h, rows, cols, up, down, FTI_COMM_WORLD);
        jacobi_step(h, g, rows, cols);
        ++iteration;

        if (!use_snapshot && iteration % opt.ckpt_every == 0 && iteration < opt.iterations) {
            /* Checkpoint ids grow with the iteration, across restarts too. */
            rc = FTI_Checkpoint(iteration / opt.ckpt_every, opt.level);
            if (rc != FTI_DONE) return fail_collective("FTI_Checkpoint", rc);
        }
    }

    /* Result: hash of every rank's owned cells, combined in rank order, and
     * the hottest cell of the whole grid. */
    uint64_t local_hash = FNV_OFFSET;
    double local_max = 0.0;
    for (int i = 1; i <= rows; ++i) {
        local_hash = fnv1a(local_hash, &AT(h, i, 1), (size_t)cols * sizeof(double));
        for (int j = 1; j <= cols; ++j) {
            if (AT(h, i, j) > local_max) local_max = AT(h, i, j);
        }
    }
    uint64_t* hashes = NULL;
    if (rank == 0) {
        hashes = malloc((size_t)nranks * sizeof(uint64_t));
        if (hashes == NULL) fail_local("malloc", -1, "cannot allocate the hash table");
    }
    check_mpi(MPI_Gather(&local_hash, 1, MPI_UINT64_T, hashes, 1, MPI_UINT64_T, 0, FTI_COMM_WORLD), "MPI_Gather");
    double global_max = 0.0;
    check_mpi(MPI_Reduce(&local_max, &global_max, 1, MPI_DOUBLE, MPI_MAX, 0, FTI_COMM_WORLD), "MPI_Reduce");
    if (rank == 0) {
        uint64_t checksum = FNV_OFFSET;
        for (int r = 0; r < nranks; ++r) checksum = fnv1a_u64(checksum, hashes[r]);
        printf("heatdis: result iterations=%d checksum=%016" PRIx64 " max=%.10f\n", iteration, checksum, global_max);
        fflush(stdout);
        free(hashes);
    }

    free(g);
    free(h);
    rc = FTI_Finalize();
    if (rc != FTI_SCES) return fail_collective("FTI_Finalize", rc);
    MPI_Finalize();
    return EXIT_SUCCESS;
}
