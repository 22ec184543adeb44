#!/usr/bin/env bash
# Demo of checkpoint/restart with mlckpt: builds the heat-distribution example
# (examples/c/heatdis.c, or its Fortran or C++ twin), then at 4 MPI ranks
#   1. runs it without interruption (the reference),
#   2. runs it again with checkpoints and kills one rank in the middle,
#   3. at L2 and L3, deletes one simulated node's whole directory (a lost node),
#   4. relaunches that command unchanged: it restarts from the last checkpoint,
#   5. checks that the recovered run ends bit for bit like the reference.
#
# Usage: examples/run_demo.sh [--level 1|2|3|4] [--lang c|fortran|cpp]
#   --level L   checkpoint level: 1 = node-local storage (default),
#               2 = node-local + partner copy, 3 = node-local + Reed-Solomon,
#               4 = parallel file system
#   --lang X    which heatdis: c (examples/c/heatdis.c, the default),
#               fortran (examples/fortran/heatdis.f90, `use fti`) or
#               cpp (examples/cpp/heatdis.cpp, the C++ wrapper)
set -euo pipefail

level=1
lang=c
while [[ $# -gt 0 ]]; do
    case "$1" in
        --lang)
            [[ $# -ge 2 ]] || { echo "run_demo: --lang needs a value (c, fortran or cpp)" >&2; exit 2; }
            lang=$2
            shift 2
            ;;
        --lang=*)
            lang=${1#--lang=}
            shift
            ;;
        --level)
            [[ $# -ge 2 ]] || { echo "run_demo: --level needs a value (1 to 4)" >&2; exit 2; }
            level=$2
            shift 2
            ;;
        --level=*)
            level=${1#--level=}
            shift
            ;;
        -h | --help)
            sed -n '2,17s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
            exit 0
            ;;
        *)
            echo "run_demo: unknown argument '$1'; usage: run_demo.sh [--level 1|2|3|4] [--lang c|fortran|cpp]" >&2
            exit 2
            ;;
    esac
done
if [[ ! "$level" =~ ^[1-4]$ ]]; then
    echo "run_demo: --level '$level': allowed: 1, 2, 3 or 4" >&2
    exit 2
fi
case "$lang" in
    c) target=heatdis ;;
    fortran) target=heatdis_f90 ;;
    cpp) target=heatdis_cpp ;;
    *)
        echo "run_demo: --lang '$lang': allowed: c, fortran or cpp" >&2
        exit 2
        ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$repo/build"
config="$repo/examples/config/heatdis.fti"

ranks=4
iterations=600
ckpt_every=50
crash_at=333

heading() { printf '\n=== %s ===\n' "$*"; }

heading "build: dependencies, library and heatdis"
bash "$repo/tools/install-deps.sh"
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j2 --target "$target"
heatdis="$build/examples/$target"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mlckpt-demo.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# Open MPI: allow root, more ranks than cores, and no ptrace-based
# single-copy transfers (often forbidden in containers).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

# run_heatdis DIR LOG ARGS...: runs heatdis at $ranks ranks inside DIR (which
# holds the run's own copy of the configuration), showing the output and
# saving it to LOG. Returns the exit status of mpiexec.
run_heatdis() {
    local dir=$1 log=$2
    shift 2
    local rc=0
    (cd "$dir" && timeout 300 mpiexec --oversubscribe -n "$ranks" "$heatdis" --config heatdis.fti \
        --iterations "$iterations" "$@") 2>&1 | tee "$log" || rc=$?
    return "$rc"
}

# The one result line of a log ("" when there is none).
result_of() { grep -E '^heatdis: result ' "$1" | tail -n 1 || true; }

fail() {
    printf '\ndemo: FAIL: %s\n' "$*"
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
echo "demo: mpiexec exited with status $crash_rc, as expected after the crash"
if grep -qE '^heatdis: result ' "$scratch/crash.log"; then
    fail "the run meant to crash ran to completion"
fi
echo "demo: the configuration now records the restart:"
grep -E '^[[:space:]]*(failure|exec_id)[[:space:]]*=' "$crash_dir/heatdis.fti" | sed 's/^/    /'

if [[ "$level" == 2 || "$level" == 3 ]]; then
    heading "node loss: simulated node 1 loses its whole local directory"
    lost="$crash_dir/local/node1"
    [[ -d "$lost" ]] || fail "no directory $lost to delete"
    echo "demo: deleting $(find "$lost" -type f | wc -l) files under local/node1"
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
echo "demo: PASS: recovered run matches the uninterrupted run bit for bit (L$level, ${restart_line#heatdis: })"
