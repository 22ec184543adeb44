/* scr.h must compile alone as strict C99 with every warning an error. */
#include <scr.h>

int mlckpt_scr_header_c99_check(void) {
    int (*route)(const char*, char*) = &SCR_Route_file;
    const char* (*config)(const char*) = &SCR_Config;
    char name[SCR_MAX_FILENAME];
    name[0] = '\0';
    return SCR_SUCCESS + SCR_FLAG_NONE + SCR_FLAG_CHECKPOINT + SCR_FLAG_OUTPUT + (route != 0) + (config != 0) +
           (int)name[0];
}
