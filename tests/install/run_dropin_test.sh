#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds, against the
# installed tree only, what was written for FTI or SCR and knows nothing of
# mlckpt, and runs each program at one rank:
#  - a CMake project written for FTI: find_package(FTI), fti.shared,
#    fti.static, fti_f90.shared, fti_f90.static;
#  - a CMake project written for SCR: find_package(scr), scr::scr;
#  - FTI's build line, mpicc ... -I<prefix>/include -L<prefix>/lib -lfti, for
#    a program that also calls iniparser and OpenSSL's MD5 (as FTI's test
#    programs do: FTI's library brings both), and SCR's, -lscr.
#   run_dropin_test.sh BUILD_DIR SOURCE_DIR INIPARSER_INCLUDE_DIR [EXTRA_FLAGS...]
# (a sanitized library needs the programs built with the same sanitizers)
set -euo pipefail
trap 'echo "drop-in test: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
iniparser_include=$3
source "$2/tests/install/scratch_prefix.sh" "$1" "$2" "${@:4}"
dropin=$source/tests/install/dropin

echo "== find_package(FTI): fti.shared, fti.static, fti_f90.shared, fti_f90.static"
configure_against_prefix "$dropin/fti" "$scratch/build-fti" > "$scratch/configure-fti.log"
grep -q "$prefix/share/FTI/cmake" "$scratch/build-fti/CMakeCache.txt"
cmake --build "$scratch/build-fti" > "$scratch/build-fti.log"
for app in app_shared app_static; do
    installed_only "$scratch/build-fti/$app"
    run "$scratch/build-fti/$app" | grep "consumer c: ok"
done
for app in app_f90 app_f90_static; do
    installed_only "$scratch/build-fti/$app"
    run "$scratch/build-fti/$app" | grep "consumer fortran: ok"
done

echo "== find_package(scr): scr::scr"
configure_against_prefix "$dropin/scr" "$scratch/build-scr" > "$scratch/configure-scr.log"
grep -q "$prefix/share/scr/cmake" "$scratch/build-scr/CMakeCache.txt"
cmake --build "$scratch/build-scr" > "$scratch/build-scr.log"
installed_only "$scratch/build-scr/app"
mkdir -p "$scratch/scr-cmake"
(cd "$scratch/scr-cmake" && timeout 60 "$source/tests/support/mpiexec.sh" -n 1 "$scratch/build-scr/app" 10 4) |
    grep "scr_files: result steps=10"

echo "== FTI's build line: -lfti brings iniparser and MD5"
# shellcheck disable=SC2086
mpicc -Wall -Werror -Wno-deprecated-declarations $flags "$dropin/fti_deps.c" -I"$prefix/include" \
    -I"$iniparser_include" -L"$prefix/lib" -lfti -Wl,-rpath,"$prefix/lib" -o "$scratch/fti_deps"
installed_only "$scratch/fti_deps"
run "$scratch/fti_deps" | grep "fti_deps: ok (node_size 1, word 16, levels 4 3 2 1 5)"

echo "== SCR's build line: -lscr"
# shellcheck disable=SC2086
mpicc -Wall -Werror $flags "$source/examples/c/scr_files.c" -I"$prefix/include" -L"$prefix/lib" -lscr \
    -Wl,-rpath,"$prefix/lib" -o "$scratch/scr_files"
installed_only "$scratch/scr_files"
mkdir -p "$scratch/scr-line"
(cd "$scratch/scr-line" && timeout 60 "$source/tests/support/mpiexec.sh" -n 1 "$scratch/scr_files" 10 4) |
    grep "scr_files: result steps=10"
echo "drop-in test: passed"
