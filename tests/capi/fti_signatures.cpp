// fti_signatures.c compiled as C++: FTI_AddVectorField and FTI_DefineDataset
// in both of FTI's forms are overloads there.
#include "fti_signatures.c"
