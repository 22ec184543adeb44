#!/bin/bash
# Runs FTI's own ITF test suites against an installed mlckpt.
#
# usage: run_fti_suites.sh [options] FTI_BUILD PREFIX OUTDIR [SUITE...]
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
#   --reference        run FTI's own binaries (no compilation against PREFIX)
#   --td ARG           pass ARG to FTI's testdriver (repeatable), e.g.
#                      --td --pick --td dCP:standard
#   --list             print the suite names in run order and exit
#   --report-only      only rebuild results.tsv, failures.tsv and summary.txt
#                      from the suites already run in OUTDIR (e.g. after a stop)
#
# Output (OUTDIR):
#   results.tsv   suite, case, result (pass/fail/hang), seconds
#   failures.tsv  suite, case, result, the testdriver's failure message, log file
#   summary.txt   per suite: passed/total, hangs, seconds; compile workarounds
#   build.tsv     each test program: compiled or not, workarounds it needed
#   build/        compiler output of every program
#   logs/SUITE.out          the testdriver's output with timestamps
#   logs/SUITE/CASE.log     the ITF log of each failing case (app output included)
#
# The runner fetches nothing. It needs bash, GNU coreutils, Open MPI's
# mpicc/mpicxx/mpifort/mpirun, h5dump (hdf5 suite).
set -u -o pipefail

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

# ---------------------------------------------------------------- options --
TIMEOUT=300
SUITE_TIMEOUT=21600
REFERENCE=0
REPORT_ONLY=0
TD_ARGS=()
POS=()
while [ $# -gt 0 ]; do
  case $1 in
    --timeout) TIMEOUT=$2; shift 2 ;;
    --suite-timeout) SUITE_TIMEOUT=$2; shift 2 ;;
    --reference) REFERENCE=1; shift ;;
    --report-only) REPORT_ONLY=1; shift ;;
    --td) TD_ARGS+=("$2"); shift 2 ;;
    --list) for s in "${SUITES[@]}"; do echo "${s%%:*}"; done; exit 0 ;;
    -h|--help) usage 0 ;;
    --) shift; POS+=("$@"); break ;;
    -) POS+=("$1"); shift ;;
    -*) echo "unknown option $1" >&2; usage 2 ;;
    *) POS+=("$1"); shift ;;
  esac
done
[ ${#POS[@]} -ge 3 ] || usage 2
FTI_BUILD=$(readlink -f "${POS[0]}")
PREFIX=${POS[1]}
[ "$PREFIX" != "-" ] && PREFIX=$(readlink -f "$PREFIX")
mkdir -p "${POS[2]}" || exit 2
OUT=$(readlink -f "${POS[2]}")
SELECTED=("${POS[@]:3}")

die() { echo "run_fti_suites: $*" >&2; exit 2; }
note() { echo "[harness] $*"; }

[ -f "$FTI_BUILD/CMakeCache.txt" ] || die "$FTI_BUILD is not a CMake build folder"
[ -x "$FTI_BUILD/testing/itf/testdriver" ] || die "$FTI_BUILD has no testing/itf/testdriver: configure FTI with -DENABLE_TESTS=ON and build it"
FTI_SRC=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$FTI_BUILD/CMakeCache.txt")
[ -d "$FTI_SRC/testing/suites" ] || die "FTI's source folder ($FTI_SRC, from CMakeCache.txt) has no testing/suites"
if [ $REFERENCE -eq 0 ] && [ $REPORT_ONLY -eq 0 ]; then
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
  for w in "${SELECTED[@]}"; do
    printf '%s\n' "${SUITES[@]}" | grep -q "^$w:" || die "unknown suite $w (see --list)"
  done
fi

# MPI as root, oversubscribed (FTI's suites run 8-68 ranks).
if [ "$(id -u)" = 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
  export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}
fi
case " ${MPIRUN_ARGS:-} " in
  *" --oversubscribe "*) ;;
  *) export MPIRUN_ARGS="--oversubscribe ${MPIRUN_ARGS:-}" ;;
esac

if [ $REPORT_ONLY -eq 0 ]; then
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

