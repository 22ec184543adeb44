/*
 * stress_app.c - the application of the fault-restart stress driver
 * (tests/stress/fault_restarts.py), through the FTI C API only.
 *
 * Each application rank owns an iteration counter, a running value shared
 * by all ranks, an array of 64-bit words (about --kib KiB, a little more on
 * higher ranks so that the files of a group differ in size) and an array of
 * doubles, all protected. An iteration rewrites a quarter of the words (so
 * that differential checkpoints have unchanged blocks to skip) and all the
 * doubles, and folds the sum of every rank's new words (MPI_Allreduce) into
 * the shared value, which the next iteration mixes into the words: every
 * rank's data depends on every other's, as in a real solver.
 *
 * Every --every iterations, FTI_Checkpoint(n, level) for the n-th
 * checkpoint; with --l4-every M, checkpoints 2, 2 + M, 2 + 2M, ... are
 * taken at L4 instead, an older checkpoint to fall back to when the newer
 * local ones are lost. --kill-rank R --kill-at I: after iteration I (and its
 * checkpoint) of a fresh run, application rank R announces its death and
 * sends itself SIGKILL.
 *
 * At the end every rank recomputes its data from the start without any
 * checkpoint and compares bit for bit; application rank 0 prints
 *   stress_app: result iterations=<N> checksum=<16 hex digits> verify=OK
 * (verify=WRONG, and exit code 4, when any rank differs). The checksum is a
 * hash of every rank's data in rank order: equal for equal runs whatever
 * the level, the faults and the restarts.
 *
 * Exit codes: 0 success; 3 the restart found nothing to recover
 * (FTI_NREC, "stress_app: restart failed: <reason>"); 4 wrong data; 1 any
 * other failure; 2 usage.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <mpi.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fti.h"

enum { VAR_ITERATION = 0, VAR_SHARED = 1, VAR_WORDS = 2, VAR_DOUBLES = 3 };
enum { EXIT_NREC = 3, EXIT_WRONG = 4 };

typedef struct {
    const char* config;
    int iterations;
    int every;
    int level;
    int l4_every; /* 0: every checkpoint at `level` */
    int kib;
    int kill_rank; /* -1: none */
    int kill_at;
} Options;

typedef struct {
    long iteration; /* iterations done */
    uint64_t shared;
    uint64_t* words;
    size_t nwords;
    double* doubles;
    size_t ndoubles;
} State;

static int g_rank; /* in FTI_COMM_WORLD */

static uint64_t mix64(uint64_t z) { /* splitmix64's finalizer */
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static void usage(FILE* out) {
    fprintf(out,
            "usage: stress_app --config FILE [--iterations N] [--every K] [--level 1-4|8]\n"
            "                  [--l4-every M] [--kib K] [--kill-rank R --kill-at I]\n");
}

/* The integer options: name, range, and where the value goes. */
typedef struct {
    const char* name;
    long lo, hi;
    size_t offset; /* of the int in Options */
} IntOption;

static const IntOption kIntOptions[] = {
    {"--iterations", 1, 1000000, offsetof(Options, iterations)},
    {"--every", 1, 1000000, offsetof(Options, every)},
    {"--level", FTI_L1, FTI_L4_DCP, offsetof(Options, level)},
    {"--l4-every", 0, 1000000, offsetof(Options, l4_every)},
    {"--kib", 1, 1 << 20, offsetof(Options, kib)},
    {"--kill-rank", 0, INT_MAX, offsetof(Options, kill_rank)},
    {"--kill-at", 1, 1000000, offsetof(Options, kill_at)},
};

/* Sets the option `opt` from `val`; returns 0 on success. */
static int set_option(Options* o, const char* opt, const char* val) {
    if (strcmp(opt, "--config") == 0) {
        o->config = val;
        return 0;
    }
    for (size_t k = 0; k < sizeof kIntOptions / sizeof kIntOptions[0]; ++k) {
        const IntOption* io = &kIntOptions[k];
        if (strcmp(opt, io->name) != 0) continue;
        char* end = NULL;
        errno = 0;
        long v = strtol(val, &end, 10);
        if (val[0] == '\0' || *end != '\0' || errno != 0 || v < io->lo || v > io->hi) {
            fprintf(stderr, "stress_app: %s '%s': expected an integer from %ld to %ld\n", opt, val, io->lo, io->hi);
            return 1;
        }
        *(int*)((char*)o + io->offset) = (int)v;
        return 0;
    }
    fprintf(stderr, "stress_app: %s: unknown option\n", opt);
    return 1;
}

static int parse_options(int argc, char** argv, Options* o) {
    *o = (Options){NULL, 30, 3, 1, 0, 512, -1, -1};
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            fprintf(stderr, "stress_app: %s: unknown option or missing value\n", argv[i]);
            return 1;
        }
        if (set_option(o, argv[i], argv[i + 1]) != 0) return 1;
    }
    if (o->level > FTI_L4 && o->level != FTI_L4_DCP) {
        fprintf(stderr, "stress_app: --level %d: expected 1, 2, 3, 4 or 8 (L4 differential)\n", o->level);
        return 1;
    }
    if (o->config == NULL) {
        fprintf(stderr, "stress_app: --config FILE is required\n");
        return 1;
    }
    return 0;
}

