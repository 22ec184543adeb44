#!/usr/bin/env bash
# Runs a Fortran test program in successive launches that share a work
# directory (a fresh one each time the test starts):
#   run_launches.sh PROGRAM RANKS WORKDIR PHASE...
# Each launch is `mpiexec -n RANKS PROGRAM WORKDIR/config.fti PHASE` and must
# exit with 0. The configuration uses local_test with two ranks per node.
set -euo pipefail
program=$1 ranks=$2 workdir=$3
shift 3
rm -rf "$workdir"
mkdir -p "$workdir"
cat > "$workdir/config.fti" <<CFG
[basic]
node_size = $(( ranks % 2 == 0 ? 2 : 1 ))
ckpt_dir = $workdir/local
glbl_dir = $workdir/global
meta_dir = $workdir/meta
verbosity = 2
[restart]
failure = 0
exec_id =
[advanced]
local_test = 1
CFG
cd "$workdir"
for phase in "$@"; do
    echo "=== $(basename "$program") phase $phase: $ranks ranks"
    timeout 120 mpiexec --oversubscribe -n "$ranks" "$program" "$workdir/config.fti" "$phase"
done
