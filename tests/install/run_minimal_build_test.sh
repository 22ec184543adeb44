#!/usr/bin/env bash
# mlckpt built without its optional parts (MLCKPT_HDF5, MLCKPT_FORTRAN and
# MLCKPT_SCR off, Spack's mlckpt~hdf5~fortran~scr), installed: the library
# needs no HDF5, the installation holds neither SCR's nor Fortran's files,
# the installed examples build and restart, and ckpt_io = 5 and
# h5_single_file_enable = 1 are refused with one message naming the build.
#   run_minimal_build_test.sh SOURCE_DIR
set -euo pipefail
trap 'echo "minimal build test: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
source=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix

echo "== configure and build without HDF5, Fortran and SCR"
# Unoptimised, core compiled as unity sources: only what is built and
# refused is checked here (the optimised build compiles each file alone).
cmake -S "$source" -B "$scratch/build" -G Ninja -DCMAKE_BUILD_TYPE=None -DMLCKPT_UNITY_CORE=ON -DMLCKPT_HDF5=OFF \
    -DMLCKPT_FORTRAN=OFF -DMLCKPT_SCR=OFF -DMLCKPT_BUILD_TESTS=OFF -DMLCKPT_BUILD_EXAMPLES=OFF -DMLCKPT_BUILD_BENCH=OFF \
    > "$scratch/configure.log"
cmake --build "$scratch/build" -j2 > "$scratch/build.log" || { tail -n 40 "$scratch/build.log"; exit 1; }
cmake --install "$scratch/build" --prefix "$prefix" > "$scratch/install.log"

echo "== what the installation holds"
needed=$(readelf -d "$prefix/lib/libmlckpt.so")
if grep -qiE 'hdf5|gfortran' <<< "$needed"; then
    echo "libmlckpt.so needs HDF5 or Fortran libraries in a build without them:" >&2
    echo "$needed" >&2
    exit 1
fi
for present in include/fti.h lib/libfti.so lib/libmlckpt.so share/FTI/cmake/FTIConfig.cmake bin/mlckpt \
    share/mlckpt/examples/crash_restart.sh; do
    test -e "$prefix/$present" || { echo "missing from the installation: $present" >&2; exit 1; }
done
for absent in include/scr.h include/scrf.h include/fti.mod lib/libscr.so lib/libmlckpt_fortran.so \
    lib/libfti_f90.so share/scr lib/pkgconfig/mlckpt-fortran.pc; do
    if test -e "$prefix/$absent"; then
        echo "installed by a build without it: $absent" >&2
        exit 1
    fi
done
for symbol in SCR_Init FTI_Init FTI_DefineGlobalDataset; do
    nm -D --defined-only "$prefix/lib/libmlckpt.so" | grep -qw "$symbol" && found=yes || found=no
    case "$symbol:$found" in
        SCR_Init:yes | FTI_Init:no | FTI_DefineGlobalDataset:no)
            echo "libmlckpt.so: $symbol exported: $found" >&2
            exit 1
            ;;
    esac
done

echo "== the installed examples: C and C++ built, no Fortran or SCR ones"
cmake -S "$prefix/share/mlckpt/examples" -B "$scratch/examples" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER=mpicc -DCMAKE_CXX_COMPILER=mpicxx -DCMAKE_Fortran_COMPILER=mpifort > "$scratch/examples.log"
cmake --build "$scratch/examples" >> "$scratch/examples.log"
test -x "$scratch/examples/heatdis" && test -x "$scratch/examples/heatdis_cpp"
for absent in heatdis_f90 scr_files scr_files_f90; do
    if test -e "$scratch/examples/$absent"; then
        echo "built without its part: $absent" >&2
        exit 1
    fi
done
TMPDIR=$scratch bash "$prefix/share/mlckpt/examples/crash_restart.sh" --level 2 \
    --mpiexec "$source/tests/support/mpiexec.sh" "$scratch/examples/heatdis" > "$scratch/restart.log" 2>&1 ||
    { cat "$scratch/restart.log"; exit 1; }
tail -n 1 "$scratch/restart.log" | grep '^crash_restart: PASS: '

echo "== HDF5 checkpoints refused"
refused() {
    local key=$1 expected=$2 run=$scratch/run-${1%% *}
    mkdir -p "$run"
    bash "$source/tests/support/write_config.sh" "$run/config.fti" "$run" 1
    sed -i "s/^\[basic\]$/[basic]\n$key/" "$run/config.fti"
    if (cd "$run" && timeout 60 "$source/tests/support/mpiexec.sh" -n 1 "$scratch/examples/heatdis" \
        --config config.fti --iterations 10 --ckpt-every 5) > "$run/log" 2>&1; then
        echo "a run with '$key' succeeded in a build without HDF5" >&2
        exit 1
    fi
    grep -F "$expected" "$run/log" || { cat "$run/log"; exit 1; }
}
refused "ckpt_io = 5" "[basic] ckpt_io = 5 (HDF5): this mlckpt was built without HDF5 (MLCKPT_HDF5=OFF"
refused "h5_single_file_enable = 1" \
    "[basic] h5_single_file_enable = 1 (FTI_L4_H5_SINGLE): this mlckpt was built without HDF5 (MLCKPT_HDF5=OFF"
echo "minimal build test: passed"
