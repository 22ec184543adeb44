/* What FTI's fti.h gives programs from its fti-intern.h besides the API
 * (talloc, FTI_BUFS, FTI_WORD, the message levels, FTI_IO_*, the head
 * tokens, ...), with FTI's values. */
#include <fti.h>

_Static_assert(FTI_BUFS == 256, "FTI_BUFS");
_Static_assert(FTI_WORD == 16, "FTI_WORD");
_Static_assert(FTI_EROR == 4 && FTI_WARN == 3 && FTI_IDCP == 5 && FTI_INFO == 2 && FTI_DBUG == 1, "levels");
_Static_assert(FTI_FS_LOCAL == 0 && FTI_FS_GLOBAL == 1, "FTI_FS_*");
_Static_assert(FTI_BASE == 990 && FTI_CKTW == 991 && FTI_XORW == 992 && FTI_RSEW == 993 && FTI_PFSW == 994 &&
                   FTI_ENDW == 995 && FTI_REJW == 996,
               "head tokens");
_Static_assert(FTI_IO_POSIX == 1001 && FTI_IO_MPI == 1002 && FTI_IO_FTIFF == 1003 && FTI_IO_SIONLIB == 1004 &&
                   FTI_IO_HDF5 == 1005 && FTI_IO_IME == 1006,
               "FTI_IO_*");
_Static_assert(FTI_L1_DCP == 5 && FTI_L2_DCP == 6 && FTI_L3_DCP == 7 && FTI_MIN_LEVEL_ID == 1 && FTI_MAX_LEVEL_ID == 9,
               "levels");
_Static_assert(FTI_DEFAULT_MAX_VAR_ID == 100 * 1024 && FTI_LIMIT_MAX_VAR_ID == INT_MAX, "max_var_id");
_Static_assert(MAX_STACK_SIZE == 10 && TYPES_MAX == 64 && TYPES_DIMENSION_MAX == 32 && TYPES_FIELDS_MAX == 128,
               "limits");
_Static_assert(MD5_DIGEST_LENGTH == 16 && MD5_DIGEST_STRING_LENGTH == 33, "MD5");
_Static_assert(sizeof(FTI_COLOR_RED FTI_COLOR_ORG FTI_COLOR_MAG FTI_COLOR_GRN FTI_COLOR_BLU FTI_COLOR_RESET) == 38,
               "colours");

double* mlckpt_fti_intern_talloc(int n) {
    double* p = talloc(double, n);
    return p;
}
