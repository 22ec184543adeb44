/* A C program built against the installed mlckpt with find_package or pkg-config. */
#include <mpi.h>
#include <stdio.h>

#include "fti.h"

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) return 1;
    double data[64] = {0};
    if (FTI_Protect(1, data, 64, FTI_DBLE) != FTI_SCES) return 1;
    if (FTI_Checkpoint(1, FTI_L1) != FTI_DONE) return 1;
    if (FTI_Finalize() != FTI_SCES) return 1;
    printf("consumer c: ok (mlckpt %s)\n", FTI_VersionString());
    MPI_Finalize();
    return 0;
}
