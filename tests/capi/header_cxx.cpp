// fti.h must compile alone as C++ with every warning an error.
#include <fti.h>

int mlckpt_header_cxx_check() {
    int (*init)(const char*, MPI_Comm) = &FTI_Init;
    int (*protect)(int, void*, int64_t, fti_id_t) = &FTI_Protect;
    return (init != nullptr) + (protect != nullptr) + FTI_L4_DCP;
}

// FTI 1.6's and FTI's newest forms side by side, and a null pointer
// constant (the C++ wrapper's rank 0) still FTI 1.6's form, unambiguously.
int mlckpt_header_cxx_forms(int* lengths, int64_t* lengths64) {
    return FTI_DefineDataset(1, 1, lengths, "a", nullptr) + FTI_DefineDataset(1, 1, lengths64, "a", nullptr) +
           FTI_DefineDataset(1, 0, nullptr, nullptr, nullptr) + FTI_DefineDataset(1, 0, NULL, nullptr, nullptr) +
           FTI_DefineDataset(1, 0, 0, nullptr, nullptr) +
           FTI_AddVectorField(1, "v", FTI_INTG, sizeof(int), 1, lengths) +
           FTI_AddVectorField(1, "v", FTI_INTG, int64_t{4}, 1, lengths64) + FTI_AddScalarField(1, "s", FTI_INTG, 0) +
           FTI_AddScalarField(1, "s", FTI_INTG, int64_t{0});
}
