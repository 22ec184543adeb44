#!/usr/bin/env bash
# The installed examples (<prefix>/share/mlckpt/examples), built against the
# installed tree only with their own CMake project, each through the
# installed crash_restart.sh: the C one at L2 (a node lost), the C++ one at
# L1, the Fortran one at L4. This is what `spack test run mlckpt` runs.
#   run_installed_examples_test.sh BUILD_DIR SOURCE_DIR [EXTRA_FLAGS...]
set -euo pipefail
trap 'echo "installed examples test: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
source "$2/tests/install/scratch_prefix.sh" "$@"
examples=$prefix/share/mlckpt/examples

configure_against_prefix "$examples" "$scratch/examples" > "$scratch/configure.log"
cmake --build "$scratch/examples" > "$scratch/build.log"
for program in heatdis heatdis_cpp heatdis_f90 scr_files scr_files_f90; do
    installed_only "$scratch/examples/$program"
done

check() {
    local level=$1 program=$2
    echo "== $program at L$level"
    TMPDIR=$scratch bash "$examples/crash_restart.sh" --level "$level" \
        --mpiexec "$source/tests/support/mpiexec.sh" "$scratch/examples/$program" > "$scratch/$program.log" 2>&1 ||
        { cat "$scratch/$program.log"; exit 1; }
    tail -n 1 "$scratch/$program.log" | grep '^crash_restart: PASS: '
}
check 2 heatdis
check 1 heatdis_cpp
check 4 heatdis_f90
echo "installed examples test: passed"
