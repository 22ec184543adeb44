#!/bin/bash
# Runs FTI's own ITF test suites against an installed mlckpt.
#
# usage: run_fti_suites.sh [options] FTI_BUILD PREFIX OUTDIR [SUITE...]
#        run_fti_suites.sh --report-only OUTDIR
#        run_fti_suites.sh --check RECORD
#
#   FTI_BUILD  FTI's CMake build folder, configured with ENABLE_TESTS=ON (and
#              ENABLE_FORTRAN, ENABLE_HDF5) and built. It is only read: the
#              runner works on a copy of its testing/ folder.
#   PREFIX     the mlckpt install prefix (include/fti.h, lib/libfti.so, ...).
#              With --reference it is ignored (write '-'): FTI's own test
#              binaries are run instead, for comparison.
#   OUTDIR     where everything goes (created). Running again into the same
#              OUTDIR replaces the results of the suites run again and keeps
#              the others.
#   SUITE      suite names (default: all, the long ones last); see --list.
#
# options:
#   --timeout S        kill any single mpirun launch after S seconds (default 300);
#                      the case is then recorded as "hang"
#   --suite-timeout S  kill a whole suite after S seconds (default 21600)
#   --reference        run FTI's own binaries (no compilation against PREFIX);
#                      mlckpt's documented differences are then not expected
#   --td ARG           pass ARG to FTI's testdriver (repeatable), e.g.
#                      --td --pick --td dCP:standard
#   --label TEXT       what was tested (e.g. "mlckpt 9f1ec45"), written into
#                      the raw output and the summary
#   --list             print the suite names in run order and exit
#   --list-expected    print the documented differences (the cases expected
#                      to fail against mlckpt, with why) and exit
#   --report-only      only rebuild the tables from OUTDIR/raw (e.g. after a stop)
#   --check RECORD     rebuild the tables of a record (a copy of an OUTDIR,
#                      e.g. tests/results/<date>-fti-suites) from its raw/ and
#                      compare them with the record's: exit 0 when they agree
#
# Exit status: 0 when every case ran and passed, or failed as a documented
# difference (--list-expected); 1 when any other case failed or hung, a test
# program did not build, a suite ran no case or fewer than it declared, or
# the runner's count of a suite disagrees with the testdriver's own; 2 on a
# usage or setup error.
#
# Output (OUTDIR):
#   summary.txt   per suite: passed/total, failures, hangs, expected failures,
#                 seconds; every unexpected failure and problem; the verdict
#   results.tsv   suite, case, result (pass/fail/hang), seconds, verdict
#                 (ok, xfail: a documented difference, xpass: a documented
#                 difference that passed, FAIL: unexpected)
#   failures.tsv  every case not ok: suite, case, result, verdict, the
#                 testdriver's message (the documented reason for an xfail),
#                 its log under raw/
#   build.tsv     each test program: compiled or not, workarounds it needed
#   raw/          what the tables are computed from, and nothing else:
#                 raw/SUITE.out (the testdriver's output, each line stamped
#                 with the time, the runner's settings and hang notes as
#                 "[harness]" lines), raw/SUITE/CASE.log (ITF's log of each
#                 failing case, the application's output included) and
#                 raw/compiler-output/PROGRAM.txt (the compiler's output); the run's
#                 folders are written OUTDIR, FTI_BUILD, FTI_SRC and PREFIX
#                 in them, so that they can be committed as a record
#   logs/, build/ the same output as it was written, with the real paths
#
# The runner fetches nothing. It needs bash, GNU coreutils, Open MPI's
# mpicc/mpicxx/mpifort/mpirun, h5dump (hdf5 suite).
set -u -o pipefail
export LC_ALL=C   # EPOCHREALTIME with a '.', and byte-wise sorting

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }

# ----------------------------------------------------------------- suites --
# name -> folder under testing/suites. Order = run order (short first,
# ckpt_disrupt and vpr last).
SUITES=(
  getconfig:features/getConfig
  recovername:features/recoverName
  recovervar:features/recoverVar
  cppoperability:features/cppOperability
  keepl4:features/keepL4Ckpt
  staging:features/staging
  sync_intv:features/syncIntv
  use_cases:features/useCases
  datatypes:features/fortran/datatypes
  corner_cases:features/cornerCases
  hdf5:features/hdf5
  dCP:features/differentialCkpt
  verify_log:core/ckptDiffSizes
  verify_log_disrupt:core/ckptDiffSizes
  diff_sizes:core/ckptDiffSizes
  normal_run:core/multiLevelCkpt
  standard:core/multiLevelCkpt
  ckpt_disrupt:core/multiLevelCkpt
  vpr:features/variateProcessorRestart
)

# Test programs, as FTI's testing CMakeLists make them:
# folder|executable|language|extra compile flags|sources
# (C_STANDARD 99 in FTI's CMake gives -std=gnu99 with GCC.)
PROGRAMS=(
  "core/ckptDiffSizes|diffSizes.exe|c||diffSizes.c"
  "core/multiLevelCkpt|check.exe|c||check.c"
  "features/differentialCkpt|checkDCPPosix.exe|c||checkDCPPosix.c"
  "features/differentialCkpt|diff_test.exe|c||diff_test_func.c diff_test.c"
  "features/recoverName|recoverName.exe|c|-std=gnu99|checkRecoverName.c"
  "features/recoverVar|recoverVar.exe|c|-std=gnu99|checkRecoverVar.c"
  "features/staging|massive.exe|c||massive.c"
  "features/getConfig|getConfig.exe|c|-std=gnu99|getConfig.c"
  "features/syncIntv|syncIntv.exe|c||syncIntv.c"
  "features/useCases|nodeFlag.exe|c||nodeFlag.c"
  "features/useCases|heatdis.exe|c||heatdis.c"
  "features/useCases|addInArray.exe|c||addInArray.c"
  "features/cornerCases|consistency.exe|c||consistency.c"
  "features/cornerCases|ckptHierarchy.exe|c||ckptHierarchy.c"
  "features/keepL4Ckpt|testkeepl4.exe|c||test.c"
  "features/cppOperability|cppOperability.exe|cxx||cppOperability.cpp"
  "features/variateProcessorRestart|test.exe|c||test.c"
  "features/hdf5|hdf5Test.exe|c||hdf5Test.c"
  "features/fortran/datatypes|ckpt_c_primitives.exe|c||ckpt_primitives.c"
  "features/fortran/datatypes|ckpt_f_primitives.exe|fortran||ckpt_primitives.f90"
  "features/fortran/datatypes|complex.exe|fortran||complex.f90"
)
# hdf5noFTI.exe and hdf5CreateBasePattern.exe use HDF5 only, not FTI: FTI's
# build of them is kept.

