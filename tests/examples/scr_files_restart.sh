#!/usr/bin/env bash
# The crash/restart cycle of scr_files (C or Fortran): files the application
# writes itself, protected through SCR. An uninterrupted reference run, a
# run killed in the middle, the cache directory of the killed rank's
# simulated node deleted (so that its file must be rebuilt from partner
# copies or XOR parity: SCR_FLUSH=0 keeps the prefix empty), the unchanged
# relaunch that restarts, and the same result line bit for bit. SCR's
# parameters come from an SCR_CONF_FILE, the copy type from the environment.
#   scr_files_restart.sh SCR_FILES RANKS WORKDIR COPY_TYPE
set -euo pipefail
exe=$1 ranks=$2 workdir=$3 copy_type=$4
mpiexec=$(cd "$(dirname "$0")/../support" && pwd)/mpiexec.sh
rm -rf "$workdir"
for d in reference crash; do
    mkdir -p "$workdir/$d"
    cat > "$workdir/$d/scr.conf" <<CONF
# nodes of 2 ranks, simulated on this machine
MLCKPT_NODE_SIZE=2
SCR_PREFIX=$workdir/$d
SCR_CACHE_BASE=$workdir/$d/cache
SCR_SET_SIZE=2
SCR_FLUSH=0
# the cache, which SCR 3 bypasses by default
SCR_CACHE_BYPASS=0
SCR_CHECKPOINT_INTERVAL=25
CONF
done
run() {
    (cd "$workdir/$1" && SCR_CONF_FILE=scr.conf SCR_COPY_TYPE=$copy_type \
        timeout 120 "$mpiexec" --oversubscribe -n "$ranks" "$exe" "${@:2}")
}
run reference 120 16 > "$workdir/reference.log" 2>&1 || { cat "$workdir/reference.log"; exit 1; }
source "$(dirname "$0")/restart_cycle.sh"
crash_run 120 16 60
# Rank 1 died: its node (ranks 0 and 1) is lost with its cache.
[[ -d "$workdir/crash/cache/node0" ]] || { echo "no cache directory node0 under $workdir/crash/cache" >&2; exit 1; }
rm -rf "$workdir/crash/cache/node0"
restart_run scr_files 'scr_files: restarted from step 50 (dataset step.50)' 120 16 60
