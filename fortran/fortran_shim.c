/* What the Fortran module cannot express with C interoperability alone:
 * FTI_Init takes and returns MPI communicators, whose Fortran handles are
 * integers that only MPI can convert; and the C library's type handles are
 * global variables, which Fortran can only define, not refer to. */
#include <mpi.h>
#include <string.h>

#include "fti.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "the Fortran module passes communicators as integer(c_int)");

__attribute__((visibility("default"))) int mlckpt_fortran_init(const char* config, MPI_Fint* comm) {
    int rc = FTI_Init(config, MPI_Comm_f2c(*comm));
    if (rc == FTI_SCES || rc == FTI_NREC) *comm = MPI_Comm_c2f(FTI_COMM_WORLD);
    return rc;
}

/* The value of the C type handle called `name`; -1 for an unknown name. */
__attribute__((visibility("default"))) int mlckpt_fortran_type_handle(const char* name) {
    static const struct {
        const char* name;
        const fti_id_t* handle;
    } handles[] = {
        {"FTI_CHAR", &FTI_CHAR}, {"FTI_SHRT", &FTI_SHRT}, {"FTI_INTG", &FTI_INTG}, {"FTI_LONG", &FTI_LONG},
        {"FTI_UCHR", &FTI_UCHR}, {"FTI_USHT", &FTI_USHT}, {"FTI_UINT", &FTI_UINT}, {"FTI_ULNG", &FTI_ULNG},
        {"FTI_SFLT", &FTI_SFLT}, {"FTI_DBLE", &FTI_DBLE}, {"FTI_LDBE", &FTI_LDBE},
    };
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; ++i) {
        if (strcmp(handles[i].name, name) == 0) return *handles[i].handle;
    }
    return -1;
}
