#!/usr/bin/env bash
# SCR's own example programs, compiled unchanged against mlckpt's scr.h and
# scrf.h, run by SCR's own test wrapper in the order SCR's build registers
# them (examples/CMakeLists.txt: SCR_ADD_TEST, a serial and a 4-process
# parallel test each, every one launched twice: run, then restart), all in
# one directory, as `ctest` runs them in SCR's build tree.
#
#   run_scr_examples.sh SCR_SOURCE MLCKPT_PREFIX [WORKDIR]
#
# SCR_SOURCE is a checkout of SCR (github.com/LLNL/scr); it is only read:
# the programs, and SCR's examples/run_test.sh and test_cleanup.sh, which
# the run copies into WORKDIR as SCR's CMake copies them into its build
# tree. MLCKPT_PREFIX is an installed mlckpt (cmake --install). Nothing is
# fetched. Prints one line per test and a table (Markdown) at the end;
# exits 0 when every test that builds passes.
#
# A test passes when SCR's wrapper exits 0 (both launches), no launch
# prints a failure of an SCR call or an SCR error line, the first launch
# of each test starts afresh (the previous test's wrapper removed the
# prefix's .scr directory, which resets SCR), and, for the programs that
# write checkpoints, the second launch restarts from the first one's.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 SCR_SOURCE MLCKPT_PREFIX [WORKDIR]" >&2
    exit 2
fi
scr_src=$(cd "$1" && pwd)
prefix=$(cd "$2" && pwd)
work=${3:-$(mktemp -d -t scr-examples.XXXXXX)}
mkdir -p "$work/bin" "$work/run"
work=$(cd "$work" && pwd)
ex=$scr_src/examples
for f in test_api.c test_common.c run_test.sh test_cleanup.sh; do
    [ -f "$ex/$f" ] || { echo "$ex/$f: not an SCR source folder" >&2; exit 2; }
done
commit=$(git -C "$scr_src" rev-parse HEAD 2>/dev/null || echo unknown)

# SCR's documented build line (examples/makefile.examples.in).
opt=(-g -O2 "-I$prefix/include")
lib=("-L$prefix/lib" "-Wl,-rpath,$prefix/lib" -lscr)
declare -A built
build() {  # name, then the compile command
    local name=$1
    shift
    if "$@" > "$work/bin/$name.build.log" 2>&1; then
        built[$name]=yes
    else
        built[$name]=no
    fi
}
cd "$work/bin" || exit 2
build test_api mpicc "${opt[@]}" -o test_api "$ex/test_common.c" "$ex/test_api.c" "${lib[@]}"
build test_api_shared_file mpicc "${opt[@]}" -o test_api_shared_file "$ex/test_common.c" "$ex/test_api.c" "${lib[@]}"
build test_config mpicc "${opt[@]}" -o test_config "$ex/test_config.c" "${lib[@]}"
build test_api_multiple mpicc "${opt[@]}" -o test_api_multiple "$ex/test_common.c" "$ex/test_api_multiple.c" "${lib[@]}"
build test_ckpt mpicxx "${opt[@]}" -o test_ckpt "$ex/test_ckpt.cpp" "${lib[@]}"
build test_ckpt_F mpif77 "${opt[@]}" -o test_ckpt_F "$ex/test_ckpt.F" -lscrf "${lib[@]}"
build test_ckpt_F90 mpif90 "${opt[@]}" -o test_ckpt_F90 "$ex/test_ckpt.F90" -lscrf "${lib[@]}"

# SCR's launcher is `mpirun -np N`; as root, Open MPI needs its two
# variables and, with more ranks than cores, --oversubscribe.
cat > "$work/bin/mpirun" <<'LAUNCH'
#!/usr/bin/env bash
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
session=$(mktemp -d -t scr-examples-mpi.XXXXXX)
trap 'rm -rf "$session"' EXIT
TMPDIR=$session timeout 300 mpiexec --oversubscribe "$@"
LAUNCH
chmod +x "$work/bin/mpirun"

cd "$work/run" || exit 2
cp "$ex/run_test.sh" "$ex/test_cleanup.sh" .
chmod +x run_test.sh test_cleanup.sh
for t in "${!built[@]}"; do
    [ "${built[$t]}" = yes ] && ln -sf "$work/bin/$t" "$t"
done

