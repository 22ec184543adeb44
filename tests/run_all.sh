#!/usr/bin/env bash
# The README's test command. Installs missing Debian packages, builds the
# project twice (optimised, and with AddressSanitizer + UndefinedBehavior-
# Sanitizer) and runs the whole suite on both builds, whatever the first one
# gives; then builds the fuzz targets with clang (build-fuzz/: libFuzzer, the
# readers alone) and fuzzes each for MLCKPT_FUZZ_SECONDS (10 by default).
# The sanitizer build compiles while the optimised suite runs (at a lower
# priority; its output in build-asan.build.log).
# The three are reported at the end, each by its table per label (ran,
# passed, failed, skipped: a label whose tests all skipped fails, unless
# this machine cannot run it and its probe says why) and CTest's summary;
# the last lines printed are CTest's summary of the sanitizer run, and the
# exit code is non-zero when any suite failed.
#
#   bash tests/run_all.sh               both builds, both suites
#   bash tests/run_all.sh --stress N [REGEX]
#                                       optimised build only: every MPI
#                                       scenario (label mpi; those whose name
#                                       matches REGEX) run up to N times while
#                                       a CPU hog keeps every core busy,
#                                       stopping a scenario at its first
#                                       failure. Run it before resolving an
#                                       issue that touches the MPI paths:
#                                       flakiness shows there, not to users.
#   bash tests/run_all.sh --separate-nodes
#                                       optimised build only: every MPI
#                                       scenario on separate nodes (label
#                                       multinode), the matrix of levels and
#                                       formats included, which the suites
#                                       leave out (label multinode_matrix).
#   bash tests/run_all.sh --power-loss [RECORD_DIR [REGEX]]
#                                       optimised build only: every power-
#                                       loss case (label powerloss; those
#                                       whose name matches REGEX) with a
#                                       power cut after every operation of
#                                       its checkpoint, not the suite's
#                                       drawn one; the cases' lines are
#                                       added to RECORD_DIR/cases.tsv
#                                       (default: tests/results/<date>-
#                                       power-loss).
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

stress=0
power_loss=""
separate_nodes=0
only=()
case ${1:-} in
    "") ;;
    --power-loss)
        power_loss=${2:-$repo/tests/results/$(date +%F)-power-loss}
        [[ -z ${3:-} ]] || only=(-R "$3")
        ;;
    --separate-nodes) separate_nodes=1 ;;
    --stress)
        stress=${2:-}
        [[ $stress =~ ^[1-9][0-9]*$ ]] ||
            { echo "usage: $0 [--stress N [REGEX]] (N: repetitions, at least 1)" >&2; exit 2; }
        [[ -z ${3:-} ]] || only=(-R "$3")
        ;;
    *) echo "usage: $0 [--stress N [REGEX] | --separate-nodes | --power-loss [RECORD_DIR [REGEX]]]" >&2; exit 2 ;;
esac

bash "$repo/tools/install-deps.sh"

configure() {  # configure DIR [CMAKE OPTIONS...]
    local dir=$1
    shift
    mkdir -p "$dir"
    cmake -S "$repo" -B "$dir" -G Ninja "$@" > "$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log"; exit 1; }
}
build() {  # build DIR [CMAKE OPTIONS...]
    configure "$@"
    cmake --build "$1" -j 2
}

# Line tables (-g1) rather than full debug information: the stacks of a
# hung launch (gdb) and the sanitizers' reports still name every function,
# file and line, and the builds take a fifth less time. The sanitizer build
# leaves out the benchmarks: the tests that run them (label scaling) are
# the optimised build's; and it compiles core/ as unity sources (a third of
# its time: the optimised build compiles each file alone, with its own
# includes).
optimised=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG"
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")
# The suite's power-loss cases try 1 crash point each, drawn with the
# case's own seed (--power-loss: all).
suite_points=(-DMLCKPT_POWERLOSS_POINTS=1)

