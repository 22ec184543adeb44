#!/usr/bin/env bash
# Runs a command with a bound against hangs, like timeout(1), but first
# takes the stacks of every process the command started:
#   run_bounded.sh SECONDS STACK_DIR COMMAND [ARGS...]
# When COMMAND ends within SECONDS, its exit code is returned. Otherwise
# capture_stacks.sh writes the stacks of its whole process tree (mpiexec,
# its daemons, every rank) to STACK_DIR and prints them, then the tree gets
# SIGTERM, SIGKILL 10 s later, and the exit code is 124 (as timeout's).
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 SECONDS STACK_DIR COMMAND [ARGS...]" >&2
    exit 2
fi
limit=$1 stacks=$2
shift 2
capture=$(cd "$(dirname "$0")" && pwd)/capture_stacks.sh
fired=$(mktemp /tmp/mlckpt-bounded.XXXXXX)
trap 'rm -f "$fired"' EXIT

"$@" &
child=$!

# The tree is listed before any signal: a killed parent's children are
# reparented, and would no longer be found below it.
stop_tree() {  # stop_tree PID...: SIGTERM, then SIGKILL to what is left after 10 s
    local pids
    mapfile -t pids < <("$capture" --tree "$@")
    [ ${#pids[@]} -gt 0 ] || return 0
    kill -TERM "${pids[@]}" 2> /dev/null
    for _ in $(seq 20); do
        kill -0 "${pids[@]}" 2> /dev/null || return 0
        sleep 0.5
    done
    kill -KILL "${pids[@]}" 2> /dev/null
}

# The timer: its sleep writes nowhere, so that one left behind could not
# hold a pipe (ctest's) open. Once it fires it finishes its work whatever
# signal comes.
(
    trap 'kill "${sleeper:-}" 2> /dev/null; exit 0' TERM
    sleep "$limit" > /dev/null 2>&1 &
    sleeper=$!
    wait "$sleeper" || exit 0
    trap '' TERM
    echo fired > "$fired"
    echo "=== run_bounded: '$*' did not end within $limit s; the stacks of its processes follow"
    "$capture" "$stacks" "$child"
    stop_tree "$child"
) &
timer=$!

trap 'stop_tree "$child"; kill "$timer" 2> /dev/null; exit 143' TERM
trap 'stop_tree "$child"; kill "$timer" 2> /dev/null; exit 130' INT
wait "$child"
rc=$?
kill "$timer" 2> /dev/null
wait "$timer"
if [ -s "$fired" ]; then
    exit 124
fi
exit "$rc"
