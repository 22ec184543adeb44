// fti.h must compile alone as C++ with every warning an error.
#include <fti.h>

int mlckpt_header_cxx_check() {
    int (*init)(const char*, MPI_Comm) = &FTI_Init;
    int (*protect)(int, void*, int64_t, fti_id_t) = &FTI_Protect;
    return (init != nullptr) + (protect != nullptr) + FTI_L4_DCP;
}