if [[ $stress -gt 0 ]]; then
    echo "== building (RelWithDebInfo, line tables) in build/"
    build "$repo/build" "${optimised[@]}" "${suite_points[@]}"
    hogs=()
    stop_hogs() { [[ ${#hogs[@]} -eq 0 ]] || kill "${hogs[@]}" 2>/dev/null || true; }
    trap stop_hogs EXIT
    for _ in $(seq "$(nproc)"); do
        ( while :; do :; done ) &
        hogs+=($!)
    done
    echo "== stress: every MPI scenario up to $stress times, with ${#hogs[@]} busy loops on $(nproc) cores"
    ctest --test-dir "$repo/build" -L '^mpi$' ${only[@]+"${only[@]}"} -j 2 --repeat "until-fail:$stress" \
        --output-on-failure
    exit
fi

if [[ $separate_nodes -eq 1 ]]; then
    echo "== building (RelWithDebInfo, line tables) in build/"
    build "$repo/build" "${optimised[@]}" "${suite_points[@]}"
    echo "== every MPI scenario on separate nodes"
    ctest --test-dir "$repo/build" -L '^multinode$' -j 2 --output-on-failure
    exit
fi

if [[ -n $power_loss ]]; then
    echo "== building (RelWithDebInfo, line tables) in build/, every crash point of the power-loss cases"
    build "$repo/build" "${optimised[@]}" -DMLCKPT_POWERLOSS_POINTS=all
    mkdir -p "$power_loss"
    power_loss=$(cd "$power_loss" && pwd)
    # A record grows: a later run of some cases (REGEX) adds their lines.
    [[ -s $power_loss/cases.tsv ]] ||
        printf 'case\tcheckpoint operations\trelaunch operations\tcrash states tried\tpassed\tfailed at (k or k/j)\n' \
            > "$power_loss/cases.tsv"
    git -C "$repo" rev-parse HEAD >> "$power_loss/commits.txt" 2>/dev/null || true
    echo "== power loss: every crash point of every case; lines in $power_loss/cases.tsv"
    # Hours, not minutes: the cases' timeouts are configured with "all".
    MLCKPT_POWERLOSS_RECORD=$power_loss/cases.tsv \
        ctest --test-dir "$repo/build" -L '^powerloss$' ${only[@]+"${only[@]}"} -j 2 --output-on-failure 2>&1 |
        tee -a "$power_loss/ctest.log"
    exit "${PIPESTATUS[0]}"
fi

echo "== building (RelWithDebInfo, line tables) in build/"
build "$repo/build" "${optimised[@]}" "${suite_points[@]}"

# The sanitizer build compiles while the optimised suite runs. That suite
# keeps the cores about two-thirds busy (its tests wait on launches, syncs
# and each other); the build, at a lower priority, takes what they leave,
# and the suite runs on a loaded machine, as its tests must pass on one.
# Its output goes to DIR.build.log, shown when it fails.
background_build() {  # background_build DIR [CMAKE OPTIONS...]: starts it; `finish_build DIR` waits
    local dir=$1
    shift
    configure "$dir" "$@"
    echo "== building $dir in the background (output: $dir.build.log)"
    nice -n 10 cmake --build "$dir" -j 2 > "$dir.build.log" 2>&1 &
    background_pid=$!
}
finish_build() {  # finish_build DIR: 0 when the background build of DIR succeeded
    local rc=0
    wait "$background_pid" || rc=$?
    if [[ $rc -ne 0 ]]; then
        echo "== the build in $1 failed:"
        tail -n 60 "$1.build.log"
    fi
    return "$rc"
}
background_build "$repo/build-asan" -DCMAKE_BUILD_TYPE=Debug -DMLCKPT_SANITIZE=ON -DMLCKPT_BUILD_BENCH=OFF \
    -DMLCKPT_UNITY_CORE=ON -DCMAKE_C_FLAGS_DEBUG=-g1 -DCMAKE_CXX_FLAGS_DEBUG=-g1

# Labels that may run nothing on this machine, each with the reason its
# probe gave (tests/support/label_summary.py prints it); any other label
# whose tests all skip fails its suite.
optional_labels=()
if ! why=$(bash "$repo/tests/support/separate_nodes_probe.sh"); then
    optional_labels+=(--optional "multinode=$why")
fi
if [[ ! -c /dev/fuse ]] || ! command -v fusermount3 > /dev/null; then
    optional_labels+=(--optional "powerloss=FUSE cannot be mounted here (no /dev/fuse or no fusermount3)")
fi

suite() {  # suite NAME DIR [CTEST SELECTION...]: runs one suite, its output also kept in DIR.ctest.log
    local name=$1 dir=$2
    shift 2
    echo "== test suite, $name"
    set +e
    ctest --test-dir "$dir" -j 2 --output-on-failure --output-junit "$dir.junit.xml" "$@" 2>&1 |
        tee "$dir.ctest.log"
    local rc=${PIPESTATUS[0]}
    # CTest counts a skipped test as passed: the table per label counts
    # skips apart, and fails the suite when a label ran nothing.
    ctest --test-dir "$dir" --show-only=json-v1 "$@" > "$dir.tests.json" &&
        python3 "$repo/tests/support/label_summary.py" --tests "$dir.tests.json" --junit "$dir.junit.xml" \
            ${optional_labels[@]+"${optional_labels[@]}"} > "$dir.labels.txt" 2>&1
    local labels_rc=$?
    set -e
    cat "$dir.labels.txt" 2> /dev/null || echo "label summary: not made (see above)" | tee "$dir.labels.txt"
    [[ $rc -ne 0 ]] || rc=$labels_rc
    return "$rc"
}
summary() {  # a suite's table per label, then CTest's closing lines of its log (from "tests passed" on)
    cat "$1.labels.txt"
    sed -n '/tests passed, /,$p' "$1.ctest.log"
}

optimised=0
sanitized=0
fuzzed=0
# The optimised suite leaves out the matrix of levels and formats repeated on
# separate nodes ("multinode_matrix": 54 scenarios, 350 s of the suite's
# 2400 s of test time, each two to three times its single-node twin, whose
# code it repeats): `--separate-nodes` runs it. The separate-node scenarios of code
# that only separate nodes run (tests/mpi/scenarios.cmake) stay in both
# suites.
suite "optimised build" "$repo/build" -LE '^multinode_matrix$' || optimised=$?
echo "== the sanitizer build (AddressSanitizer + UndefinedBehaviorSanitizer) in build-asan/"
sanitizer_built=1
finish_build "$repo/build-asan" || sanitizer_built=0
# Without what the optimised build runs and the sanitizers add nothing to:
# the "large" MPI runs (8 or more ranks besides a smaller run of the same
# scenario, or of a format's or codec's variant: the smaller runs, and the
# scenario's own 8-rank run, cover the same code), the checks of the
# sources, headers, installed tree and build lines ("build_checks"), the
# programs of the documentation ("docs": their library calls are the unit
# and MPI suites' too), and the tests that measure the process's memory
# ("footprint": under AddressSanitizer it is the sanitizer's), and the
# separate-node scenarios of the matrix ("multinode_matrix": every level and
# format again on separate nodes; the separate-node scenarios of code that
# only separate nodes run stay, tests/mpi/scenarios.cmake), and the power
# cuts at the crash points of a checkpoint ("powerloss.crash.*": what they
# test is the order of writes and syncs, the same in both builds; the
# restarts they make are the MPI scenarios' restarts). They would double the
# sanitizer suite's time.
if [[ $sanitizer_built -eq 1 ]]; then
    suite "sanitizer build" "$repo/build-asan" -LE '^(large|build_checks|docs|footprint|multinode_matrix)$' \
        -E '^powerloss\.crash\.' || sanitized=$?
else
    sanitized=1
fi

# Only the fuzz targets and the part of core they read with: the rest of the
# project is built and tested above. Built last, so that a failure here
# keeps nothing else from running; not beside the sanitizer suite, which
# keeps the cores busier than the optimised one (measured: it lost more
# time than the build took).
echo "== building the fuzz targets with clang (libFuzzer, ASan + UBSan) in build-fuzz/"
if (configure "$repo/build-fuzz" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DMLCKPT_FUZZ=ON \
        -DMLCKPT_BUILD_EXAMPLES=OFF -DMLCKPT_BUILD_BENCH=OFF &&
    cmake --build "$repo/build-fuzz" -j 2 --target mlckpt_fuzz); then
    fuzz_built=1
    suite "fuzz targets" "$repo/build-fuzz" -L '^fuzz$' || fuzzed=$?
else
    fuzz_built=0
    fuzzed=1
fi

echo
echo "== summary of the fuzz targets"
if [[ $fuzz_built -eq 1 ]]; then
    summary "$repo/build-fuzz"
else
    echo "not built: see the build's output above"
fi
echo "== summary of the optimised build"
summary "$repo/build"
echo "== summary of the sanitizer build"
if [[ $sanitizer_built -eq 1 ]]; then
    summary "$repo/build-asan"
else
    echo "not built: see the build's output above ($repo/build-asan.build.log)"
fi
[[ $optimised -eq 0 && $sanitized -eq 0 && $fuzzed -eq 0 ]]