# ------------------------------------------------- documented differences --
# The cases in which mlckpt knowingly does otherwise than FTI, each with its
# reason (docs/fti-compatibility.md, "FTI's own test suites"). They are
# expected to fail against mlckpt and do not make the run fail. One that
# passes is reported ("xpass") and does not make the run fail either, but
# should be looked at: the difference may be gone, or the case may no longer
# test it. Any other case that fails or hangs makes the run fail. With
# --reference (FTI's own binaries) nothing is expected to fail.
# suite|case, as results.tsv names it (the function, then its parameters in
# the order the suite registers them)|reason
FTI_META='it diffs FTI'"'"'s metadata file Meta/<exec_id>/l1/sector0-group0.fti of a C and a Fortran run; mlckpt writes its own metadata (ckpt<S>.l<L>.meta), not that file'
HEADS_L1='after an L4 checkpoint that the heads completed, its L4 files are'
EXPECTED_FAILURES=(
  "datatypes|fortran_to_c_map iolib=1|$FTI_META"
  "datatypes|fortran_to_c_map iolib=2|$FTI_META"
  "datatypes|fortran_to_c_map iolib=5|$FTI_META"
  "corner_cases|ckpt_consistency level=4 config=H1I0|$HEADS_L1 erased and FTI, with the template's ckpt_io 1, finds nothing to recover; mlckpt restarts from the heads' L1 copy of that checkpoint"
  "verify_log_disrupt|verify_log_disrupt preset=H1I0 level=4 disrupt=corrupt target=checkpoint nodes=one|$HEADS_L1 corrupted and the restart must fail (FTI, with the template's ckpt_io 1, never reads the heads' L1 copy); mlckpt restarts from that copy"
  "verify_log_disrupt|verify_log_disrupt preset=H1I0 level=4 disrupt=erase target=checkpoint nodes=one|$HEADS_L1 erased and the restart must fail (FTI, with the template's ckpt_io 1, never reads the heads' L1 copy); mlckpt restarts from that copy"
  "diff_sizes|verify_log_disrupt preset=H1I0 level=4 disrupt=corrupt target=checkpoint nodes=one|$HEADS_L1 corrupted and the restart must fail (FTI, with the template's ckpt_io 1, never reads the heads' L1 copy); mlckpt restarts from that copy"
  "diff_sizes|verify_log_disrupt preset=H1I0 level=4 disrupt=erase target=checkpoint nodes=one|$HEADS_L1 erased and the restart must fail (FTI, with the template's ckpt_io 1, never reads the heads' L1 copy); mlckpt restarts from that copy"
)
# Cases that pass against mlckpt without testing it (same document): their
# pass is listed apart in the summary, so that it is not read as coverage.
VACUOUS_PASSES=(
)
declare -A EXPECTED=() VACUOUS=()
for e in "${EXPECTED_FAILURES[@]}"; do IFS='|' read -r s c why <<<"$e"; EXPECTED["$s|$c"]=$why; done
for e in "${VACUOUS_PASSES[@]}"; do IFS='|' read -r s c why <<<"$e"; VACUOUS["$s|$c"]=$why; done
unset e s c why

# ---------------------------------------------------------------- options --
TIMEOUT=300
SUITE_TIMEOUT=21600
REFERENCE=0
REPORT_ONLY=0
CHECK=''
LABEL=''
TD_ARGS=()
POS=()
while [ $# -gt 0 ]; do
  case $1 in
    --timeout) TIMEOUT=$2; shift 2 ;;
    --suite-timeout) SUITE_TIMEOUT=$2; shift 2 ;;
    --reference) REFERENCE=1; shift ;;
    --report-only) REPORT_ONLY=1; shift ;;
    --check) CHECK=$2; shift 2 ;;
    --label) LABEL=$2; shift 2 ;;
    --td) TD_ARGS+=("$2"); shift 2 ;;
    --list) for s in "${SUITES[@]}"; do echo "${s%%:*}"; done; exit 0 ;;
    --list-expected)
      for e in "${EXPECTED_FAILURES[@]}"; do IFS='|' read -r s c why <<<"$e"; printf 'expected failure  %s  %s: %s\n' "$s" "$c" "$why"; done
      for e in "${VACUOUS_PASSES[@]}"; do IFS='|' read -r s c why <<<"$e"; printf 'vacuous pass      %s  %s: %s\n' "$s" "$c" "$why"; done
      exit 0 ;;
    -h|--help) usage 0 ;;
    --) shift; POS+=("$@"); break ;;
    -) POS+=("$1"); shift ;;
    -*) echo "unknown option $1" >&2; usage 2 ;;
    *) POS+=("$1"); shift ;;
  esac
done

