#!/usr/bin/env bash
# Runs one MPI test scenario as a sequence of launches sharing a work dir:
#   run_phases.sh BINARY TEST WORKDIR NP:EXPECT [NP:EXPECT ...]
# EXPECT is "ok" (the launch must succeed), "killed" (a rank kills itself
# on purpose) or "aborted" (the library aborts the job after a wait longer
# than [advanced] wait_timeout). Each launch gets --phase=N, and its output
# stays in WORKDIR/phaseN.log for later phases to check.
#
# A launch counts as killed only when it ends the way the injected fault
# ends it: a rank announced the kill ("fault injection: killed" from the
# library, "killed on purpose" from the test harness) and mpiexec reported
# SIGKILL (exit code 128 + 9). A failed assertion, a timeout or any other
# crash fails the scenario.
#
# MLCKPT_TEST_NODES=K runs each launch on K separate nodes of this machine
# (hosts n0 ... n<K-1>, the ranks spread evenly in rank order), each with its
# hostname and node-local storage (WORKDIR/nodes/n<i>, seen by that node's
# processes as WORKDIR/local): see tests/support/node_agent.sh. Where the
# namespaces it needs cannot be made, the scenario is skipped (exit code 77)
# with the reason, never passed. So is a scenario whose test skips itself
# in any launch (GTEST_SKIP: tests/mpi/mpi_main.cpp exits 77 on every rank).
#
# MLCKPT_PHASE_TIMEOUT (seconds, default 300) bounds each launch against
# hangs; it is not a speed check: a launch that reaches it fails. Before it
# is killed, the stacks of all its processes (mpiexec and every rank) are
# printed and kept in WORKDIR/hang-stacks/phase<N>/<pid>.txt; the work dir
# is removed only when every phase passed.
set -u
binary=$1 test=$2 workdir=$3
shift 3
support=$(cd "$(dirname "$0")/../support" && pwd)
limit=${MLCKPT_PHASE_TIMEOUT:-300}
sigkill_exit=137
rm -rf "$workdir"
mkdir -p "$workdir"
nodes=${MLCKPT_TEST_NODES:-}
if [ -n "$nodes" ]; then
    export MLCKPT_NODE_STORAGE=$workdir/nodes MLCKPT_NODE_LOCAL=$workdir/local
    if ! why=$("$support/separate_nodes_probe.sh" "$MLCKPT_NODE_STORAGE/probe" "$MLCKPT_NODE_LOCAL"); then
        echo "=== SKIPPED: $why"
        exit 77
    fi
    rmdir "$MLCKPT_NODE_STORAGE/probe"
fi
# The launch options that spread NP ranks over the nodes.
node_options() {
    [ -n "$nodes" ] || return 0
    local np=$1 hosts=() i
    for ((i = 0; i < nodes; i++)); do hosts+=("n$i:$(((np + nodes - 1) / nodes))"); done
    local IFS=,
    # Between nodes over TCP, on the loopback interface: the only one every
    # machine has (Open MPI leaves it out by default).
    echo "--mca plm_rsh_agent $support/node_agent.sh --mca btl self,vader,tcp --mca btl_tcp_if_include lo" \
        "--mca oob_tcp_if_include lo --host ${hosts[*]}"
}
phase=1
for spec in "$@"; do
    np=${spec%%:*}
    expect=${spec#*:}
    log="$workdir/phase$phase.log"
    echo "=== $test phase $phase: $np ranks, expected outcome: $expect"
    start=$SECONDS
    # The launch's output goes to the terminal and to the log; the exit code
    # is the launch's (124 when the bound was reached).
    stacks="$workdir/hang-stacks/phase$phase"
    # shellcheck disable=SC2046 # node_options' words are separate options
    "$support/run_bounded.sh" "$limit" "$stacks" "$support/mpiexec.sh" --oversubscribe $(node_options "$np") \
        -n "$np" "$binary" \
        --gtest_filter="$test" --phase="$phase" --workdir="$workdir" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    elapsed=$((SECONDS - start))
    # A test that skipped itself (what it needs is not here: a mount, a
    # second CPU) skips the whole scenario, not this phase alone: the later
    # phases depend on what this one should have left.
    if [ "$rc" -eq 77 ] && grep -q "^=== SKIPPED: the scenario's test skipped itself" "$log"; then
        echo "=== SKIPPED: phase $phase of $test skipped itself (the reason is above); its later phases do not run"
        exit 77
    fi
    if [ "$rc" -eq 124 ] || [ "$elapsed" -ge "$limit" ]; then
        echo "=== phase $phase did not end within $limit s (exit code $rc): a hang;" \
            "the stacks of its processes are above and in $stacks"
        exit 1
    fi
    case $expect in
        ok)
            if [ "$rc" -ne 0 ]; then
                echo "=== phase $phase failed (exit code $rc)"
                exit 1
            fi
            ;;
        killed)
            announced=0
            grep -qE "fault injection: killed|killed on purpose" "$log" && announced=1
            if [ "$rc" -ne "$sigkill_exit" ] || [ "$announced" -ne 1 ]; then
                echo "=== phase $phase should have ended by the injected kill (SIGKILL, exit code $sigkill_exit," \
                    "announced by the killed rank), but it ended with exit code $rc" \
                    "$([ "$announced" -eq 1 ] && echo "after the kill was announced" || echo "and no kill was announced")"
                exit 1
            fi
            ;;
        aborted)
            if [ "$rc" -eq 0 ] || ! grep -q "longer than \[advanced\] wait_timeout" "$log"; then
                echo "=== phase $phase should have been aborted by the library after a bounded wait, but it ended" \
                    "with exit code $rc $(grep -q "wait_timeout" "$log" && echo "(a wait was reported)" ||
                        echo "and no wait was reported")"
                exit 1
            fi
            ;;
        *)
            echo "=== unknown expected outcome '$expect' (allowed: ok, killed, aborted)"
            exit 2
            ;;
    esac
    phase=$((phase + 1))
done
rm -rf "$workdir"
