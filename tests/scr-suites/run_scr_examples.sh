#!/usr/bin/env bash
# SCR's own example programs, compiled unchanged against mlckpt's scr.h and
# scrf.h, run by SCR's own test wrapper in the order SCR's build registers
# them (examples/CMakeLists.txt: SCR_ADD_TEST, a serial and a 4-process
# parallel test each, every one launched twice: run, then restart), all in
# one directory, as `ctest` runs them in SCR's build tree.
#
#   run_scr_examples.sh SCR_SOURCE MLCKPT_PREFIX [WORKDIR]
#   run_scr_examples.sh --check RECORD
#
# SCR_SOURCE is a checkout of SCR (github.com/LLNL/scr); it is only read:
# the programs, and SCR's examples/run_test.sh and test_cleanup.sh, which
# the run copies into WORKDIR as SCR's CMake copies them into its build
# tree. MLCKPT_PREFIX is an installed mlckpt (cmake --install). Nothing is
# fetched. Prints one line per test and a table (Markdown) at the end.
#
# A test passes when SCR's wrapper exits 0 (both launches), each launch
# reached SCR_Init (mlckpt's "SCR interface:" line), no launch prints a
# failure of an SCR call or an SCR error line, the first launch of each
# test starts afresh (the previous test's wrapper removed the prefix's .scr
# directory, which resets SCR), and, for the programs that write
# checkpoints, the second launch restarts from the first one's.
#
# Exit status: 0 when every test and scenario passed, apart from the
# documented differences below; 1 when any other failed, hung, did not run
# or did not build; 2 on a usage or setup error.
#
# WORKDIR (a temporary directory if not given) receives:
#   table.md      the table printed at the end
#   results.tsv   part (example, scenario), test, result, verdict (ok,
#                 xfail: a documented difference, xpass: one that passed,
#                 FAIL: unexpected), note
#   summary.txt   the totals and the verdict
#   raw/          what those three are computed from: raw/run.txt (the SCR
#                 commit), raw/compiler-output/PROGRAM.txt (the compiler's output and
#                 exit status), raw/TEST.log (SCR's wrapper's output and exit
#                 status), raw/testing.N.log (each scenario's output and
#                 exit status), raw/testing.prefix.txt (the files in the
#                 prefix after SCR_FLUSH=10); the run's folders are written
#                 WORKDIR, SCR_SOURCE and PREFIX in them, so that they can
#                 be committed as a record
# --check RECORD rebuilds the three tables of a record (a copy of a WORKDIR's
# table.md, results.tsv, summary.txt and raw/, e.g.
# tests/results/<date>-scr-examples) from its raw/ and compares them with
# the record's: exit 0 when they agree.
set -u

