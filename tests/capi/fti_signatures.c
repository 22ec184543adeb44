/*
 * A program written for FTI 1.6's signatures (int lengths, size_t offsets)
 * or, with MLCKPT_TEST_NEWEST_FTI=1, for FTI's newest (int64_t lengths and
 * offsets): a composite type (a scalar and a 2-D vector field) and an HDF5
 * dataset shape, each defined in the chosen form. Compiled as C99, C11 and
 * C++ with every warning an error.
 *
 * Usage: fti_signatures CONFIG
 *   a fresh run fills the data, checkpoints at L1 and ends without
 *   FTI_Finalize (as a crash would); the relaunch recovers, checks every
 *   value and prints "fti_signatures (<form>): recovered <digest>".
 */
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fti.h"

#if MLCKPT_TEST_NEWEST_FTI
typedef int64_t length_t;
typedef int64_t offset_t;
#define FORM "FTI newest"
#else
typedef int length_t;
typedef size_t offset_t;
#define FORM "FTI 1.6"
#endif

typedef struct Cell {
    int id;
    double v[2][3];
} Cell;

enum { CELLS = 4, ROWS = 2, COLUMNS = 3 };

static int fail(const char* what) {
    fprintf(stderr, "fti_signatures (%s): %s failed: %s\n", FORM, what, FTI_LastError());
    MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
}

static double value(int cell, int row, int column) {
    return cell * 100.0 + row * 10.0 + column + 0.25;
}

int main(int argc, char** argv) {
    Cell cells[CELLS];
    double grid[ROWS * COLUMNS];
    length_t field_dims[2] = {ROWS, COLUMNS};
    length_t grid_dims[2] = {ROWS, COLUMNS};
    offset_t id_offset = offsetof(Cell, id);
    offset_t v_offset = offsetof(Cell, v);
    fti_id_t cell_type;
    unsigned long digest = 0;
    int c, r, k;

    MPI_Init(&argc, &argv);
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) return fail("FTI_Init");
    cell_type = FTI_InitCompositeType("Cell", sizeof(Cell), NULL);
    if (cell_type == FTI_NSCS) return fail("FTI_InitCompositeType");
    if (FTI_AddScalarField(cell_type, "id", FTI_INTG, id_offset) != FTI_SCES) return fail("FTI_AddScalarField");
    if (FTI_AddVectorField(cell_type, "v", FTI_DBLE, v_offset, 2, field_dims) != FTI_SCES) {
        return fail("FTI_AddVectorField");
    }
    if (FTI_Protect(1, cells, CELLS, cell_type) != FTI_SCES) return fail("FTI_Protect(1)");
    if (FTI_Protect(2, grid, ROWS * COLUMNS, FTI_DBLE) != FTI_SCES) return fail("FTI_Protect(2)");
    if (FTI_DefineDataset(2, 2, grid_dims, "grid", NULL) != FTI_SCES) return fail("FTI_DefineDataset");

    if (FTI_Status() == 0) {
        for (c = 0; c < CELLS; ++c) {
            cells[c].id = 7 * c + 1;
            for (r = 0; r < ROWS; ++r) {
                for (k = 0; k < COLUMNS; ++k) cells[c].v[r][k] = value(c, r, k);
            }
        }
        for (k = 0; k < ROWS * COLUMNS; ++k) grid[k] = -0.5 * k;
        if (FTI_Checkpoint(1, FTI_L1) != FTI_DONE) return fail("FTI_Checkpoint");
        printf("fti_signatures (%s): checkpointed\n", FORM);
        MPI_Finalize(); /* no FTI_Finalize: the relaunch restarts */
        return 0;
    }

    for (c = 0; c < CELLS; ++c) {
        cells[c].id = 0;
        for (r = 0; r < ROWS; ++r) {
            for (k = 0; k < COLUMNS; ++k) cells[c].v[r][k] = 0.0;
        }
    }
    for (k = 0; k < ROWS * COLUMNS; ++k) grid[k] = 0.0;
    if (FTI_Recover() != FTI_SCES) return fail("FTI_Recover");
    for (c = 0; c < CELLS; ++c) {
        if (cells[c].id != 7 * c + 1) return fail("the recovered id");
        digest = digest * 31u + (unsigned long)cells[c].id;
        for (r = 0; r < ROWS; ++r) {
            for (k = 0; k < COLUMNS; ++k) {
                if (cells[c].v[r][k] != value(c, r, k)) return fail("the recovered vector field");
                digest = digest * 31u + (unsigned long)(cells[c].v[r][k] * 4.0);
            }
        }
    }
    for (k = 0; k < ROWS * COLUMNS; ++k) {
        if (grid[k] != -0.5 * k) return fail("the recovered grid");
        digest = digest * 31u + (unsigned long)(-grid[k] * 2.0);
    }
    printf("fti_signatures (%s): recovered %lx\n", FORM, digest);
    if (FTI_Finalize() != FTI_SCES) return fail("FTI_Finalize");
    MPI_Finalize();
    return 0;
}
