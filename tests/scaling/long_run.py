#!/usr/bin/env python3
"""Nothing a run accumulates grows with its checkpoints or its variables.

Runs bench/scaling_bench --trace (the launches of bench/long_runs.py) on 4
ranks, one group of 4 nodes, for every case: a long run of LONG checkpoints
with the levels cycled (L1, L2, L3, L4, L1, ...), a short one of SHORT, and
a restart after each. After every checkpoint the bench samples, on every
rank, the bytes held from malloc (heap in use: what was freed does not
count, unlike the resident set) and the open descriptors. It fails if
  - from checkpoint SETTLED on (each level's buffers made, the directory
    cache full at 32 L4 checkpoints) the heap of the most-holding rank
    grows by more than HEAP_BYTES_PER_CHECKPOINT per checkpoint from each
    third of the rest of the run to the next (medians of the thirds: a
    leak grows both steps, one late allocation of a few pages by Open MPI
    or the allocator only one), or the descriptors change;
  - the second half of the long run makes more file-system operations per
    checkpoint than the first, for the mean process or the busiest;
  - the long run leaves more files behind than the short one, or its
    restart makes more file-system operations;
and, with heads, if the heads' heap or descriptors grow the same way
(sampled by the counter in the heads, which never leave FTI_Init, after
each checkpoint, the levels' work handed to them: inline_l2..l4 = 0);
and, protecting FEW and MANY variables of the first case, if a checkpoint's
file-system operations or the files kept grow with the variables, or a
variable costs more than HEAP_BYTES_PER_VARIABLE of heap beyond its data.

    long_run.py --counter LIB --bench PROGRAM [--cases L1234:1,L1234:3,L4:2,L4:4,HL1234:1]

Counts and bytes, not times: the result does not depend on the machine's
load. The times of the same runs at 1,000 checkpoints and 10,000 variables,
FTI beside, are bench/long_runs.py's (docs/performance.md, "Long runs").
"""
import argparse
import collections
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import long_runs  # noqa: E402  (bench/long_runs.py: the runs and their traces)
import verdict  # noqa: E402  (the failures and the outcome)

RANKS = 4
LONG = 400
SHORT = 40  # a multiple of the cycle of four levels, as LONG: both end at L4
SETTLED = 160
# The heap of the most-holding rank varies by a few KiB as Open MPI and the
# allocator keep pages; a leak of a record per checkpoint is 100 bytes or more.
HEAP_BYTES_PER_CHECKPOINT = 48
FEW, MANY, VARIABLE_CHECKPOINTS = 200, 2000, 12
# Measured: about 880 bytes a variable at 2,000 variables, 600 at 100,000
# (its registry entry, its record in the checkpoint being written and in
# the newest one, their index by id); beyond 2 KiB a variable, something
# is kept per variable and checkpoint.
HEAP_BYTES_PER_VARIABLE = 2048
SLACK = 0.5  # operations per checkpoint and process: background removals land in the next checkpoint


def steady_growth(ys):
    """Growth of `ys` per step that lasts: the smaller of the growths from
    the median of each third to the next, per step."""
    third = len(ys) // 3
    medians = [statistics.median(ys[k * third:(k + 1) * third]) for k in range(3)]
    return min(medians[1] - medians[0], medians[2] - medians[1]) / third


def per_process(record, launch, phase, checkpoints):
    """File-system operations of `phase` per checkpoint (or per launch when
    `checkpoints` is 1): every place and kind together, the mean process
    and the busiest."""
    ops = record["fs_ops"][launch].get(phase, {})
    total = sum(o["total"] for where in ops.values() for o in where.values())
    busiest = sum(o["max"] for where in ops.values() for o in where.values())
    return total / RANKS / checkpoints, busiest / checkpoints


def check_long_run(name, long, short, failures):
    heap = long["heap_mib"][SETTLED - 1:]
    growth = steady_growth(heap) * (1 << 20)
    print(f"{name}: heap in use {heap[0]:.3f} MiB at checkpoint {SETTLED}, {heap[-1]:.3f} MiB at {LONG}: "
          f"{growth:.1f} bytes per checkpoint (at most {HEAP_BYTES_PER_CHECKPOINT})")
    if growth > HEAP_BYTES_PER_CHECKPOINT:
        failures.append(f"{name}: the heap grew by {growth:.1f} bytes per checkpoint from checkpoint {SETTLED} "
                        f"to {LONG}")
    descriptors = long["descriptors"][SETTLED - 1:]
    print(f"{name}: open descriptors {descriptors[0]:.0f} at checkpoint {SETTLED}, {descriptors[-1]:.0f} at {LONG}, "
          f"{max(descriptors):.0f} at most")
    if max(descriptors) != descriptors[0] or min(descriptors) != descriptors[0]:
        failures.append(f"{name}: open descriptors went from {descriptors[0]:.0f} to between "
                        f"{min(descriptors):.0f} and {max(descriptors):.0f}")
    half = LONG // 2
    early = per_process(long, "write", "checkpoint", half)
    late = per_process(long, "write", "checkpoint_late", LONG - half)
    print(f"{name}: file-system operations per checkpoint, mean process; busiest: first half {early[0]:.2f}; "
          f"{early[1]:.2f}, second half {late[0]:.2f}; {late[1]:.2f}")
    if late[0] > early[0] + SLACK or late[1] > early[1] + 4 * SLACK:
        failures.append(f"{name}: file-system operations per checkpoint grew from {early[0]:.2f} (busiest "
                        f"{early[1]:.2f}) in the first half to {late[0]:.2f} ({late[1]:.2f}) in the second")
    kept = sum(long["files_kept"].values()), sum(short["files_kept"].values())
    print(f"{name}: files kept after {LONG} checkpoints {kept[0]}, after {SHORT} {kept[1]}")
    if kept[0] > kept[1]:
        failures.append(f"{name}: {kept[0]} files kept after {LONG} checkpoints, {kept[1]} after {SHORT}")
    for phase in ("init", "recover", "finalize"):
        after = per_process(long, "restart", phase, 1), per_process(short, "restart", phase, 1)
        if after[0][0] > after[1][0] + SLACK:
            failures.append(f"{name}: the restart's {phase} makes {after[0][0]:.2f} file-system operations per "
                            f"process after {LONG} checkpoints, {after[1][0]:.2f} after {SHORT}")


