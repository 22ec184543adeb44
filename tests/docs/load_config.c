/* Loads a configuration file through FTI_Init and ends the session: a
 * configuration shown in the documentation must at least be accepted.
 *   load_config CONFIG */
#include <fti.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: load_config CONFIG\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rc = FTI_Init(argv[1], MPI_COMM_WORLD);
    if (rc != FTI_SCES && rc != FTI_HEAD) {
        fprintf(stderr, "FTI_Init returned %d: %s\n", rc, FTI_LastError());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    rc = FTI_Finalize();
    if (rc != FTI_SCES) {
        fprintf(stderr, "FTI_Finalize returned %d: %s\n", rc, FTI_LastError());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