/* Any MPI failure stops the whole job: other ranks may wait in a collective. */
static void check_mpi(int rc, const char* call) {
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "stress_app: %s failed (%d)\n", call, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void init_state(State* s, const Options* o) {
    s->iteration = 0;
    s->shared = 0;
    s->nwords = (size_t)o->kib * 128 + 509 * (size_t)g_rank;
    s->ndoubles = 4096 + 3 * (size_t)g_rank;
    s->words = malloc(s->nwords * sizeof *s->words);
    s->doubles = malloc(s->ndoubles * sizeof *s->doubles);
    if (s->words == NULL || s->doubles == NULL) {
        fprintf(stderr, "stress_app: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t i = 0; i < s->nwords; ++i) s->words[i] = mix64(((uint64_t)g_rank << 40) ^ i);
    for (size_t i = 0; i < s->ndoubles; ++i) s->doubles[i] = 0.0;
}

/* Iteration `it` (1-based): collective over FTI_COMM_WORLD. */
static void step(State* s, long it) {
    size_t quarter = s->nwords / 4;
    size_t begin = (size_t)(it % 4) * quarter;
    size_t end = it % 4 == 3 ? s->nwords : begin + quarter;
    uint64_t local = 0;
    for (size_t i = begin; i < end; ++i) {
        s->words[i] = mix64(s->words[i] + (uint64_t)it * UINT64_C(0x2545f4914f6cdd1d) + i + s->shared);
        local += s->words[i];
    }
    for (size_t i = 0; i < s->ndoubles; ++i) {
        uint64_t r = mix64(((uint64_t)g_rank << 48) ^ ((uint64_t)it << 24) ^ i);
        s->doubles[i] = 0.5 * s->doubles[i] + (double)(r >> 11) * 0x1p-53;
    }
    uint64_t global = 0;
    check_mpi(MPI_Allreduce(&local, &global, 1, MPI_UINT64_T, MPI_SUM, FTI_COMM_WORLD), "MPI_Allreduce");
    s->shared = mix64(s->shared ^ global);
    s->iteration = it;
}

static int protect(State* s) {
    int rc = FTI_Protect(VAR_ITERATION, &s->iteration, 1, FTI_LONG);
    if (rc == FTI_SCES) rc = FTI_Protect(VAR_SHARED, &s->shared, 1, FTI_ULNG);
    if (rc == FTI_SCES) rc = FTI_Protect(VAR_WORDS, s->words, (int64_t)s->nwords, FTI_ULNG);
    if (rc == FTI_SCES) rc = FTI_Protect(VAR_DOUBLES, s->doubles, (int64_t)s->ndoubles, FTI_DBLE);
    return rc;
}

static int checkpoint_level(const Options* o, int n) {
    if (o->l4_every > 0 && n >= 2 && (n - 2) % o->l4_every == 0) return FTI_L4;
    return o->level;
}

static uint64_t hash_bytes(uint64_t h, const void* data, size_t size) {
    const unsigned char* p = data;
    for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

static uint64_t hash_state(const State* s) {
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    h = hash_bytes(h, &s->iteration, sizeof s->iteration);
    h = hash_bytes(h, &s->shared, sizeof s->shared);
    h = hash_bytes(h, s->words, s->nwords * sizeof *s->words);
    return hash_bytes(h, s->doubles, s->ndoubles * sizeof *s->doubles);
}

static int same_state(const State* a, const State* b) {
    return a->iteration == b->iteration && a->shared == b->shared &&
           memcmp(a->words, b->words, a->nwords * sizeof *a->words) == 0 &&
           memcmp(a->doubles, b->doubles, a->ndoubles * sizeof *a->doubles) == 0;
}

/* A collective FTI call failed on every rank alike (the library agrees on
 * the outcome): report once and leave cleanly. FTI_Finalize releases the
 * heads; after a failed restart it keeps the checkpoints. */
static int fail(const char* what, int rc, int code) {
    if (g_rank == 0) fprintf(stderr, "stress_app: %s (%d): %s\n", what, rc, FTI_LastError());
    FTI_Finalize();
    MPI_Finalize();
    return code;
}

int main(int argc, char** argv) {
    Options o;
    int parsed = parse_options(argc, argv, &o);
    if (parsed != 0) {
        usage(stderr);
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rc = FTI_Init(o.config, MPI_COMM_WORLD);
    if (rc == FTI_HEAD) { /* a head rank (keep_heads_alive = 1): its work is done */
        FTI_Finalize();
        MPI_Finalize();
        return 0;
    }
    if (rc != FTI_SCES && rc != FTI_NREC) { /* the library is not initialized */
        fprintf(stderr, "stress_app: FTI_Init failed (%d): %s\n", rc, FTI_LastError());
        MPI_Finalize();
        return 1;
    }
    check_mpi(MPI_Comm_rank(FTI_COMM_WORLD, &g_rank), "MPI_Comm_rank");
    if (rc == FTI_NREC) return fail("restart failed: FTI_Init", rc, EXIT_NREC);

    State s;
    init_state(&s, &o);
    rc = protect(&s);
    if (rc != FTI_SCES) return fail("FTI_Protect failed", rc, 1);
    int restarted = FTI_Status() != 0;
    if (restarted) {
        rc = FTI_Recover();
        if (rc == FTI_NREC) return fail("restart failed: FTI_Recover", rc, EXIT_NREC);
        if (rc != FTI_SCES) return fail("FTI_Recover failed", rc, 1);
        long range[2] = {-s.iteration, s.iteration}, agreed[2];
        check_mpi(MPI_Allreduce(range, agreed, 2, MPI_LONG, MPI_MAX, FTI_COMM_WORLD), "MPI_Allreduce");
        if (-agreed[0] != agreed[1]) {
            /* The loops below would run different numbers of collectives. */
            if (g_rank == 0) {
                fprintf(stderr, "stress_app: WRONG: the ranks recovered iterations %ld to %ld\n", -agreed[0],
                        agreed[1]);
            }
            MPI_Abort(MPI_COMM_WORLD, EXIT_WRONG);
        }
        if (g_rank == 0) printf("stress_app: restarted from iteration %ld\n", s.iteration);
    } else if (g_rank == 0) {
        printf("stress_app: fresh start\n");
    }
    fflush(stdout);

    for (long it = s.iteration + 1; it <= o.iterations; ++it) {
        step(&s, it);
        if (it % o.every == 0) {
            int n = (int)(it / o.every);
            rc = FTI_Checkpoint(n, checkpoint_level(&o, n));
            if (rc != FTI_DONE) return fail("FTI_Checkpoint failed", rc, 1);
        }
        if (!restarted && it == o.kill_at && g_rank == o.kill_rank) {
            fprintf(stderr, "stress_app: rank %d killed on purpose after iteration %ld\n", g_rank, it);
            fflush(stderr);
            raise(SIGKILL);
        }
    }

    State expected;
    init_state(&expected, &o);
    for (long it = 1; it <= o.iterations; ++it) step(&expected, it);
    int wrong = !same_state(&s, &expected), wrong_ranks = 0;
    check_mpi(MPI_Reduce(&wrong, &wrong_ranks, 1, MPI_INT, MPI_SUM, 0, FTI_COMM_WORLD), "MPI_Reduce");
    uint64_t mine = hash_state(&s), all = 0;
    int size = 1;
    check_mpi(MPI_Comm_size(FTI_COMM_WORLD, &size), "MPI_Comm_size");
    uint64_t* hashes = g_rank == 0 ? malloc((size_t)size * sizeof *hashes) : NULL;
    check_mpi(MPI_Gather(&mine, 1, MPI_UINT64_T, hashes, 1, MPI_UINT64_T, 0, FTI_COMM_WORLD), "MPI_Gather");
    if (g_rank == 0) {
        all = hash_bytes(UINT64_C(0xcbf29ce484222325), hashes, (size_t)size * sizeof *hashes);
        printf("stress_app: result iterations=%d checksum=%016" PRIx64 " verify=%s", o.iterations, all,
               wrong_ranks == 0 ? "OK" : "WRONG");
        if (wrong_ranks != 0) printf(" (%d of %d ranks differ)", wrong_ranks, size);
        printf("\n");
        fflush(stdout);
        free(hashes);
    }
    rc = FTI_Finalize();
    if (rc != FTI_SCES) {
        if (g_rank == 0) fprintf(stderr, "stress_app: FTI_Finalize failed (%d): %s\n", rc, FTI_LastError());
        MPI_Finalize();
        return 1;
    }
    MPI_Finalize();
    free(s.words);
    free(s.doubles);
    free(expected.words);
    free(expected.doubles);
    return wrong_ranks == 0 || g_rank != 0 ? 0 : EXIT_WRONG;
}
