#!/usr/bin/env bash
# The module generator refuses a description that disagrees with fti.h: a
# changed parameter type, a changed constant and a changed member of a
# mirrored structure are each named.
#   drift_check.sh PYTHON SOURCE_DIR SCRATCH
set -euo pipefail
python=$1 source=$2 scratch=$3
mkdir -p "$scratch"
sed -e 's/MLCKPT_EXPORT int FTI_Checkpoint(int id, int level);/MLCKPT_EXPORT int FTI_Checkpoint(int id, int64_t level);/' \
    -e 's/#define FTI_NREC -2/#define FTI_NREC -3/' -e 's/^    int childrenNo;/    long childrenNo;/' \
    "$source/capi/include/fti.h" > "$scratch/fti.h"
if cmp -s "$source/capi/include/fti.h" "$scratch/fti.h"; then
    echo "drift check: the test could not alter fti.h (has its text changed?)" >&2
    exit 1
fi
args=(--api "$source/fortran/fti_api.json" --custom "$source/fortran/fti_custom.f90.in" --integer-kinds 4
      --real-kinds 8 --logical-kinds 4 --out "$scratch/fti.f90")
"$python" "$source/fortran/generate_fti_module.py" --header "$source/capi/include/fti.h" --check-only "${args[@]}"
rc=0
"$python" "$source/fortran/generate_fti_module.py" --header "$scratch/fti.h" "${args[@]}" 2> "$scratch/err" || rc=$?
cat "$scratch/err"
[[ $rc -eq 1 ]] || { echo "drift check: expected exit status 1, got $rc" >&2; exit 1; }
grep -q "FTI_Checkpoint: fti.h says int (int, int64_t), the description says int (int, int)" "$scratch/err"
grep -q "constant FTI_NREC: fti.h says -3, the description says -2" "$scratch/err"
grep -q "structure FTIT_H5Group: fti.h says {int id; .*; long childrenNo; .*}, the description says {.*; int childrenNo; .*}" \
    "$scratch/err"
[[ ! -e "$scratch/fti.f90" ]] || { echo "drift check: a module was written despite the drift" >&2; exit 1; }
echo "drift check: passed"
