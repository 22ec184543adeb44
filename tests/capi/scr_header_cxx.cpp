// scr.h must compile alone as C++ with every warning an error.
#include <scr.h>

int mlckpt_scr_header_cxx_check() {
    int (*start)(const char*, int) = &SCR_Start_output;
    char* (*version)() = &SCR_Get_version;
    return (start != nullptr) + (version != nullptr) + SCR_FLAG_CHECKPOINT;
}
