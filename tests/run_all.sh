#!/usr/bin/env bash
# The README's test command. Installs missing Debian packages, builds the
# project twice (optimised, and with AddressSanitizer + UndefinedBehavior-
# Sanitizer) and runs the whole suite on both builds. The last lines printed
# are CTest's summary of the sanitizer run.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$repo/tools/install-deps.sh"

build() {  # build DIR [CMAKE OPTIONS...]
    local dir=$1
    shift
    cmake -S "$repo" -B "$dir" -G Ninja "$@" > "$dir.configure.log" 2>&1 ||
        { cat "$dir.configure.log"; exit 1; }
    cmake --build "$dir" -j 2
}

mkdir -p "$repo/build" "$repo/build-asan"
echo "== building (RelWithDebInfo) in build/"
build "$repo/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== building with AddressSanitizer + UndefinedBehaviorSanitizer in build-asan/"
build "$repo/build-asan" -DCMAKE_BUILD_TYPE=Debug -DMLCKPT_SANITIZE=ON

echo "== test suite, optimised build"
ctest --test-dir "$repo/build" -j 2 --output-on-failure
echo "== test suite, sanitizer build"
ctest --test-dir "$repo/build-asan" -j 2 --output-on-failure
