#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, compiles a plain FTI C program
# against the installed header and library only, and runs the checkpoint /
# crash / restart cycle at 4 ranks with local_test.
#   run_install_test.sh BUILD_DIR SOURCE_DIR [EXTRA_CFLAGS...]
# (a sanitized library needs the program built with the same sanitizers)
set -euo pipefail
trap 'echo "install test: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
build=$1 source=$2
shift 2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" > "$scratch/install.log"
test -f "$prefix/include/fti.h"
libdir=$(dirname "$(find "$prefix" -name 'libmlckpt.so' | head -n 1)")
mpicc -std=c99 -Wall -Wextra -Werror "$@" "$source/tests/install/fti_app.c" -I"$prefix/include" \
    -L"$libdir" -Wl,-rpath,"$libdir" -lmlckpt -o "$scratch/fti_app"
# The program must resolve the installed library, not the build tree's.
# (ldd's output is captured first: with pipefail, grep -q closing the pipe
# early would make ldd fail with SIGPIPE.)
linked=$(ldd "$scratch/fti_app")
grep -q "$libdir/libmlckpt.so" <<< "$linked"

cd "$scratch"
bash "$source/tests/support/write_config.sh" config.fti "$scratch" 2
run() { timeout 120 "$source/tests/support/mpiexec.sh" --oversubscribe -n 4 ./fti_app config.fti; }
run
grep -q '^failure = 1' config.fti
run | tee second.log
grep -q 'recovered bit for bit' second.log
grep -q '^failure = 0' config.fti
echo "install test: passed"
