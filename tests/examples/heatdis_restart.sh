#!/usr/bin/env bash
# The demo's cycle as a test, for any heatdis (C, Fortran, C++): an
# uninterrupted reference run, a run killed in the middle, the unchanged
# relaunch that restarts, and the same result line bit for bit.
#   heatdis_restart.sh HEATDIS RANKS WORKDIR LEVEL
set -euo pipefail
heatdis=$1 ranks=$2 workdir=$3 level=$4
mpiexec=$(cd "$(dirname "$0")/../support" && pwd)/mpiexec.sh
rm -rf "$workdir"
mkdir -p "$workdir/reference" "$workdir/crash"
for d in reference crash; do
    bash "$(dirname "$0")/../support/write_config.sh" "$workdir/$d/heatdis.fti" "$workdir/$d" 2 2
done
args=(--iterations 120 --ckpt-every 25 --level "$level" --rows 24 --cols 32)
run() { (cd "$workdir/$1" && timeout 120 "$mpiexec" --oversubscribe -n "$ranks" "$heatdis" --config heatdis.fti "${@:2}"); }

run reference "${args[@]}" > "$workdir/reference.log" 2>&1 || { cat "$workdir/reference.log"; exit 1; }
source "$(dirname "$0")/restart_cycle.sh"
crash_run "${args[@]}" --crash-at 60
restart_run heatdis 'heatdis: restarted from iteration 50' "${args[@]}" --crash-at 60
