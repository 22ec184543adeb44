#!/usr/bin/env bash
# Runs one MPI test scenario as a sequence of launches sharing a work dir:
#   run_phases.sh BINARY TEST WORKDIR NP:EXPECT [NP:EXPECT ...]
# EXPECT is "ok" (the launch must succeed) or "killed" (a rank is killed on
# purpose, so the launch must fail). Each launch gets --phase=N.
set -u
binary=$1 test=$2 workdir=$3
shift 3
mpiexec=$(cd "$(dirname "$0")/../support" && pwd)/mpiexec.sh
rm -rf "$workdir"
mkdir -p "$workdir"
phase=1
for spec in "$@"; do
    np=${spec%%:*}
    expect=${spec#*:}
    echo "=== $test phase $phase: $np ranks, expected outcome: $expect"
    timeout --kill-after=10 120 "$mpiexec" --oversubscribe -n "$np" "$binary" \
        --gtest_filter="$test" --phase="$phase" --workdir="$workdir"
    rc=$?
    if [ "$expect" = ok ] && [ "$rc" -ne 0 ]; then
        echo "=== phase $phase failed (exit code $rc)"
        exit 1
    fi
    if [ "$expect" = killed ] && [ "$rc" -eq 0 ]; then
        echo "=== phase $phase should have been killed but exited cleanly"
        exit 1
    fi
    phase=$((phase + 1))
done
rm -rf "$workdir"