die() { echo "run_fti_suites: $*" >&2; exit 2; }
note() { echo "[harness] $*"; }
slug() { sed -e 's/[^A-Za-z0-9=._-]\{1,\}/_/g' -e 's/^_//' -e 's/_$//' <<<"$1"; }

# ----------------------------------------------------- reading raw output --
# Everything the tables say is computed here, from OUTDIR/raw alone: a run,
# --report-only and --check all go through make_report, so a record's
# tables can be rebuilt from its raw output and compared.

parse_out() {
  # $1: raw/SUITE.out. Prints one line per item, tab-separated:
  #   H  setting                     a "[harness] setting:" line of the run
  #   C  case result seconds message one per case (result pass, fail, hang)
  #   S  key value                   declared, executed, passed, failed (the
  #                                  testdriver's own counts), exit, seconds,
  #                                  unread (lines that are not the runner's)
  # A case that a "[harness] case hung" line interrupts is a hang whatever
  # ITF concluded; one still open when the testdriver exits (killed by the
  # suite timeout) is a hang too.
  awk '
    function clock(s,  a) { split(s, a, ":"); return a[1] * 3600 + a[2] * 60 + a[3] }
    function emit(res, msg) {
      gsub(/\t/, " ", msg)
      printf "C\t%s\t%s\t%.1f\t%s\n", cur, res, t - start, msg
      cur = ""
    }
    {
      # every line starts with the runner'"'"'s time stamp, HH:MM:SS.d
      if ($0 !~ /^[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9] /) { unread++; next }
      t = clock(substr($0, 1, 10)) + day
      if (t < last) { day += 86400; t += 86400 }   # past midnight
      last = t
      if (first == "") first = t
      line = substr($0, 12)
    }
    line ~ /^\[harness\] setting: / { print "H\t" substr(line, 20); next }
    line ~ /^Suite: [^ ]+ with [0-9]+ tests\.$/ { n = split(line, w, " "); declared = w[n - 1]; next }
    substr(line, 1, 7) == "+ Test " {
      if (cur != "") emit("fail", "the testdriver printed no result for this case")
      # + Test SUITE:FUNCTION (I/N) NAME=VALUE NAME=VALUE ...
      rest = substr(line, 8)
      if (rest !~ /^[^ :]+:[^ ]+ \([0-9]+\/[0-9]+\)/) { unread++; next }
      sp = index(rest, " "); sf = substr(rest, 1, sp - 1); rest = substr(rest, sp + 1)
      sp = index(rest, " "); params = sp ? substr(rest, sp + 1) : ""
      sub(/ +$/, "", params)
      cur = substr(sf, index(sf, ":") + 1)
      if (params != "") cur = cur " " params
      start = t; hung = 0
      next
    }
    line ~ /^\[harness\] case hung: / { if (cur != "") hung = 1; next }
    cur != "" && line ~ /^\[(Passed|Failed)\]/ {
      msg = line; sub(/^\[(Passed|Failed)\]:? ?/, "", msg)
      emit(hung ? "hang" : (substr(line, 2, 6) == "Passed" ? "pass" : "fail"), msg)
      next
    }
    line ~ /^\[harness\] testdriver exit [0-9]+$/ {
      exitc = substr(line, 27)
      if (cur != "") emit("hang", "the suite was stopped in this case (testdriver exit " exitc ")")
      next
    }
    line == "### Suite summary ###" { summary = 1; next }
    summary && line ~ /^Executed: +[0-9]+$/ { executed = $NF; next }
    summary && line ~ /^Passed: +[0-9]+$/ { passed = $NF; next }
    summary && line ~ /^Failed: +[0-9]+$/ { failed = $NF; next }
    END {
      if (cur != "") emit("hang", "the output ends in this case")
      printf "S\tdeclared\t%s\nS\texecuted\t%s\nS\tpassed\t%s\nS\tfailed\t%s\n", declared, executed, passed, failed
      printf "S\texit\t%s\nS\tseconds\t%.0f\nS\tunread\t%d\n", exitc, (first == "" ? 0 : last - first), unread
    }' "$1"
}

