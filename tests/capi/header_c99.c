/* fti.h must compile alone as strict C99 with every warning an error. */
#include <fti.h>

int mlckpt_header_c99_check(void) {
    fti_id_t t = FTI_DBLE;
    FTIT_type old_spelling = FTI_INTG;
    return FTI_SCES + FTI_NSCS + FTI_NREC + FTI_DONE + FTI_HEAD + FTI_L1 + FTI_L2 + FTI_L3 + FTI_L4 + FTI_L4_DCP +
           (int)t + (int)old_spelling + MLCKPT_VERSION_NUMBER;
}