if [ $REFERENCE -eq 0 ]; then
  note "compiling FTI's test programs against $PREFIX"
  for p in "${PROGRAMS[@]}"; do
    IFS='|' read -r dir exe lang flags srcs <<<"$p"
    suite_needs "$dir" || continue
    compile_one "$dir" "$exe" "$lang" "$flags" "$srcs"
    note "  $exe: ${PROG_STATUS[$exe]}${PROG_WORKAROUND[$exe]:+ (workarounds: ${PROG_WORKAROUND[$exe]})}"
  done
  {
    printf 'program\tstatus\tworkarounds\n'
    for p in "${PROGRAMS[@]}"; do
      IFS='|' read -r dir exe lang flags srcs <<<"$p"
      [ -n "${PROG_STATUS[$exe]:-}" ] || continue
      printf '%s\t%s\t%s\n' "$exe" "${PROG_STATUS[$exe]}" "${PROG_WORKAROUND[$exe]:--}"
    done
  } >"$OUT/build.tsv"
else
  note "reference run: FTI's own test binaries"
  printf 'program\tstatus\tworkarounds\n(reference run: FTI own binaries)\t-\t-\n' >"$OUT/build.tsv"
fi

# ----------------------------------------------------- mpirun with timeout --
# FTI's module launches "mpirun $MPIRUN_ARGS -n N $MPIRUN_PRE_COMMAND app":
# an mpirun first in PATH puts a time limit on each launch and records hangs.
REAL_MPIRUN=$(command -v mpirun) || die "mpirun not found"
mkdir -p "$OUT/bin"
cat >"$OUT/bin/mpirun" <<EOF
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
EOF
chmod +x "$OUT/bin/mpirun"

# ---------------------------------------------------------------- running --
mkdir -p "$OUT/logs" "$OUT/suites" "$OUT/run"

slug() { sed -e 's/[^A-Za-z0-9=._-]\{1,\}/_/g' -e 's/^_//' -e 's/_$//' <<<"$1"; }

split_failed_log() {
  # FTI's testdriver appends every failing case to <suite>-failed.log, each
  # starting with "[ITF Test Case] <function> --param=value ...". ITF clears
  # its output buffer only when it logs a case: --all-logs (passed cases go
  # to <suite>-passed.log) keeps each failing case's log to its own output.
  local suite=$1 flog=$2 dest=$OUT/logs/$1
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
  local rundir="$OUT/run/$name" tsv="$OUT/suites/$name.tsv" fails="$OUT/suites/$name.failures.tsv"
  local hangs="$OUT/run/$name.hangs"
  rm -rf "$rundir"; mkdir -p "$rundir"
  : >"$hangs"
  note "suite $name ($itf)"
  local t0=$EPOCHREALTIME
  : >"$tsv"; : >"$fails"
  (
    cd "$rundir" &&
      PATH="$OUT/bin:$PATH" FTI_HARNESS_HANGS="$hangs" \
        timeout -k 30 "$SUITE_TIMEOUT" "$TREE/itf/testdriver" --no-colors --no-review --all-logs \
        "${TD_ARGS[@]}" "$itf" </dev/null 2>&1
    echo "[harness] testdriver exit $?"
  ) | {
    local cur='' start='' line
    while IFS= read -r line; do
      local now=$EPOCHREALTIME
      printf '%(%H:%M:%S)T %s\n' "${now%.*}" "$line"
      if [[ $line =~ ^\+\ Test\ ([^:]+):([^ ]+)\ \(([0-9]+)/([0-9]+)\)\ ?(.*)$ ]]; then
        cur="${BASH_REMATCH[2]} ${BASH_REMATCH[5]}"
        cur=${cur% }
        start=$now
        : >"$hangs"
      elif [[ -n $cur && $line =~ ^\[(Passed|Failed)\](:\ ?(.*))?$ ]]; then
        local res=pass msg=${BASH_REMATCH[3]}
        [ "${BASH_REMATCH[1]}" = Failed ] && res=fail
        [ -s "$hangs" ] && res=hang
        local secs
        secs=$(awk -v a="$start" -v b="$now" 'BEGIN{printf "%.1f", b-a}')
        printf '%s\t%s\t%s\t%s\n' "$name" "$cur" "$res" "$secs" >>"$tsv"
        [ $res != pass ] && printf '%s\t%s\t%s\t%s\tlogs/%s/%s.log\n' "$name" "$cur" "$res" "$msg" "$name" "$(slug "$cur")" >>"$fails"
        cur=''
      elif [[ $line == "[harness] testdriver exit "* && -n $cur ]]; then
        # the suite was killed in the middle of a case
        local secs
        secs=$(awk -v a="$start" -v b="$now" 'BEGIN{printf "%.1f", b-a}')
        printf '%s\t%s\t%s\t%s\n' "$name" "$cur" hang "$secs" >>"$tsv"
        printf '%s\t%s\thang\tsuite timeout (%ss)\t-\n' "$name" "$cur" "$SUITE_TIMEOUT" >>"$fails"
        cur=''
      fi
    done
  } >"$OUT/logs/$name.out"
  local t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f\n", b-a}' >"$OUT/suites/$name.seconds"
  split_failed_log "$name" "$rundir/$name-failed.log"
  local n p
  n=$(wc -l <"$tsv"); p=$(grep -c $'\tpass\t' "$tsv")
  note "  $name: $p/$n passed in $(cat "$OUT/suites/$name.seconds") s"
}