# SCR's registration order, with each test's arguments and whether its
# program writes a checkpoint under SCR's defaults (test_ckpt asks
# SCR_Need_checkpoint, which says no without an interval).
tests=("test_api|" "test_api_shared_file|--shared" "test_config|" "test_api_multiple|"
       "test_ckpt|" "test_ckpt_F|" "test_ckpt_F90|")
writes_checkpoint() { [ "$1" != test_ckpt ] && [ "$1" != test_config ]; }
rows=()
failures=0
# verdict ROWS LABEL ROW PASSED LOG [PROBLEM...]: appends "| ROW | pass |
# PASSED |" to the array named ROWS when no problem is given, else a FAIL row
# listing them (and counts the failure); prints the verdict under LABEL.
verdict() {
    local -n into=$1
    local label=$2 row=$3 passed=$4 log=$5
    shift 5
    if [ $# -eq 0 ]; then
        into+=("| $row | pass | $passed |")
        echo "$label: PASS"
    else
        failures=$((failures + 1))
        into+=("| $row | FAIL | $* |")
        echo "$label: FAIL: $* (log: $log)"
    fi
}
for entry in "${tests[@]}"; do
    name=${entry%%|*}
    args=${entry#*|}
    for mode in serial parallel; do
        test_name=${mode}_${name}_restart
        procs=1
        [ $mode = parallel ] && procs=4
        if [ "${built[$name]}" != yes ]; then
            if [ "$name" = test_config ]; then
                reason="includes SCR's internal headers (\`scr_param.h\`, \`scr_globals.h\`) and reads SCR's internal globals"
            else
                reason="$(grep -m1 -o "error: .*" "$work/bin/$name.build.log" || echo 'see its build log')"
            fi
            rows+=("| $test_name | not built | $reason |")
            echo "$test_name: NOT BUILT ($reason)"
            continue
        fi
        log=$work/$test_name.log
        # shellcheck disable=SC2086
        SCR_JOB_ID=439 ./run_test.sh "$work/bin/mpirun" "-np $procs" ./$name restart $args > "$log" 2>&1
        rc=$?
        first=$(sed -n '/^Run: /,/^Restart: /p' "$log")
        second=$(sed -n '/^Restart: /,$p' "$log")
        problems=()
        [ $rc -eq 0 ] || problems+=("exit code $rc")
        bad="failed calling\|Could not\|Invalid value\|CORRUPTION\|don't agree\|SCR  Error\|SCR Error"
        grep -q "$bad" "$log" && problems+=("$(grep -m1 "$bad" "$log")")
        # test_api says it did not find a checkpoint also when there is
        # none to find (the first launch): only the second must find one.
        grep -q "did not find" <<< "$second" && problems+=("the second launch: $(grep -m1 "did not find" <<< "$second")")
        if grep -q "Restarting from\|restarting from dataset" <<< "$first"; then
            problems+=("the first launch restarted from an earlier test's state")
        fi
        if writes_checkpoint "$name" && [ $rc -eq 0 ] &&
            ! grep -q "Restarting from\|restarting from dataset" <<< "$second"; then
            problems+=("the second launch did not restart")
        fi
        restarted=$(grep -m1 -o "Restarting from checkpoint named [^ ]*\|restarting from dataset '[^']*'" <<< "$second")
        verdict rows "$test_name" "$test_name" "${restarted:-no checkpoint written (as with SCR)}" "$log" \
            ${problems[@]+"${problems[@]}"}
    done
done

# The scenarios of SCR's testing/TESTING.sh that run on one machine, with
# its settings (the cache on, two checkpoints kept, no flush, no fetch),
# test_api on 4 ranks, each rank a simulated node of its own (as -N4): runs
# that continue, a node's cache lost (rebuilt from the XOR set), the newest
# checkpoint lost on two nodes, the whole cache lost (a fresh start), then
# SCR_FLUSH=10 (checkpoints reach the prefix) and the whole cache lost again
# (the restart reads the prefix, as SCR's fetch does). Its other steps run
# SCR's scripts (scr_halt, scr_postrun, scr_index, scr_srun, scr_env) or
# need a batch allocation: mlckpt provides neither.
scenario_rows=()
scen=$work/testing
mkdir -p "$scen"
cd "$scen" || exit 2
ln -sf "$work/bin/test_api" test_api
export SCR_PREFIX=$scen SCR_CACHE_BASE=$scen/cache MLCKPT_NODE_SIZE=1 SCR_JOB_ID=439
export SCR_FETCH=0 SCR_FLUSH=0 SCR_DEBUG=1 SCR_LOG_ENABLE=0 SCR_JOB_NAME=testing_job SCR_CACHE_BYPASS=0
export SCR_CACHE_SIZE=2
step=0
scenario() {  # description, expected restart ("" for none, or a regex), then nothing: runs test_api on 4 ranks
    local what=$1 expect=$2
    step=$((step + 1))
    local log=$work/testing.$step.log
    "$work/bin/mpirun" -np 4 ./test_api > "$log" 2>&1
    local rc=$?
    local got
    got=$(grep -m1 -o "Restarting from checkpoint named [^ ]*" "$log" | sed 's/.* //')
    local problems=()
    [ $rc -eq 0 ] || problems+=("exit code $rc")
    local bad="failed calling\|Could not\|Invalid value\|don't agree\|SCR  Error"
    grep -q "$bad" "$log" && problems+=("$(grep -m1 "$bad" "$log")")
    [ -n "$expect" ] && grep -q "did not find" "$log" && problems+=("$(grep -m1 "did not find" "$log")")
    if [ -z "$expect" ]; then
        [ -z "$got" ] || problems+=("restarted from $got, expected a fresh start")
    elif ! grep -qx "$expect" <<< "$got"; then
        problems+=("restarted from '${got:-nothing}', expected $expect")
    fi
    verdict scenario_rows "testing step $step ($what)" "$step | $what" "${got:+restarted from }${got:-fresh start}" \
        "$log" ${problems[@]+"${problems[@]}"}
}
newest_cached() {  # the cache directory of the newest dataset on node $1
    ls -d "$scen/cache/node$1/.scr/"l*/ckpt* 2>/dev/null | sed 's/.*ckpt//' | sort -n | tail -1
}
rm -rf "$scen/cache" "$scen/.scr"
scenario "a first run" ""
scenario "run again: checkpoints continue where the last run left off" "ckpt.6"
rm -rf "$scen/cache/node0"
scenario "node 0's cache deleted: rebuilt from the XOR set" "ckpt.12"
latest=$(newest_cached 1)
rm -rf "$scen/cache/node0/.scr/"l*/"ckpt$latest" "$scen/cache/node1/.scr/"l*/"ckpt$latest"
scenario "newest checkpoint deleted on two nodes: rebuilt, or the older one" "ckpt.1[78]"
rm -rf "$scen/cache"
scenario "every node's cache deleted: the run starts over" ""
export SCR_FLUSH=10
scenario "SCR_FLUSH=10: checkpoints reach the prefix" "ckpt.6"
flushed=$(ls -d "$scen"/ckpt.* 2>/dev/null | sed 's|.*/||' | sort -t. -k2 -n | tr '\n' ' ')
# The checkpoint ids run on from the earlier runs' (as SCR's do after its
# cache was lost), so which names reach the prefix by id depends on them;
# the newest always does, at SCR_Finalize.
if [ -f "$scen/ckpt.12/rank_3.ckpt" ]; then verdict=pass; else verdict=FAIL; failures=$((failures + 1)); fi
scenario_rows+=("| | the prefix after SCR_FLUSH=10 | $verdict | in the prefix: ${flushed:-nothing} |")
export SCR_FETCH=1
rm -rf "$scen/cache"
scenario "every node's cache deleted, SCR_FETCH=1: restart from the prefix" "ckpt.12"
rm -rf "$scen/cache/node0" "$scen/cache/node1"
scenario "two nodes' cache deleted: restart from the cache or the prefix" "ckpt.18"
unset SCR_PREFIX SCR_CACHE_BASE MLCKPT_NODE_SIZE SCR_FETCH SCR_FLUSH SCR_DEBUG SCR_LOG_ENABLE SCR_JOB_NAME
unset SCR_CACHE_BYPASS SCR_CACHE_SIZE

echo
echo "SCR commit: $commit"
echo
echo "Registered example tests (examples/CMakeLists.txt), in SCR's order, one directory:"
echo
echo "| test | result | note |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "testing/TESTING.sh scenarios (test_api, 4 ranks on 4 simulated nodes):"
echo
echo "| step | scenario | result | note |"
echo "|---|---|---|---|"
printf '%s\n' "${scenario_rows[@]}"
exit $((failures > 0))
