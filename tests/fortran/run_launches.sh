#!/usr/bin/env bash
# Runs a Fortran test program in successive launches that share a work
# directory (a fresh one each time the test starts):
#   run_launches.sh PROGRAM RANKS WORKDIR PHASE...
# Each launch is `mpiexec -n RANKS PROGRAM WORKDIR/config.fti PHASE` and must
# exit with 0. The configuration uses local_test with two ranks per node.
set -euo pipefail
program=$1 ranks=$2 workdir=$3
shift 3
mpiexec=$(cd "$(dirname "$0")/../support" && pwd)/mpiexec.sh
rm -rf "$workdir"
mkdir -p "$workdir"
bash "$(dirname "$0")/../support/write_config.sh" "$workdir/config.fti" "$workdir" $(( ranks % 2 == 0 ? 2 : 1 ))
cd "$workdir"
for phase in "$@"; do
    echo "=== $(basename "$program") phase $phase: $ranks ranks"
    timeout 120 "$mpiexec" --oversubscribe -n "$ranks" "$program" "$workdir/config.fti" "$phase"
done