for s in "${RUN[@]}"; do
  run_suite "${s%%:*}" "${s#*:}"
done

fi

# ---------------------------------------------------------------- reports --
{
  printf 'suite\tcase\tresult\tseconds\n'
  for s in "${SUITES[@]}"; do
    [ -f "$OUT/suites/${s%%:*}.tsv" ] && cat "$OUT/suites/${s%%:*}.tsv"
  done
} >"$OUT/results.tsv"
{
  printf 'suite\tcase\tresult\tmessage\tlog\n'
  for s in "${SUITES[@]}"; do
    [ -f "$OUT/suites/${s%%:*}.failures.tsv" ] && cat "$OUT/suites/${s%%:*}.failures.tsv"
  done
} >"$OUT/failures.tsv"
{
  echo "FTI build: $FTI_BUILD (source $FTI_SRC$(git -C "$FTI_SRC" rev-parse --short HEAD 2>/dev/null | sed 's/^/, commit /'))"
  if grep -q 'reference run' "$OUT/build.tsv" 2>/dev/null; then echo "binaries: FTI's own (reference run)"
  elif [ $REPORT_ONLY -eq 0 ]; then echo "binaries: compiled against $PREFIX"; fi
  echo "per-launch timeout: ${TIMEOUT}s; MPIRUN_ARGS=$MPIRUN_ARGS"
  echo
  printf '%-20s %8s %8s %6s %6s %9s\n' suite passed total fail hang seconds
  tp=0 tt=0
  for s in "${SUITES[@]}"; do
    name=${s%%:*}
    [ -f "$OUT/suites/$name.tsv" ] || continue
    t=$(wc -l <"$OUT/suites/$name.tsv")
    p=$(grep -c $'\tpass\t' "$OUT/suites/$name.tsv")
    f=$(grep -c $'\tfail\t' "$OUT/suites/$name.tsv")
    h=$(grep -c $'\thang\t' "$OUT/suites/$name.tsv")
    printf '%-20s %8s %8s %6s %6s %9s\n' "$name" "$p" "$t" "$f" "$h" "$(cat "$OUT/suites/$name.seconds")"
    tp=$((tp + p)); tt=$((tt + t))
  done
  printf '%-20s %8s %8s\n' TOTAL "$tp" "$tt"
  echo
  echo "test programs (build.tsv):"
  tail -n +2 "$OUT/build.tsv" | sed 's/^/  /'
  if tail -n +2 "$OUT/build.tsv" | awk -F'\t' '$3 != "-"' | grep -q .; then
    echo
    echo "workarounds still needed by mlckpt:"
    tail -n +2 "$OUT/build.tsv" | awk -F'\t' '$3 != "-" {for (i = split($3, w, " "); i > 0; i--) n[w[i]] = n[w[i]] " " $1} END {for (k in n) print "  " k ":" n[k]}'
  fi
} >"$OUT/summary.txt"
cat "$OUT/summary.txt"
