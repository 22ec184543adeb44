#!/usr/bin/env bash
# Demo of checkpoint/restart with mlckpt: installs the build's dependencies,
# builds the heat-distribution example (examples/c/heatdis.c, or its Fortran
# or C++ twin), then runs examples/crash_restart.sh on it: at 4 MPI ranks
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

printf '\n=== %s ===\n' "build: dependencies, library and heatdis"
bash "$repo/tools/install-deps.sh"
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j2 --target "$target"
exec bash "$repo/examples/crash_restart.sh" --level "$level" "$build/examples/$target"