make_report() {
  # $1: a folder with raw/. Writes its results.tsv, failures.tsv, build.tsv
  # and summary.txt; returns 0 when nothing failed unexpectedly, else 1.
  local dir=$1 raw=$1/raw
  local s name kind a b c d key why verdict log e
  local -a lines=() suite_rows=() problems=() unexpected=() xfails=() xpasses=() vacuous=() unseen=() settings=()
  local -A setting_suites=() seen=()
  local tp=0 tt=0 tf=0 th=0 txf=0 txp=0 tun=0 nsuites=0 nbuild=0
  [ -d "$raw" ] || die "$raw: no raw output to report from"
  printf 'suite\tcase\tresult\tseconds\tverdict\n' >"$dir/results.tsv"
  printf 'suite\tcase\tresult\tverdict\tmessage\tlog\n' >"$dir/failures.tsv"
  for s in "${SUITES[@]}"; do
    name=${s%%:*}
    [ -f "$raw/$name.out" ] || continue
    nsuites=$((nsuites + 1))
    mapfile -t lines < <(parse_out "$raw/$name.out")
    local declared='' executed='' passed='' failed='' exitc='' secs=0 unread=0 reference=0
    local n=0 p=0 f=0 h=0 xf=0 xp=0 un=0
    # the settings first: a reference run expects no failure
    for e in "${lines[@]}"; do
      [ "${e%%$'\t'*}" = H ] || continue
      a=${e#H$'\t'}
      [[ $a == "binaries: FTI's own"* ]] && reference=1
      [ -n "${setting_suites[$a]+x}" ] || settings+=("$a")
      setting_suites[$a]+=" $name"
    done
    for e in "${lines[@]}"; do
      IFS=$'\t' read -r kind a b c d <<<"$e"
      case $kind in
        S)
          case $a in
            declared) declared=$b ;; executed) executed=$b ;; passed) passed=$b ;;
            failed) failed=$b ;; exit) exitc=$b ;; seconds) secs=$b ;; unread) unread=$b ;;
          esac ;;
        C)
          # a: case, b: result, c: seconds, d: the testdriver's message
          n=$((n + 1))
          key="$name|$a"
          seen[$key]=1
          why=''
          [ $reference -eq 0 ] && why=${EXPECTED[$key]:-}
          log=raw/$name/$(slug "$a").log
          [ -f "$dir/$log" ] || log=-
          case $b in pass) p=$((p + 1)) ;; fail) f=$((f + 1)) ;; hang) h=$((h + 1)) ;; esac
          if [ "$b" = pass ] && [ -n "$why" ]; then
            verdict=xpass; xp=$((xp + 1))
            xpasses+=("$name  $a: passes, although documented to fail: $why")
          elif [ "$b" = pass ]; then
            verdict=ok
            [ -n "${VACUOUS[$key]:-}" ] && [ $reference -eq 0 ] && vacuous+=("$name  $a: ${VACUOUS[$key]}")
          elif [ "$b" = fail ] && [ -n "$why" ]; then
            verdict=xfail; xf=$((xf + 1))
            xfails+=("$name  $a: $why")
          else
            verdict=FAIL; un=$((un + 1))
            if [ "$log" = - ]; then unexpected+=("$name  $a: $b${d:+: $d}")
            else unexpected+=("$name  $a: $b${d:+: $d} ($log)"); fi
          fi
          printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$a" "$b" "$c" "$verdict" >>"$dir/results.tsv"
          case $verdict in
            xfail) d="documented difference: $why" ;;
            xpass) d="documented difference, passed: $why" ;;
          esac
          [ $verdict != ok ] && printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$a" "$b" "$verdict" "$d" "$log" >>"$dir/failures.tsv"
          ;;
      esac
    done
    # A suite is read right only when the runner's count of its cases is the
    # testdriver's own: a case the parser missed cannot pass unseen.
    [ -n "$declared" ] ||
      problems+=("$name: no \"Suite: $name with N tests.\" line: the testdriver did not start the suite")
    [ $n -gt 0 ] ||
      problems+=("$name: no case read from raw/$name.out: the testdriver ran none, or its output is not what this runner reads")
    if [ -n "$declared" ] && [ "$n" -ne "$declared" ]; then
      problems+=("$name: $n cases read, the suite declared $declared")
    fi
    if [ -z "$executed" ]; then
      problems+=("$name: no suite summary from the testdriver: it stopped before the end of the suite")
    elif [ "$executed" -ne $n ] || [ "${passed:-x}" != $p ] || [ "${failed:-x}" != $((f + h)) ]; then
      problems+=("$name: the testdriver counted $executed run, ${passed:-?} passed, ${failed:-?} failed; the runner read $n, $p passed, $((f + h)) failed or hung")
    fi
    if [ -z "$exitc" ]; then
      problems+=("$name: no \"[harness] testdriver exit\" line: the output is cut")
    elif [ "$exitc" -eq 0 ] && [ $((f + h)) -gt 0 ]; then
      problems+=("$name: the testdriver exited 0 although $((f + h)) cases failed")
    elif [ "$exitc" -ne 0 ] && [ $((f + h)) -eq 0 ]; then
      problems+=("$name: the testdriver exited $exitc although no case failed")
    fi
    [ "$unread" -eq 0 ] ||
      problems+=("$name: $unread lines of raw/$name.out are not the runner's (no time stamp, or a case line it cannot read)")
    if [ $reference -eq 0 ]; then
      for e in "${EXPECTED_FAILURES[@]}"; do
        IFS='|' read -r a b c <<<"$e"
        [ "$a" = "$name" ] && [ -z "${seen[$a|$b]+x}" ] && unseen+=("$a  $b")
      done
    fi
    suite_rows+=("$(printf '%-20s %7s %6s %5s %5s %6s %6s %5s %8s' "$name" $p $n $f $h $xf $xp $un "$secs")")
    tp=$((tp + p)); tt=$((tt + n)); tf=$((tf + f)); th=$((th + h))
    txf=$((txf + xf)); txp=$((txp + xp)); tun=$((tun + un))
  done
  [ $nsuites -gt 0 ] || problems+=("no suite output in raw/: nothing ran")

  # Test programs: compiled or not, from the compiler's output kept in
  # raw/compiler-output (the last "rc=" line of each is its final attempt).
  printf 'program\tstatus\tworkarounds\n' >"$dir/build.tsv"
  local p_ exe lang flags srcs status wk
  for p_ in "${PROGRAMS[@]}"; do
    IFS="|" read -r _ exe lang flags srcs <<<"$p_"
    [ -f "$raw/compiler-output/$exe.txt" ] || continue
    nbuild=$((nbuild + 1))
    status=$(awk '/^rc=/ { rc = substr($0, 4) } END { print (rc == "0" ? "ok" : "FAILED") }' "$raw/compiler-output/$exe.txt")
    wk=$(sed -n 's/^# workaround added: //p' "$raw/compiler-output/$exe.txt" | tr '\n' ' ' | sed 's/ $//')
    printf '%s\t%s\t%s\n' "$exe" "$status" "${wk:--}" >>"$dir/build.tsv"
    [ "$status" = ok ] ||
      problems+=("$exe did not build (raw/compiler-output/$exe.txt): the cases that run it cannot pass")
  done
  [ $nbuild -gt 0 ] || printf '(none compiled: FTI'"'"'s own binaries)\t-\t-\n' >>"$dir/build.tsv"

  local verdict_line rc=0
  if [ $tun -gt 0 ] || [ ${#problems[@]} -gt 0 ]; then
    rc=1
    verdict_line="RESULT: FAIL: $tun unexpected failures or hangs, ${#problems[@]} other problems (listed above); $tp of $tt cases passed"
  else
    verdict_line="RESULT: PASS: $tp of $tt cases passed; $txf failed as documented; $txp documented failures passed"
  fi
  {
    echo "FTI's ITF suites (tests/fti-suites/run_fti_suites.sh)"
    for a in "${settings[@]}"; do
      if [ "$(wc -w <<<"${setting_suites[$a]}")" -eq $nsuites ]; then echo "$a"
      else echo "$a (suites:${setting_suites[$a]})"; fi
    done
    echo
    echo "xfail: a documented difference (below); xpass: one that passed; FAIL: unexpected"
    printf '%-20s %7s %6s %5s %5s %6s %6s %5s %8s\n' suite passed total fail hang xfail xpass FAIL seconds
    printf '%s\n' "${suite_rows[@]}"
    printf '%-20s %7s %6s %5s %5s %6s %6s %5s\n' TOTAL $tp $tt $tf $th $txf $txp $tun
    if [ ${#unexpected[@]} -gt 0 ]; then
      echo; echo "UNEXPECTED FAILURES AND HANGS:"; printf '  %s\n' "${unexpected[@]}"
    fi
    if [ ${#problems[@]} -gt 0 ]; then
      echo; echo "PROBLEMS:"; printf '  %s\n' "${problems[@]}"
    fi
    if [ ${#xpasses[@]} -gt 0 ]; then
      echo; echo "documented differences that passed (not a failure; look at them):"; printf '  %s\n' "${xpasses[@]}"
    fi
    if [ ${#xfails[@]} -gt 0 ]; then
      echo; echo "expected failures (documented differences, docs/fti-compatibility.md):"; printf '  %s\n' "${xfails[@]}"
    fi
    if [ ${#vacuous[@]} -gt 0 ]; then
      echo; echo "passes that test nothing against mlckpt (docs/fti-compatibility.md):"; printf '  %s\n' "${vacuous[@]}"
    fi
    if [ ${#unseen[@]} -gt 0 ]; then
      echo; echo "documented differences of these suites that did not run (filtered out, or renamed: then fix the runner's list):"
      printf '  %s\n' "${unseen[@]}"
    fi
    echo
    echo "test programs (build.tsv):"
    tail -n +2 "$dir/build.tsv" | sed 's/^/  /'
    if awk -F'\t' 'NR > 1 && $3 != "-" { any = 1 } END { exit !any }' "$dir/build.tsv"; then
      echo
      echo "workarounds still needed by mlckpt:"
      tail -n +2 "$dir/build.tsv" | awk -F'\t' '$3 != "-" {for (i = split($3, w, " "); i > 0; i--) n[w[i]] = n[w[i]] " " $1} END {for (k in n) print "  " k ":" n[k]}' | sort
    fi
    echo
    echo "$verdict_line"
  } >"$dir/summary.txt"
  return $rc
}

# ---------------------------------------------------- --check, --report-only --
if [ -n "$CHECK" ]; then
  [ -d "$CHECK/raw" ] || die "$CHECK has no raw/: not a record this runner can check"
  tmp=$(mktemp -d -t fti-suites-check.XXXXXX) || exit 2
  trap 'rm -rf "$tmp"' EXIT
  cp -r "$CHECK/raw" "$tmp/raw"
  make_report "$tmp"
  bad=0
  for f in summary.txt results.tsv failures.tsv build.tsv; do
    if [ ! -f "$CHECK/$f" ]; then
      echo "check: $CHECK/$f is missing"; bad=1
    elif ! diff -u --label "$CHECK/$f (the record)" --label "$f (from its raw/)" "$CHECK/$f" "$tmp/$f"; then
      bad=1
    fi
  done
  if [ $bad -eq 0 ]; then
    echo "check: $CHECK: its tables are what its raw output gives"
    tail -1 "$tmp/summary.txt"
  else
    echo "check: $CHECK: its tables differ from what its raw output gives (diff above)"
  fi
  exit $bad
fi
if [ $REPORT_ONLY -eq 1 ]; then
  case ${#POS[@]} in
    1) OUT=${POS[0]} ;;
    3) OUT=${POS[2]} ;;   # the arguments of the run, as before
    *) usage 2 ;;
  esac
  make_report "$OUT"
  rc=$?
  cat "$OUT/summary.txt"
  exit $rc
fi

# ------------------------------------------------------------------ setup --
[ ${#POS[@]} -ge 3 ] || usage 2
FTI_BUILD=$(readlink -f "${POS[0]}")
PREFIX=${POS[1]}
[ "$PREFIX" != "-" ] && PREFIX=$(readlink -f "$PREFIX")
mkdir -p "${POS[2]}" || exit 2
OUT=$(readlink -f "${POS[2]}")
SELECTED=("${POS[@]:3}")

[ -f "$FTI_BUILD/CMakeCache.txt" ] || die "$FTI_BUILD is not a CMake build folder"
[ -x "$FTI_BUILD/testing/itf/testdriver" ] || die "$FTI_BUILD has no testing/itf/testdriver: configure FTI with -DENABLE_TESTS=ON and build it"
FTI_SRC=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$FTI_BUILD/CMakeCache.txt")
[ -d "$FTI_SRC/testing/suites" ] || die "FTI's source folder ($FTI_SRC, from CMakeCache.txt) has no testing/suites"
if [ $REFERENCE -eq 0 ]; then
  [ -f "$PREFIX/include/fti.h" ] || die "$PREFIX/include/fti.h not found"
fi

# Which suites, in run order.
RUN=()
if [ ${#SELECTED[@]} -eq 0 ]; then
  for s in "${SUITES[@]}"; do RUN+=("$s"); done
else
  for s in "${SUITES[@]}"; do
    for w in "${SELECTED[@]}"; do [ "${s%%:*}" = "$w" ] && RUN+=("$s"); done
  done
  # (no "printf | grep -q" here: with pipefail, grep's early exit can fail
  # the printf with SIGPIPE and turn a known suite into an unknown one)
  for w in "${SELECTED[@]}"; do
    known=0
    for s in "${SUITES[@]}"; do [ "${s%%:*}" = "$w" ] && known=1; done
    [ $known -eq 1 ] || die "unknown suite $w (see --list)"
  done
fi

# The hdf5 suite also runs two programs of FTI's build that use HDF5 alone
# (they make the pattern file the checkpoints are compared with): without
# them every case fails for a reason that is not mlckpt's, so refuse.
for s in "${RUN[@]}"; do
  [ "${s%%:*}" = hdf5 ] || continue
  for exe in hdf5CreateBasePattern.exe hdf5noFTI.exe; do
    [ -x "$FTI_BUILD/testing/suites/${s#*:}/$exe" ] ||
      die "suite hdf5 needs FTI's $exe in FTI_BUILD/testing/suites/${s#*:}, which FTI builds with -DENABLE_HDF5=ON (FTI_BUILD was configured without it?); rebuild FTI so, or leave hdf5 out"
  done
done

# MPI as root, oversubscribed (FTI's suites run 8-68 ranks).
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
  export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
fi
case " ${MPIRUN_ARGS:-} " in
  *" --oversubscribe "*) ;;
  *) export MPIRUN_ARGS="--oversubscribe ${MPIRUN_ARGS:-}" ;;
esac

# The raw output names the run's folders instead of giving their paths, so
# that it can be committed as it is: each path (the longest first, as one
# may hold another) is replaced by its name wherever it appears.
SANITIZE=()
while IFS=$'\t' read -r _ path label; do SANITIZE+=("$path" "$label"); done < <(
  for pair in "$OUT"$'\t'OUTDIR "$FTI_BUILD"$'\t'FTI_BUILD "$FTI_SRC"$'\t'FTI_SRC "$PREFIX"$'\t'PREFIX; do
    path=${pair%%$'\t'*}
    [ "$path" = - ] || printf '%d\t%s\n' "${#path}" "$pair"
  done | sort -rn)
# Resolved now: the runner changes directory later.
replace_literally=$(cd "$(dirname "${BASH_SOURCE[0]}")/../support" && pwd)/replace_literally.sh
sanitize() {
  # stdin to stdout, literally (paths may hold regex characters)
  "$replace_literally" "${SANITIZE[@]}"
}

# --------------------------------------------- working copy of testing/ --
# FTI's binaries stay untouched in FTI_BUILD; ours replace them in the copy.
TREE=$OUT/tree/testing
note "copying $FTI_BUILD/testing to $TREE"
rm -rf "$OUT/tree"
mkdir -p "$OUT/tree"
cp -a "$FTI_BUILD/testing" "$OUT/tree/" || die "copy failed"
find "$TREE" -name CMakeFiles -type d -prune -exec rm -rf {} +
# The testdriver wrapper and the ITF 'fti' module hold absolute paths into
# FTI_BUILD/testing (CMake wrote them): point them at the copy.
for f in "$TREE/itf/testdriver" "$TREE/itf/modules/fti"; do
  sed -i "s|$FTI_BUILD/testing/|$TREE/|g" "$f"
done
# Files FTI's 'make install' puts into the build folder (suites, the config
# template) come from FTI's source when FTI was not installed; standard.itf
# is never installed (FTI's CMake does not declare it): same source.
for s in "${SUITES[@]}"; do
  name=${s%%:*} dir=${s#*:}
  if [ ! -f "$TREE/suites/$dir/$name.itf" ]; then
    mkdir -p "$TREE/suites/$dir"
    cp "$FTI_SRC/testing/suites/$dir/$name.itf" "$TREE/suites/$dir/" &&
      note "$name.itf taken from FTI's source (not installed in the build folder)"
  fi
done
tmpl=$(sed -n "s/^itf_set_if_undef 'fti:config_template' //p" "$TREE/itf/modules/fti")
if [ ! -f "$tmpl" ]; then
  mkdir -p "$(dirname "$tmpl")"
  cp "$FTI_SRC/testing/tools/itf/resources/fti_template.cfg" "$tmpl"
  note "fti_template.cfg taken from FTI's source (not installed in the build folder)"
fi
# -------------------------------------------------------------- compiling --
# FTI's documented line: mpicc ... -I<prefix>/include -L<prefix>/lib -lfti
# (Fortran: mpifort ... -I<module dir> -L<prefix>/lib -lfti_f90 -lfti).
# When it fails, the known workarounds are added one at a time, and only the
# ones the failure asks for; each is recorded, so that a fixed mlckpt shows.
TALLOC_DEF='-Dtalloc(type,num)=((type*)malloc(sizeof(type)*((size_t)(num))))'
BUILD=$OUT/build
mkdir -p "$BUILD"
declare -A PROG_STATUS=()
declare -A PROG_WORKAROUND=()

fortran_moddir() {
  local d
  for d in "$PREFIX/include" "$PREFIX/include/mlckpt/fortran" "$PREFIX/lib/fortran" "$PREFIX/finclude"; do
    [ -f "$d/fti.mod" ] && { echo "$d"; return; }
  done
  d=$(find "$PREFIX" -name fti.mod -print -quit 2>/dev/null)
  [ -n "$d" ] && dirname "$d"
}

compile_one() {
  # $1 folder, $2 exe, $3 lang, $4 flags, $5 sources
  local dir=$1 exe=$2 lang=$3 flags=$4 srcs=$5
  local srcdir="$FTI_SRC/testing/suites/$dir" dst="$TREE/suites/$dir/$exe"
  local log="$BUILD/$exe.log" cc libs=() inc=() extra=() added=() s src=()
  local libdir="$PREFIX/lib"
  [ -d "$libdir" ] || libdir=$(dirname "$(find "$PREFIX" -name 'libfti.so' -print -quit)")
  case $lang in
    c) cc=mpicc; inc=(-I"$PREFIX/include"); libs=(-lfti) ;;
    cxx) cc=mpicxx; inc=(-I"$PREFIX/include"); libs=(-lfti) ;;
    fortran)
      cc=mpifort
      inc=(-I"$(fortran_moddir)")
      libs=(-lfti_f90 -lfti)
      flags="$flags -cpp"
      # FTI's CMake adds MPI_USE_HEADER when 'use mpi' does not work.
      grep -q '^MPI_USE_MOD:INTERNAL=TRUE' "$FTI_BUILD/CMakeCache.txt" || flags="$flags -DMPI_USE_HEADER"
      ;;
  esac
  for s in $srcs; do src+=("$srcdir/$s"); done
  rm -f "$dst"
  : >"$log"
  local attempt=0
  while :; do
    attempt=$((attempt + 1))
    # $flags holds several flags (split on purpose); -Wl,-rpath,DIR is one
    # shellcheck disable=SC2054,SC2206
    local cmd=("$cc" $flags "${extra[@]}" "${inc[@]}" "${src[@]}" -o "$dst"
               -L"$libdir" -Wl,-rpath,"$libdir" "${libs[@]}" -lm)
    echo "\$ ${cmd[*]}" >>"$log"
    local outp
    outp=$(cd "$BUILD" && "${cmd[@]}" 2>&1)
    local rc=$?
    echo "$outp" >>"$log"
    echo "rc=$rc" >>"$log"
    if [ $rc -eq 0 ]; then
      PROG_STATUS[$exe]=ok
      break
    fi
    # Which known workaround does the failure ask for (first not yet added)?
    local want=''
    if [[ " ${added[*]} " != *" talloc "* ]] && grep -q "talloc" <<<"$outp"; then
      want=talloc; extra+=("$TALLOC_DEF")
    elif [[ " ${added[*]} " != *" -liniparser "* ]] && grep -Eq "undefined reference to (symbol )?.(iniparser|dictionary)_" <<<"$outp"; then
      want=-liniparser; libs+=(-liniparser)
    elif [[ " ${added[*]} " != *" -lcrypto "* ]] && grep -Eq "undefined reference to (symbol )?.(MD5|EVP_|SHA|CRYPTO_)" <<<"$outp"; then
      want=-lcrypto; libs+=(-lcrypto)
    fi
    if [ -z "$want" ]; then
      PROG_STATUS[$exe]=FAILED
      break
    fi
    added+=("$want")
    echo "# workaround added: $want" >>"$log"
  done
  PROG_WORKAROUND[$exe]="${added[*]}"
}

suite_needs() {
  # does the suite folder $1 hold program $2? (all programs of a folder are
  # built when one of its suites runs)
  local s
  for s in "${RUN[@]}"; do [ "${s#*:}" = "$1" ] && return 0; done
  return 1
}

mkdir -p "$OUT/raw"
if [ $REFERENCE -eq 0 ]; then
  note "compiling FTI's test programs against $PREFIX"
  mkdir -p "$OUT/raw/compiler-output"
  for p in "${PROGRAMS[@]}"; do
    IFS='|' read -r dir exe lang flags srcs <<<"$p"
    suite_needs "$dir" || continue
    compile_one "$dir" "$exe" "$lang" "$flags" "$srcs"
    note "  $exe: ${PROG_STATUS[$exe]}${PROG_WORKAROUND[$exe]:+ (workarounds: ${PROG_WORKAROUND[$exe]})}"
    # build.tsv and the summary are computed from this copy
    sanitize <"$BUILD/$exe.log" >"$OUT/raw/compiler-output/$exe.txt"
  done
else
  note "reference run: FTI's own test binaries"
  # compiler output of an earlier run into this OUTDIR is not about them
  rm -rf "$OUT/raw/compiler-output"
fi

# ----------------------------------------------------- mpirun with timeout --
# FTI's module launches "mpirun $MPIRUN_ARGS -n N $MPIRUN_PRE_COMMAND app":
# an mpirun first in PATH puts a time limit on each launch and records hangs.
REAL_MPIRUN=$(command -v mpirun) || die "mpirun not found"
mkdir -p "$OUT/bin"
cat >"$OUT/bin/mpirun" <<WRAPPER
#!/bin/bash
# generated by run_fti_suites.sh: FTI's mpirun launch with a time limit
timeout -k 10 $TIMEOUT "$REAL_MPIRUN" "\$@"
rc=\$?
if [ \$rc -eq 124 ] || [ \$rc -eq 137 ]; then
  echo "[harness] mpirun killed after ${TIMEOUT}s (hang): \$*" >&2
  echo "\$*" >>"\$FTI_HARNESS_HANGS"
  # ranks that outlived their mpirun: ours only, found by their executable
  app=''
  while [ \$# -gt 0 ]; do
    if [ "\$1" = -n ] || [ "\$1" = -np ]; then shift 2; continue; fi
    case \$1 in --*) shift; continue ;; esac
    app=\$(readlink -f "\$1"); break
  done
  if [ -n "\$app" ]; then
    for p in /proc/[0-9]*; do
      [ "\$(readlink \$p/exe 2>/dev/null)" = "\$app" ] && kill -9 "\${p#/proc/}" 2>/dev/null
    done
  fi
fi
exit \$rc
WRAPPER
chmod +x "$OUT/bin/mpirun"

# ---------------------------------------------------------------- running --
mkdir -p "$OUT/logs" "$OUT/run"

# The settings every suite's raw output starts with: the summary prints
# them, and a reference run (FTI's binaries) expects no failure.
FTI_COMMIT=$(git -C "$FTI_SRC" rev-parse HEAD 2>/dev/null || echo "unknown (FTI's source is not a git checkout)")
if [ $REFERENCE -eq 1 ]; then
  BINARIES="binaries: FTI's own (reference run)"
else
  BINARIES="binaries: mlckpt's (FTI's test programs compiled against PREFIX$(
    "$PREFIX/bin/mlckpt" --version 2>/dev/null | sed -n '1s/^/, /p'))"
fi
SETTINGS=("FTI: commit $FTI_COMMIT" "$BINARIES")
[ -n "$LABEL" ] && SETTINGS+=("label: $LABEL")
SETTINGS+=("per-launch timeout: ${TIMEOUT}s; suite timeout: ${SUITE_TIMEOUT}s; cores: $(nproc)"
           "MPIRUN_ARGS: ${MPIRUN_ARGS% }"
           "testdriver arguments: --no-colors --no-review --all-logs${TD_ARGS[*]:+ ${TD_ARGS[*]}}")

split_failed_log() {
  # FTI's testdriver appends every failing case to <suite>-failed.log, each
  # starting with "[ITF Test Case] <function> --param=value ...". ITF clears
  # its output buffer only when it logs a case: --all-logs (passed cases go
  # to <suite>-passed.log) keeps each failing case's log to its own output.
  local flog=$2 dest=$OUT/logs/$1
  rm -rf "$dest"
  [ -f "$flog" ] || return 0
  mkdir -p "$dest"
  awk -v dest="$dest" '
    /^\[ITF Test Case\] / {
      if (f) close(f)
      name = substr($0, 17); gsub(/--/, "", name)
      s = name; gsub(/[^A-Za-z0-9=._-]+/, "_", s); sub(/^_/, "", s); sub(/_$/, "", s)
      f = dest "/" s ".log"
    }
    f { print >> f }' "$flog"
}

run_suite() {
  local name=$1 dir=$2
  local itf="$TREE/suites/$dir/$name.itf"
  local rundir="$OUT/run/$name" hangs="$OUT/run/$name.hangs" l
  rm -rf "$rundir"; mkdir -p "$rundir"
  : >"$hangs"
  note "suite $name ($itf)"
  # Each line is stamped with the time (HH:MM:SS.d) as it arrives, which
  # gives each case its seconds. A launch killed by the per-launch timeout
  # is written down by the mpirun wrapper, outside the testdriver's output:
  # it goes into the output as a "[harness] case hung" line before the
  # case's result, so that the hang can be read from the output alone.
  (
    cd "$rundir" &&
      PATH="$OUT/bin:$PATH" FTI_HARNESS_HANGS="$hangs" \
        timeout -k 30 "$SUITE_TIMEOUT" "$TREE/itf/testdriver" --no-colors --no-review --all-logs \
        "${TD_ARGS[@]}" "$itf" </dev/null 2>&1
    echo "[harness] testdriver exit $?"
  ) | {
    stamp() { local now=$EPOCHREALTIME; printf '%(%H:%M:%S)T.%.1s %s\n' "${now%.*}" "${now#*.}" "$1"; }
    for l in "${SETTINGS[@]}"; do stamp "[harness] setting: $l"; done
    stamp "[harness] testdriver start: $name, $(date -u '+%F %T UTC')"
    local line h
    while IFS= read -r line; do
      case $line in
        "+ Test "*) : >"$hangs" ;;
        "[Passed]"*|"[Failed]"*|"[harness] testdriver exit "*)
          if [ -s "$hangs" ]; then
            while IFS= read -r h; do stamp "[harness] case hung: mpirun killed after ${TIMEOUT}s: $h"; done <"$hangs"
            : >"$hangs"
          fi ;;
      esac
      stamp "$line"
    done
  } >"$OUT/logs/$name.out"
  # When the suite timeout killed the testdriver, the launch it was in lost
  # its mpirun wrapper too, and its ranks live on: end every process that
  # runs a program of this run's tree (ours only, found by their executable).
  for l in /proc/[0-9]*; do
    [[ $(readlink "$l/exe" 2>/dev/null) == "$TREE/"* ]] && kill -9 "${l#/proc/}" 2>/dev/null
  done
  split_failed_log "$name" "$rundir/$name-failed.log"
  # the raw output the tables are computed from, without the run's paths
  rm -rf "$OUT/raw/$name"
  sanitize <"$OUT/logs/$name.out" >"$OUT/raw/$name.out"
  if [ -d "$OUT/logs/$name" ]; then
    mkdir -p "$OUT/raw/$name"
    for l in "$OUT/logs/$name"/*.log; do
      [ -f "$l" ] && sanitize <"$l" >"$OUT/raw/$name/${l##*/}"
    done
  fi
  note "  $name: $(grep -c '^[0-9:.]* \[Passed\]' "$OUT/raw/$name.out") passed of $(grep -c '^[0-9:.]* + Test ' "$OUT/raw/$name.out") cases"
}

for s in "${RUN[@]}"; do
  run_suite "${s%%:*}" "${s#*:}"
done

# ---------------------------------------------------------------- reports --
make_report "$OUT"
rc=$?
cat "$OUT/summary.txt"
exit $rc
