/*
 * scr_files.c - a solver that writes its own restart files (one per rank,
 * plain fwrite) and has them protected through SCR's interface (scr.h):
 * every file name goes through SCR_Route_file, inside SCR_Start_output /
 * SCR_Complete_output when writing and SCR_Start_restart /
 * SCR_Complete_restart when reading. Where the files really go (node-local
 * cache, partner copies, XOR parity, the prefix directory) is SCR's
 * configuration: SCR_* environment variables or the file SCR_CONF_FILE.
 *
 * The solver: 1-D heat diffusion along a rod split into equal pieces, one
 * per rank, the left end held at 100.0 and the right end at 0.0.
 *
 * Usage: scr_files [STEPS [CELLS [CRASH_AT]]]
 *   STEPS     explicit time steps (default 200)
 *   CELLS     cells per rank (default 16)
 *   CRASH_AT  after this many steps rank 1 (rank 0 when alone) kills itself
 *             with SIGKILL; ignored when the run restarts (default: never)
 * A checkpoint is written whenever SCR_Need_checkpoint says so (set
 * SCR_CHECKPOINT_INTERVAL). At the end rank 0 prints one line
 *   scr_files: result steps=<N> <16 hex digits per rank>
 * the bits of each rank's weighted sum of its cells, in rank order.
 */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scr.h"

/* An SCR call failed: SCR makes collective calls fail on every rank, but a
 * local one may not, so the whole job stops. */
static void need(int ok, const char* what) {
    if (ok) return;
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "scr_files: rank %d: %s failed\n", rank, what);
    MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE);
}

/* The file of this rank in dataset `dataset`, as the application names it
 * (relative to the working directory, which is below SCR_PREFIX). */
static void file_name(char* out, size_t size, const char* dataset, int rank) {
    snprintf(out, size, "%s/rank_%d.bin", dataset, rank);
}

/* Reads step and cells from the routed file; 1 when all of it was there. */
static int read_state(const char* path, int* step, double* u, int cells) {
    FILE* in = fopen(path, "rb");
    if (in == NULL) return 0;
    int ok = fread(step, sizeof *step, 1, in) == 1 && fread(u, sizeof *u, (size_t)cells, in) == (size_t)cells &&
             fgetc(in) == EOF;
    return fclose(in) == 0 && ok;
}

static int write_state(const char* path, int step, const double* u, int cells) {
    FILE* out = fopen(path, "wb");
    if (out == NULL) return 0;
    int ok = fwrite(&step, sizeof step, 1, out) == 1 && fwrite(u, sizeof *u, (size_t)cells, out) == (size_t)cells;
    return fclose(out) == 0 && ok;
}

int main(int argc, char** argv) {
    const int steps = argc > 1 ? atoi(argv[1]) : 200;
    const int cells = argc > 2 ? atoi(argv[2]) : 16;
    const int crash_at = argc > 3 ? atoi(argv[3]) : -1;
    if (steps < 0 || cells < 1) {
        fprintf(stderr, "usage: scr_files [STEPS [CELLS [CRASH_AT]]]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rank = 0, nranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    need(SCR_Init() == SCR_SUCCESS, "SCR_Init");

    /* u[0] and u[cells + 1] are ghosts: the neighbours' edge cells, or the
     * ends of the rod. */
    double* u = calloc((size_t)cells + 2, sizeof *u);
    double* next = calloc((size_t)cells + 2, sizeof *u);
    need(u != NULL && next != NULL, "calloc");
    int step = 0;
    char name[SCR_MAX_FILENAME], path[SCR_MAX_FILENAME], routed[SCR_MAX_FILENAME];

    int have = 0;
    need(SCR_Have_restart(&have, name) == SCR_SUCCESS, "SCR_Have_restart");
    if (have) {
        need(SCR_Start_restart(name) == SCR_SUCCESS, "SCR_Start_restart");
        file_name(path, sizeof path, name, rank);
        int valid = SCR_Route_file(path, routed) == SCR_SUCCESS && read_state(routed, &step, u + 1, cells);
        /* Fails on every rank when any rank's files were not valid. */
        need(SCR_Complete_restart(valid) == SCR_SUCCESS, "SCR_Complete_restart");
        if (rank == 0) printf("scr_files: restarted from step %d (dataset %s)\n", step, name);
    }

    const int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    const int right = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;
    if (rank == 0) u[0] = next[0] = 100.0;
    while (step < steps) {
        if (!have && step == crash_at) {
            MPI_Barrier(MPI_COMM_WORLD); /* the last checkpoint is complete everywhere */
            if (rank == (nranks > 1 ? 1 : 0)) {
                fprintf(stderr, "scr_files: rank %d crashes at step %d\n", rank, step);
                raise(SIGKILL);
            }
        }
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[cells + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[cells], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 1; i <= cells; ++i) next[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        memcpy(u + 1, next + 1, (size_t)cells * sizeof *u);
        ++step;

        int flag = 0;
        need(SCR_Need_checkpoint(&flag) == SCR_SUCCESS, "SCR_Need_checkpoint");
        if (flag && step < steps) {
            snprintf(name, sizeof name, "step.%d", step);
            need(SCR_Start_output(name, SCR_FLAG_CHECKPOINT) == SCR_SUCCESS, "SCR_Start_output");
            file_name(path, sizeof path, name, rank);
            int valid = SCR_Route_file(path, routed) == SCR_SUCCESS && write_state(routed, step, u + 1, cells);
            need(SCR_Complete_output(valid) == SCR_SUCCESS, "SCR_Complete_output");
        }
    }

    double sum = 0.0;
    for (int i = 1; i <= cells; ++i) sum += (double)i * u[i];
    uint64_t bits = 0;
    memcpy(&bits, &sum, sizeof bits);
    uint64_t* all = malloc((size_t)nranks * sizeof *all);
    need(all != NULL, "malloc");
    MPI_Gather(&bits, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("scr_files: result steps=%d", step);
        for (int r = 0; r < nranks; ++r) printf(" %016llX", (unsigned long long)all[r]);
        printf("\n");
        fflush(stdout);
    }
    free(all);
    free(next);
    free(u);
    need(SCR_Finalize() == SCR_SUCCESS, "SCR_Finalize");
    MPI_Finalize();
    return EXIT_SUCCESS;
}