# ------------------------------------------------- documented differences --
# Programs that mlckpt knowingly cannot build (docs/scr.md, "SCR's own
# tests"), each with its reason: their two tests are expected failures and
# do not make the run fail; such a program that builds is reported (xpass)
# and its tests then run as any other. Every other program must build.
# program|reason
EXPECTED_NOT_BUILT=(
    "test_config|includes SCR's internal headers (\`scr_param.h\`, \`scr_globals.h\`) and reads SCR's internal parameter table and globals (\`scr_param_get\`, \`scr_param_finalize\`, \`scr_copy_type\`), which only SCR's own build has"
)
declare -A expected_not_built=()
for e in "${EXPECTED_NOT_BUILT[@]}"; do expected_not_built[${e%%|*}]=${e#*|}; done

# SCR's registration order, with each test's arguments.
tests=("test_api|" "test_api_shared_file|--shared" "test_config|" "test_api_multiple|"
       "test_ckpt|" "test_ckpt_F|" "test_ckpt_F90|")
# Whether a program writes a checkpoint under SCR's defaults (test_ckpt
# asks SCR_Need_checkpoint, which says no without an interval).
writes_checkpoint() { [ "$1" != test_ckpt ] && [ "$1" != test_config ]; }

# The scenarios of SCR's testing/TESTING.sh that run on one machine: what
# each does, and the dataset its restart must start from (a regex; empty: a
# fresh start). The steps between them are in run_scenarios below.
scenarios=(
    "a first run|"
    "run again: checkpoints continue where the last run left off|ckpt.6"
    "node 0's cache deleted: rebuilt from the XOR set|ckpt.12"
    "newest checkpoint deleted on two nodes: rebuilt, or the older one|ckpt.1[78]"
    "every node's cache deleted: the run starts over|"
    "SCR_FLUSH=10: checkpoints reach the prefix|ckpt.6"
    "every node's cache deleted, SCR_FETCH=1: restart from the prefix|ckpt.12"
    "two nodes' cache deleted: restart from the cache or the prefix|ckpt.18"
)
LAUNCH_TIMEOUT=300

# ----------------------------------------------------- judging raw output --
# Every verdict is computed from the raw output alone, by these functions:
# the run and --check both go through make_report, so a record's tables can
# be rebuilt from its raw/ and compared.

# Lines that mean an SCR call failed or the data is wrong, in any launch.
BAD="failed calling\|Could not\|Invalid value\|CORRUPTION\|don't agree\|SCR  Error\|SCR Error"

join_lines() {  # stdin's lines as one, separated by "; "
    awk '{ printf "%s%s", (NR > 1 ? "; " : ""), $0 }'
}

exit_of() {  # $1: log; the exit status the runner appended, or nothing
    sed -n 's/^\[runner\] exit \([0-9][0-9]*\)$/\1/p' "$1" | tail -1
}

judge_test() {
    # $1: raw log of a registered test, $2: its program. Prints the problems,
    # one a line (none: it passed), then "note: ..." (the restart it made).
    local log=$1 name=$2 rc first second restarted
    rc=$(exit_of "$log")
    first=$(sed -n '/^Run: /,/^Restart: /p' "$log")
    second=$(sed -n '/^Restart: /,$p' "$log")
    if [ -z "$rc" ]; then
        echo "the log has no \"[runner] exit\" line: the test did not finish"
    elif [ "$rc" = 124 ]; then
        echo "hang: a launch was killed after ${LAUNCH_TIMEOUT} s"
    elif [ "$rc" != 0 ]; then
        echo "exit code $rc"
    fi
    # Without SCR's wrapper's lines the two launches cannot be told apart,
    # and nothing below would be checked.
    grep -q '^Run: ' "$log" || echo "no \"Run:\" line: this is not the output of SCR's run_test.sh"
    if [ "$rc" = 0 ] && ! grep -q '^Restart: ' "$log"; then
        echo "no \"Restart:\" line: the second launch did not run"
    fi
    # Each launch must have reached SCR_Init: a program that does nothing
    # must not pass.
    [ -n "$first" ] && ! grep -q "SCR interface:" <<<"$first" &&
        echo "the first launch printed no \"SCR interface:\" line (mlckpt's SCR_Init)"
    [ -n "$second" ] && ! grep -q "SCR interface:" <<<"$second" &&
        echo "the second launch printed no \"SCR interface:\" line (mlckpt's SCR_Init)"
    grep -m1 "$BAD" "$log"
    # test_api says it did not find a checkpoint also when there is none
    # to find (the first launch): only the second must find one.
    grep -m1 "did not find" <<<"$second" | sed 's/^/the second launch: /'
    grep -q "Restarting from\|restarting from dataset" <<<"$first" &&
        echo "the first launch restarted from an earlier test's state"
    if writes_checkpoint "$name" && [ "$rc" = 0 ] &&
        ! grep -q "Restarting from\|restarting from dataset" <<<"$second"; then
        echo "the second launch did not restart"
    fi
    restarted=$(grep -m1 -o "Restarting from checkpoint named [^ ]*\|restarting from dataset '[^']*'" <<<"$second")
    echo "note: ${restarted:-no checkpoint written (as with SCR)}"
}

judge_scenario() {
    # $1: raw log of a scenario, $2: the restart it must make (regex; empty:
    # a fresh start). Prints the problems, then "note: ...".
    local log=$1 expect=$2 rc got
    rc=$(exit_of "$log")
    got=$(grep -m1 -o "Restarting from checkpoint named [^ ]*" "$log" | sed 's/.* //')
    if [ -z "$rc" ]; then
        echo "the log has no \"[runner] exit\" line: the scenario did not finish"
    elif [ "$rc" = 124 ]; then
        echo "hang: the launch was killed after ${LAUNCH_TIMEOUT} s"
    elif [ "$rc" != 0 ]; then
        echo "exit code $rc"
    fi
    grep -q "SCR interface:" "$log" || echo "no \"SCR interface:\" line: test_api did not reach SCR_Init"
    grep -m1 "failed calling\|Could not\|Invalid value\|don't agree\|SCR  Error" "$log"
    [ -n "$expect" ] && grep -m1 "did not find" "$log"
    if [ -z "$expect" ]; then
        [ -z "$got" ] || echo "restarted from $got, expected a fresh start"
    elif ! grep -qx "$expect" <<<"$got"; then
        echo "restarted from '${got:-nothing}', expected $expect"
    fi
    echo "note: ${got:+restarted from }${got:-fresh start}"
}

make_report() {
    # $1: a folder with raw/. Writes its results.tsv, table.md, summary.txt;
    # returns 0 when nothing failed unexpectedly, else 1.
    local dir=$1 raw=$1/raw entry name mode t built why log out problems note result verdict
    local -a rows=() scenario_rows=() unexpected=() xpasses=()
    local n=0 ok=0 xfail=0 xpass=0 fail=0 sn=0 sok=0 sfail=0 step
    [ -d "$raw" ] || { echo "$raw: no raw output to report from" >&2; return 2; }
    printf 'part\ttest\tresult\tverdict\tnote\n' >"$dir/results.tsv"
    record() {  # part test result verdict note, and the counts
        printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$dir/results.tsv"
        case $4 in
            FAIL) unexpected+=("$2: $5") ;;
            xpass) xpasses+=("$2: $5") ;;
        esac
    }
    for entry in "${tests[@]}"; do
        name=${entry%%|*}
        why=${expected_not_built[$name]:-}
        # built: the last "[runner] exit" line of the compiler's log is 0
        built=no
        [ -f "$raw/compiler-output/$name.txt" ] && [ "$(exit_of "$raw/compiler-output/$name.txt")" = 0 ] && built=yes
        for mode in serial parallel; do
            t=${mode}_${name}_restart
            n=$((n + 1))
            if [ $built = no ]; then
                if [ -n "$why" ]; then
                    xfail=$((xfail + 1))
                    rows+=("| $t | not built (documented) | $why |")
                    record example "$t" not-built xfail "$why"
                else
                    fail=$((fail + 1))
                    note=$(grep -m1 -o "error: .*" "$raw/compiler-output/$name.txt" 2>/dev/null || echo "see raw/compiler-output/$name.txt")
                    [ -f "$raw/compiler-output/$name.txt" ] || note="no compiler output in raw/compiler-output: it was not built"
                    rows+=("| $t | FAIL: not built | $note |")
                    record example "$t" not-built FAIL "did not build: $note"
                fi
                continue
            fi
            log=$raw/$t.log
            if [ -f "$log" ]; then
                out=$(judge_test "$log" "$name")
            else
                out=$(printf '%s\n' "no log raw/$t.log: the test did not run" "note: -")
            fi
            note=$(sed -n 's/^note: //p' <<<"$out")
            problems=$(grep -v '^note: ' <<<"$out" | join_lines)
            if [ -n "$problems" ]; then
                fail=$((fail + 1))
                rows+=("| $t | FAIL | $problems |")
                record example "$t" fail FAIL "$problems"
            elif [ -n "$why" ]; then
                xpass=$((xpass + 1))
                rows+=("| $t | pass (documented as not building) | $note |")
                record example "$t" pass xpass "builds and passes, although documented: $why"
            else
                ok=$((ok + 1))
                rows+=("| $t | pass | $note |")
                record example "$t" pass ok "$note"
            fi
        done
    done
    step=0
    for entry in "${scenarios[@]}"; do
        step=$((step + 1))
        sn=$((sn + 1))
        log=$raw/testing.$step.log
        if [ -f "$log" ]; then
            out=$(judge_scenario "$log" "${entry#*|}")
        else
            out=$(printf '%s\n' "no log raw/testing.$step.log: the scenario did not run" "note: -")
        fi
        note=$(sed -n 's/^note: //p' <<<"$out")
        problems=$(grep -v '^note: ' <<<"$out" | join_lines)
        if [ -n "$problems" ]; then
            sfail=$((sfail + 1))
            scenario_rows+=("| $step | ${entry%%|*} | FAIL | $problems |")
            record scenario "testing step $step (${entry%%|*})" fail FAIL "$problems"
        else
            sok=$((sok + 1))
            scenario_rows+=("| $step | ${entry%%|*} | pass | $note |")
            record scenario "testing step $step (${entry%%|*})" pass ok "$note"
        fi
        if [ $step = 6 ]; then
            # The checkpoint ids run on from the earlier runs' (as SCR's do
            # after its cache was lost), so which names reach the prefix by
            # id depends on them; the newest always does, at SCR_Finalize.
            sn=$((sn + 1))
            note="in the prefix: $(grep -o '^ckpt\.[0-9]*' "$raw/testing.prefix.txt" 2>/dev/null | sort -u -t. -k2 -n | tr '\n' ' ')"
            if grep -qx 'ckpt.12/rank_3.ckpt' "$raw/testing.prefix.txt" 2>/dev/null; then
                sok=$((sok + 1)); result=pass; verdict=ok
            else
                sfail=$((sfail + 1)); result=FAIL; verdict=FAIL
                note="ckpt.12/rank_3.ckpt is not in the prefix; $note"
            fi
            scenario_rows+=("| | the prefix after SCR_FLUSH=10 | $result | $note |")
            record scenario "the prefix after SCR_FLUSH=10" "${result,,}" $verdict "$note"
        fi
    done
    {
        sed -n 's/^SCR commit: /SCR commit: /p' "$raw/run.txt" 2>/dev/null | grep . || echo "SCR commit: unknown (no raw/run.txt)"
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
    } >"$dir/table.md"
    local rc=0 verdict_line
    if [ $((fail + sfail)) -gt 0 ]; then
        rc=1
        verdict_line="RESULT: FAIL: $((fail + sfail)) unexpected failures (listed above)"
    else
        verdict_line="RESULT: PASS: no unexpected failure"
    fi
    {
        head -1 "$dir/table.md"
        echo "registered tests: $((ok + xpass)) of $n passed ($xpass of them documented as not building), $xfail not built as documented, $fail failed"
        echo "TESTING.sh: $sok of $sn checks passed (its ${#scenarios[@]} scenarios, and the prefix after SCR_FLUSH=10), $sfail failed"
        if [ ${#unexpected[@]} -gt 0 ]; then
            echo; echo "UNEXPECTED FAILURES:"; printf '  %s\n' "${unexpected[@]}"
        fi
        if [ ${#xpasses[@]} -gt 0 ]; then
            echo; echo "documented differences that passed (not a failure; look at them):"; printf '  %s\n' "${xpasses[@]}"
        fi
        if [ $xfail -gt 0 ]; then
            echo; echo "documented differences (docs/scr.md):"
            for entry in "${EXPECTED_NOT_BUILT[@]}"; do echo "  ${entry%%|*} is not built: ${entry#*|}"; done
        fi
        echo
        echo "$verdict_line"
    } >"$dir/summary.txt"
    return $rc
}

# ----------------------------------------------------------------- --check --
if [ "${1:-}" = --check ]; then
    [ $# -eq 2 ] || { echo "usage: $0 --check RECORD" >&2; exit 2; }
    record_dir=$2
    [ -d "$record_dir/raw" ] || { echo "$record_dir has no raw/: not a record this runner can check" >&2; exit 2; }
    tmp=$(mktemp -d -t scr-examples-check.XXXXXX) || exit 2
    trap 'rm -rf "$tmp"' EXIT
    cp -r "$record_dir/raw" "$tmp/raw"
    make_report "$tmp"
    bad=0
    for f in table.md results.tsv summary.txt; do
        if [ ! -f "$record_dir/$f" ]; then
            echo "check: $record_dir/$f is missing"; bad=1
        elif ! diff -u --label "$record_dir/$f (the record)" --label "$f (from its raw/)" "$record_dir/$f" "$tmp/$f"; then
            bad=1
        fi
    done
    if [ $bad -eq 0 ]; then
        echo "check: $record_dir: its tables are what its raw output gives"
        tail -1 "$tmp/summary.txt"
    else
        echo "check: $record_dir: its tables differ from what its raw output gives (diff above)"
    fi
    exit $bad
fi

# -------------------------------------------------------------------- run --
if [ $# -lt 2 ]; then
    echo "usage: $0 SCR_SOURCE MLCKPT_PREFIX [WORKDIR]" >&2
    echo "       $0 --check RECORD" >&2
    exit 2
fi
scr_src=$(cd "$1" && pwd) || exit 2
prefix=$(cd "$2" && pwd) || exit 2
work=${3:-$(mktemp -d -t scr-examples.XXXXXX)}
mkdir -p "$work/bin" "$work/run" || exit 2
work=$(cd "$work" && pwd)
ex=$scr_src/examples
for f in test_api.c test_common.c run_test.sh test_cleanup.sh; do
    [ -f "$ex/$f" ] || { echo "$ex/$f: not an SCR source folder" >&2; exit 2; }
done
raw=$work/raw
rm -rf "$raw"
mkdir -p "$raw/compiler-output"
commit=$(git -C "$scr_src" rev-parse HEAD 2>/dev/null || echo unknown)
echo "SCR commit: $commit" >"$raw/run.txt"

# The raw output names the run's folders instead of giving their paths, so
# that it can be committed as it is (the longest path first, as one may
# hold another; literally, as paths may hold regex characters).
# Resolved now: the runner changes directory later.
replace_literally=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)/replace_literally.sh
sanitize() {
    "$replace_literally" "${SANITIZE[@]}"
}
SANITIZE=()
while IFS=$'\t' read -r _ path label; do SANITIZE+=("$path" "$label"); done < <(
    for pair in "$work"$'\t'WORKDIR "$scr_src"$'\t'SCR_SOURCE "$prefix"$'\t'PREFIX; do
        path=${pair%%$'\t'*}
        printf '%d\t%s\n' "${#path}" "$pair"
    done | sort -rn)
publish() {  # $1: a log of this run, $2: its name under raw/
    sanitize <"$1" >"$raw/$2"
}

# SCR's documented build line (examples/makefile.examples.in). A program
# that does not build fails its two tests, unless documented above.
opt=(-g -O2 "-I$prefix/include")
lib=("-L$prefix/lib" "-Wl,-rpath,$prefix/lib" -lscr)
declare -A built
build() {  # name, then the compile command
    local name=$1 rc
    shift
    "$@" >"$work/bin/$name.build.log" 2>&1
    rc=$?
    echo "[runner] exit $rc" >>"$work/bin/$name.build.log"
    publish "$work/bin/$name.build.log" "compiler-output/$name.txt"
    if [ $rc -eq 0 ]; then built[$name]=yes; else built[$name]=no; fi
    echo "build $name: ${built[$name]/no/FAILED}"
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
# variables and, with more ranks than cores, --oversubscribe. A launch
# that outlives the time limit exits 124 (timeout's status): a hang.
cat > "$work/bin/mpirun" <<LAUNCH
#!/usr/bin/env bash
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
session=\$(mktemp -d -t scr-examples-mpi.XXXXXX)
trap 'rm -rf "\$session"' EXIT
TMPDIR=\$session timeout $LAUNCH_TIMEOUT mpiexec --oversubscribe "\$@"
LAUNCH
chmod +x "$work/bin/mpirun"

cd "$work/run" || exit 2
cp "$ex/run_test.sh" "$ex/test_cleanup.sh" .
chmod +x run_test.sh test_cleanup.sh
for t in "${!built[@]}"; do
    [ "${built[$t]}" = yes ] && ln -sf "$work/bin/$t" "$t"
done

# A line per test as it finishes, with the same verdict the table gives.
say() {  # label, then judge's output on stdin
    local out problems
    out=$(cat)
    problems=$(grep -v '^note: ' <<<"$out" | join_lines)
    if [ -n "$problems" ]; then echo "$1: FAIL: $problems"; else echo "$1: PASS"; fi
}
for entry in "${tests[@]}"; do
    name=${entry%%|*}
    args=${entry#*|}
    for mode in serial parallel; do
        test_name=${mode}_${name}_restart
        procs=1
        [ $mode = parallel ] && procs=4
        if [ "${built[$name]}" != yes ]; then
            echo "$test_name: NOT BUILT${expected_not_built[$name]:+ (documented)}"
            continue
        fi
        log=$work/$test_name.log
        # shellcheck disable=SC2086
        SCR_JOB_ID=439 ./run_test.sh "$work/bin/mpirun" "-np $procs" ./$name restart $args > "$log" 2>&1
        echo "[runner] exit $?" >>"$log"
        publish "$log" "$test_name.log"
        judge_test "$raw/$test_name.log" "$name" | say "$test_name"
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
scen=$work/testing
mkdir -p "$scen"
cd "$scen" || exit 2
ln -sf "$work/bin/test_api" test_api
export SCR_PREFIX=$scen SCR_CACHE_BASE=$scen/cache MLCKPT_NODE_SIZE=1 SCR_JOB_ID=439
export SCR_FETCH=0 SCR_FLUSH=0 SCR_DEBUG=1 SCR_LOG_ENABLE=0 SCR_JOB_NAME=testing_job SCR_CACHE_BYPASS=0
export SCR_CACHE_SIZE=2
step=0
scenario() {  # runs the next scenario: test_api on 4 ranks
    step=$((step + 1))
    local log=$work/testing.$step.log entry=${scenarios[$((step - 1))]}
    "$work/bin/mpirun" -np 4 ./test_api > "$log" 2>&1
    echo "[runner] exit $?" >>"$log"
    publish "$log" "testing.$step.log"
    judge_scenario "$raw/testing.$step.log" "${entry#*|}" | say "testing step $step (${entry%%|*})"
}
newest_cached() {  # the cache directory of the newest dataset on node $1
    # (names are ckpt<N>: ls is safe here)
    # shellcheck disable=SC2012
    ls -d "$scen/cache/node$1/.scr/"l*/ckpt* 2>/dev/null | sed 's/.*ckpt//' | sort -n | tail -1
}
rm -rf "$scen/cache" "$scen/.scr"
scenario   # 1 a first run
scenario   # 2 run again
rm -rf "$scen/cache/node0"
scenario   # 3 node 0's cache deleted
latest=$(newest_cached 1)
rm -rf "$scen/cache/node0/.scr/"l*/"ckpt$latest" "$scen/cache/node1/.scr/"l*/"ckpt$latest"
scenario   # 4 newest checkpoint deleted on two nodes
rm -rf "$scen/cache"
scenario   # 5 every node's cache deleted
export SCR_FLUSH=10
scenario   # 6 SCR_FLUSH=10
# what reached the prefix, for the row after step 6
(cd "$scen" && find ckpt.* -type f 2>/dev/null | sort) > "$raw/testing.prefix.txt"
export SCR_FETCH=1
rm -rf "$scen/cache"
scenario   # 7 every node's cache deleted, SCR_FETCH=1
rm -rf "$scen/cache/node0" "$scen/cache/node1"
scenario   # 8 two nodes' cache deleted
unset SCR_PREFIX SCR_CACHE_BASE MLCKPT_NODE_SIZE SCR_FETCH SCR_FLUSH SCR_DEBUG SCR_LOG_ENABLE SCR_JOB_NAME
unset SCR_CACHE_BYPASS SCR_CACHE_SIZE

make_report "$work"
rc=$?
echo
cat "$work/table.md"
echo
cat "$work/summary.txt"
echo "(tables and raw output: $work)"
exit $rc