def check_heads(name, long, failures):
    """The heads (a case with heads) hold no more as the checkpoints add up:
    their samples (bench/fs_op_counter.c records, at a head's first
    operation after each checkpoint, its heap in use, resident set and
    descriptors) grow no more than the application's may, from SETTLED on."""
    heads = long["heads_record"]["write"]
    samples = len(heads["heap_mib"]) if heads else 0
    print(f"{name}: {heads['count'] if heads else 0} heads sampled {samples} times over {LONG} checkpoints")
    if samples < LONG // 2:
        failures.append(f"{name}: the heads were sampled {samples} times over {LONG} checkpoints: they received "
                        "no work, or the counter did not sample them")
        return
    settled = SETTLED - 1 if samples >= LONG else samples // 3
    heap = heads["heap_mib"][settled:]
    growth = steady_growth(heap) * (1 << 20)
    print(f"{name}: the heads' heap in use {heap[0]:.3f} MiB at sample {settled + 1}, {heap[-1]:.3f} MiB at "
          f"{samples}: {growth:.1f} bytes per checkpoint (at most {HEAP_BYTES_PER_CHECKPOINT})")
    if growth > HEAP_BYTES_PER_CHECKPOINT:
        failures.append(f"{name}: the heads' heap grew by {growth:.1f} bytes per checkpoint")
    # A head is sampled at its first operation after a checkpoint, which may
    # find the file of its work open or not: one descriptor either way. What
    # it keeps open over the run is the most of each third.
    descriptors = heads["descriptors"][settled:]
    third = len(descriptors) // 3
    most = [max(descriptors[k * third:(k + 1) * third]) for k in range(3)]
    print(f"{name}: the heads' open descriptors at most {most[0]}, {most[1]}, {most[2]} in each third from sample "
          f"{settled + 1} on")
    if most[2] > most[0] or most[1] > most[0]:
        failures.append(f"{name}: the heads' open descriptors grew: at most {most[0]}, {most[1]}, {most[2]} in "
                        "each third of the run")


def check_variables(name, few, many, failures):
    ops = [per_process(r, "write", "checkpoint", VARIABLE_CHECKPOINTS // 2)[0] for r in (few, many)]
    print(f"{name}: file-system operations per checkpoint and process with {FEW} variables {ops[0]:.2f}, "
          f"with {MANY} {ops[1]:.2f}")
    if ops[1] > ops[0] + SLACK:
        failures.append(f"{name}: file-system operations per checkpoint grew from {ops[0]:.2f} with {FEW} variables "
                        f"to {ops[1]:.2f} with {MANY}")
    kept = [sum(r["files_kept"].values()) for r in (few, many)]
    if kept[1] != kept[0]:
        failures.append(f"{name}: {kept[0]} files kept with {FEW} variables, {kept[1]} with {MANY}")
    per_variable = (many["heap_mib"][-1] - few["heap_mib"][-1]) * (1 << 20) / (MANY - FEW) - few["bytes"]
    print(f"{name}: {per_variable:.0f} bytes of heap per variable beyond its data (at most "
          f"{HEAP_BYTES_PER_VARIABLE})")
    if per_variable > HEAP_BYTES_PER_VARIABLE:
        failures.append(f"{name}: each variable holds {per_variable:.0f} bytes of heap beyond its data")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--counter", required=True, help="libfs_op_counter.so (bench/fs_op_counter.c)")
    p.add_argument("--bench", required=True, help="the scaling_bench program")
    p.add_argument("--cases", default="L1234:1,L1234:3,L4:2,L4:4,HL1234:1")
    args = p.parse_args(argv)
    failures = []
    with tempfile.TemporaryDirectory(prefix="mlckpt-long-run-") as tmp:
        binary = os.path.abspath(args.bench)
        bench = argparse.Namespace(dir=tmp, counter=os.path.abspath(args.counter),
                                   ranks=RANKS, bytes=64, timeout=900)
        runs = collections.OrderedDict()
        for case in args.cases.split(","):
            levels, io, heads = long_runs.parse_case(case)
            name = long_runs.case_name(levels, io, heads)
            long, short = (long_runs.run_case(bench, "mlckpt", binary, levels, io, heads, n, 1) for n in (LONG, SHORT))
            check_long_run(name, long, short, failures)
            if heads:
                check_heads(name, long, failures)
            runs.setdefault("variables", (name, levels, io, heads))
        name, levels, io, heads = runs["variables"]
        few, many = (long_runs.run_case(bench, "mlckpt", binary, levels, io, heads, VARIABLE_CHECKPOINTS, n)
                     for n in (FEW, MANY))
        check_variables(name, few, many, failures)
    return verdict.report("long_run", failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
