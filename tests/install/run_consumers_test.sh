#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds a tiny C, C++ and
# Fortran program against the installed tree only, twice each: with CMake's
# find_package(mlckpt COMPONENTS ...) and with pkg-config. Every program runs
# a checkpoint at one rank. Then the Fortran programs of SCR's interface.
#   run_consumers_test.sh BUILD_DIR SOURCE_DIR [EXTRA_FLAGS...]
# (a sanitized library needs the programs built with the same sanitizers)
set -euo pipefail
trap 'echo "consumers test: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
source "$2/tests/install/scratch_prefix.sh" "$@"
consumers=$source/tests/install/consumers

for lang in c cxx fortran; do
    echo "== find_package: $lang"
    configure_against_prefix "$consumers/$lang" "$scratch/build-$lang" > "$scratch/configure-$lang.log"
    cmake --build "$scratch/build-$lang" > "$scratch/build-$lang.log"
    installed_only "$scratch/build-$lang/consumer"
    run "$scratch/build-$lang/consumer" | grep "consumer $lang: ok"
done

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig:${PKG_CONFIG_PATH:-}
echo "== pkg-config: c"
# shellcheck disable=SC2046,SC2086
mpicc -std=c99 -Wall -Werror $flags "$consumers/c/consumer.c" $(pkg-config --cflags --libs mlckpt) -o "$scratch/pc-c"
run "$scratch/pc-c" | grep "consumer c: ok"
echo "== pkg-config: cxx"
# shellcheck disable=SC2046,SC2086
mpicxx -std=c++20 -Wall -Werror $flags "$consumers/cxx/consumer.cpp" $(pkg-config --cflags --libs mlckpt-cxx) \
    -o "$scratch/pc-cxx"
run "$scratch/pc-cxx" | grep "consumer cxx: ok"
echo "== pkg-config: fortran"
# shellcheck disable=SC2046,SC2086
mpifort -std=f2008 -Wall $flags "$consumers/fortran/consumer.f90" $(pkg-config --cflags --libs mlckpt-fortran) \
    -o "$scratch/pc-fortran"
run "$scratch/pc-fortran" | grep "consumer fortran: ok"

# As FTI's build scripts do it: -I<prefix>/include (fti.h, fti.mod) and -lfti, -lfti_f90.
echo "== FTI's flags: c"
# shellcheck disable=SC2086
mpicc -std=c99 -Wall -Werror $flags "$consumers/c/consumer.c" -I"$prefix/include" -L"$prefix/lib" -lfti \
    -Wl,-rpath,"$prefix/lib" -o "$scratch/fti-c"
run "$scratch/fti-c" | grep "consumer c: ok"
echo "== FTI's flags: fortran"
# shellcheck disable=SC2086
mpifort -std=f2008 -Wall $flags "$consumers/fortran/consumer.f90" -I"$prefix/include" -L"$prefix/lib" -lfti_f90 -lfti \
    -Wl,-rpath,"$prefix/lib" -o "$scratch/fti-fortran"
run "$scratch/fti-fortran" | grep "consumer fortran: ok"

# As SCR's build scripts do it: INCLUDE 'scrf.h' from -I<prefix>/include and
# -lscrf (a fixed-form program, two launches); and the module scr, whose
# procedures are in libmlckpt_fortran, through pkg-config.
echo "== SCR's flags: fortran"
# shellcheck disable=SC2086
mpifort $flags "$source/tests/fortran/scrf_include.f" -I"$prefix/include" -L"$prefix/lib" -lscrf \
    -Wl,-rpath,"$prefix/lib" -o "$scratch/scrf-fortran"
mkdir -p "$scratch/scrf"
for launch in 1 2; do
    (cd "$scratch/scrf" && timeout 60 "$source/tests/support/mpiexec.sh" --oversubscribe -n 4 \
        "$scratch/scrf-fortran" unused "$launch") | grep "scrf.h: launch $launch passed"
done
echo "== pkg-config: fortran, the module scr"
# shellcheck disable=SC2046,SC2086
mpifort -std=f2008 -Wall $flags "$source/examples/fortran/scr_files.f90" $(pkg-config --cflags --libs mlckpt-fortran) \
    -o "$scratch/pc-scr"
(cd "$scratch/scrf" && timeout 60 "$source/tests/support/mpiexec.sh" -n 1 "$scratch/pc-scr" 10 4) |
    grep "scr_files: result steps=10"
echo "consumers test: passed"
