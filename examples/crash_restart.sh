#!/usr/bin/env bash
# Checkpoint and restart of one heat-distribution example (heatdis, heatdis_cpp
# or heatdis_f90, built in the tree or from an installed mlckpt's
# share/mlckpt/examples), at 4 MPI ranks in a scratch folder:
#   1. runs it without interruption (the reference),
#   2. runs it again with checkpoints and kills one rank in the middle,
#   3. at L2 and L3, deletes one simulated node's whole directory (a lost node),
#   4. relaunches that command unchanged: it restarts from the last checkpoint,
#   5. checks that the recovered run ends bit for bit like the reference.
# Exits 0 after printing a last line "crash_restart: PASS: ...".
#
# Usage: crash_restart.sh [--level 1|2|3|4] [--mpiexec COMMAND] PROGRAM
#   --level L      checkpoint level: 1 = node-local storage (default),
#                  2 = node-local + partner copy, 3 = node-local + Reed-Solomon,
#                  4 = parallel file system
#   --mpiexec CMD  the MPI launcher (default: mpiexec)
set -euo pipefail

level=1
mpiexec=mpiexec
program=
usage="usage: crash_restart.sh [--level 1|2|3|4] [--mpiexec COMMAND] PROGRAM"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --level | --mpiexec)
            [[ $# -ge 2 ]] || { echo "crash_restart: $1 needs a value; $usage" >&2; exit 2; }
            if [[ "$1" == --level ]]; then level=$2; else mpiexec=$2; fi
            shift 2
            ;;
        -h | --help)
            sed -n '2,16s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
            exit 0
            ;;
        -*)
            echo "crash_restart: unknown option '$1'; $usage" >&2
            exit 2
            ;;
        *)
            [[ -z "$program" ]] || { echo "crash_restart: one PROGRAM only; $usage" >&2; exit 2; }
            program=$1
            shift
            ;;
    esac
done
[[ -n "$program" ]] || { echo "crash_restart: no PROGRAM given; $usage" >&2; exit 2; }
[[ -x "$program" ]] || { echo "crash_restart: '$program' is not an executable program" >&2; exit 2; }
if [[ ! "$level" =~ ^[1-4]$ ]]; then
    echo "crash_restart: --level '$level': allowed: 1, 2, 3 or 4" >&2
    exit 2
fi
heatdis=$(cd "$(dirname "$program")" && pwd)/$(basename "$program")
config="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/config/heatdis.fti"

ranks=4
iterations=600
ckpt_every=50
crash_at=333

heading() { printf '\n=== %s ===\n' "$*"; }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mlckpt-crash-restart.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Open MPI: allow root, more ranks than cores, and no ptrace-based
# single-copy transfers (often forbidden in containers).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
# Open MPI's launcher also needs leave to run more ranks than cores; other
# launchers (MPICH's) allow it and do not know the option.
launch=("$mpiexec")
if "$mpiexec" --version 2>&1 | grep -qiE 'open mpi|open rte'; then
    launch+=(--oversubscribe)
fi

# run_heatdis DIR LOG ARGS...: runs heatdis at $ranks ranks inside DIR (which
# holds the run's own copy of the configuration), showing the output and
# saving it to LOG. Returns the exit status of mpiexec.
run_heatdis() {
    local dir=$1 log=$2
    shift 2
    local rc=0
    (cd "$dir" && timeout 300 "${launch[@]}" -n "$ranks" "$heatdis" --config heatdis.fti \
        --iterations "$iterations" "$@") 2>&1 | tee "$log" || rc=$?
    return "$rc"
}

# The one result line of a log ("" when there is none).
result_of() { grep -E '^heatdis: result ' "$1" | tail -n 1 || true; }

fail() {
    printf '\ncrash_restart: FAIL: %s\n' "$*"
    exit 1
}

ref_dir="$scratch/reference"
crash_dir="$scratch/crash"
mkdir -p "$ref_dir" "$crash_dir"
cp "$config" "$ref_dir/heatdis.fti"
cp "$config" "$crash_dir/heatdis.fti"
crash_args=(--ckpt-every "$ckpt_every" --level "$level" --crash-at "$crash_at")

heading "run: uninterrupted reference run, $iterations iterations at $ranks ranks"
run_heatdis "$ref_dir" "$scratch/reference.log" --ckpt-every "$ckpt_every" --level "$level" ||
    fail "the reference run failed (exit status $?)"
reference=$(result_of "$scratch/reference.log")
[[ -n "$reference" ]] || fail "the reference run printed no result line"

heading "crash: L$level checkpoint every $ckpt_every iterations, one rank killed at iteration $crash_at"
crash_rc=0
run_heatdis "$crash_dir" "$scratch/crash.log" "${crash_args[@]}" || crash_rc=$?
if [[ $crash_rc -eq 0 ]]; then
    fail "the run meant to crash exited successfully"
elif [[ $crash_rc -eq 124 ]]; then
    fail "the run meant to crash hung and was stopped after 300 s"
fi
echo "crash_restart: mpiexec exited with status $crash_rc, as expected after the crash"
if grep -qE '^heatdis: result ' "$scratch/crash.log"; then
    fail "the run meant to crash ran to completion"
fi
echo "crash_restart: the configuration now records the restart:"
grep -E '^[[:space:]]*(failure|exec_id)[[:space:]]*=' "$crash_dir/heatdis.fti" | sed 's/^/    /'

if [[ "$level" == 2 || "$level" == 3 ]]; then
    heading "node loss: simulated node 1 loses its whole local directory"
    lost="$crash_dir/local/node1"
    [[ -d "$lost" ]] || fail "no directory $lost to delete"
    echo "crash_restart: deleting $(find "$lost" -type f | wc -l) files under local/node1"
    rm -rf "$lost"
fi

heading "restart: the same command relaunched unchanged"
run_heatdis "$crash_dir" "$scratch/restart.log" "${crash_args[@]}" ||
    fail "the relaunched run failed (exit status $?)"
restart_line=$(grep -E '^heatdis: restarted from iteration [0-9]+' "$scratch/restart.log" || true)
[[ -n "$restart_line" ]] || fail "the relaunched run did not restart from a checkpoint"
recovered=$(result_of "$scratch/restart.log")
[[ -n "$recovered" ]] || fail "the relaunched run printed no result line"

heading "recover: compare the recovered run with the reference"
echo "reference: $reference"
echo "recovered: $recovered"
if [[ "$recovered" != "$reference" ]]; then
    fail "the recovered run differs from the uninterrupted run"
fi
echo
echo "crash_restart: PASS: recovered run matches the uninterrupted run bit for bit (L$level, ${restart_line#heatdis: })"
