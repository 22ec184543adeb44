/* A C program written only against FTI's public API, built against the
 * installed fti.h and libmlckpt. Run twice with the same command: the first
 * launch checkpoints and stops without FTI_Finalize (a crash); the second
 * restarts, recovers and checks the data bit for bit. */
#include <fti.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

static int check(int rc, int expected, const char* what) {
    if (rc != expected) {
        fprintf(stderr, "fti_app: %s returned %d (expected %d): %s\n", what, rc, expected, FTI_LastError());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return rc;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: fti_app CONFIG\n");
        return 2;
    }
    check(FTI_Init(argv[1], MPI_COMM_WORLD), FTI_SCES, "FTI_Init");
    int rank = 0;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    /* What FTI's own getConfig test reads: ioMode is 1000 + ckpt_io. */
    FTIT_allConfiguration conf = FTI_GetConfig(argv[1], FTI_COMM_WORLD);
    if (conf.configuration.ioMode != FTI_IO_POSIX || conf.topology.splitRank != rank ||
        strcmp(conf.configuration.cfgFile, argv[1]) != 0) {
        fprintf(stderr, "fti_app: FTI_GetConfig: ioMode %d, splitRank %d, cfgFile '%s'\n", conf.configuration.ioMode,
                conf.topology.splitRank, conf.configuration.cfgFile);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int step = 0;
    double* field = malloc(N * sizeof(double));
    check(FTI_Protect(0, &step, 1, FTI_INTG), FTI_SCES, "FTI_Protect");
    check(FTI_Protect(1, field, N, FTI_DBLE), FTI_SCES, "FTI_Protect");

    if (FTI_Status() == 0) {
        for (int i = 0; i < N; ++i) field[i] = rank * 1000.0 + i * 0.25;
        step = 42;
        check(FTI_Checkpoint(1, FTI_L1), FTI_DONE, "FTI_Checkpoint");
        check(FTI_Snapshot(), FTI_SCES, "FTI_Snapshot");
        if (rank == 0) printf("fti_app: checkpointed, stopping without FTI_Finalize\n");
        free(field);
        MPI_Finalize();
        return 0;
    }
    if (FTI_GetStoredSize(1) != (int64_t)(N * sizeof(double))) {
        fprintf(stderr, "fti_app: wrong stored size\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    field = FTI_Realloc(1, field);
    check(FTI_RecoverVarInit(), FTI_SCES, "FTI_RecoverVarInit");
    check(FTI_RecoverVar(1), FTI_SCES, "FTI_RecoverVar");
    check(FTI_RecoverVar(0), FTI_SCES, "FTI_RecoverVar");
    check(FTI_RecoverVarFinalize(), FTI_SCES, "FTI_RecoverVarFinalize");
    check(FTI_Recover(), FTI_SCES, "FTI_Recover");
    int ok = step == 42;
    for (int i = 0; i < N; ++i) ok = ok && field[i] == rank * 1000.0 + i * 0.25;
    check(FTI_Finalize(), FTI_SCES, "FTI_Finalize");
    if (!ok) {
        fprintf(stderr, "fti_app: rank %d recovered wrong data\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) printf("fti_app: recovered bit for bit (mlckpt %s)\n", FTI_VersionString());
    free(field);
    MPI_Finalize();
    return 0;
}
