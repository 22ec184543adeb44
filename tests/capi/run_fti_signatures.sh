#!/usr/bin/env bash
# Runs each program (fti_signatures.c built for FTI 1.6's and for FTI's
# newest signatures, as C and C++) twice at one rank with ckpt_io = 5
# (HDF5): a checkpoint, then a restart that recovers. Every program must
# recover the same data, and every checkpoint file must have the same HDF5
# structure (the composite type, the dataset "grid" of 2 x 3).
#   run_fti_signatures.sh SOURCE_DIR PROGRAM...
set -euo pipefail
trap 'echo "fti signatures test: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
source=$1
shift
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
n=0
for program in "$@"; do
    n=$((n + 1))
    dir=$scratch/run$n
    mkdir -p "$dir"
    bash "$source/tests/support/write_config.sh" "$dir/config.fti" "$dir" 1
    sed -i 's/^\[basic\]$/[basic]\nckpt_io = 5/' "$dir/config.fti"
    run() { (cd "$dir" && timeout 60 "$source/tests/support/mpiexec.sh" -n 1 "$program" "$dir/config.fti"); }
    run | grep -q 'checkpointed'
    file=$(find "$dir/local" -name 'Ckpt1-Rank0.*' | head -n 1)
    test -n "$file"
    h5dump -H "$file" | tail -n +2 > "$scratch/structure$n"
    run | tee "$dir/restart.log"
    grep 'recovered' "$dir/restart.log" | sed 's/.*recovered //' > "$scratch/digest$n"
    test -s "$scratch/digest$n"
    grep -q 'DATASET "grid"' "$scratch/structure$n"
    grep -q 'SIMPLE { ( 2, 3 ) / ( 2, 3 ) }' "$scratch/structure$n"
    grep -q 'H5T_ARRAY { \[2\]\[3\] H5T_IEEE_F64LE } "v"' "$scratch/structure$n"
done
for i in $(seq 2 "$n"); do
    if ! cmp "$scratch/digest1" "$scratch/digest$i" || ! diff "$scratch/structure1" "$scratch/structure$i"; then
        echo "fti signatures test: program $i ($(sed -n "${i}p" <<< "$(printf '%s\n' "$@")")) differs from the first" >&2
        exit 1
    fi
done
echo "fti signatures test: passed ($n programs, the same data and the same HDF5 structure)"
