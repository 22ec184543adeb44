#!/usr/bin/env python3
"""The file-system metadata operations a rank makes do not grow with the
number of ranks, and a checkpoint's stay within a budget.

Runs bench/scaling_bench (FTI_Init, checkpoints, restart, recovery,
FTI_Finalize) under bench/fs_op_counter.c at two rank counts of the same
shape (two ranks per node, groups of four nodes), and compares the
operations a process made on average, and the most one process made, in
each phase, on the shared file system (glbl_dir, meta_dir) and on
node-local storage (ckpt_dir). On a parallel
file system each of them is a request to a metadata server: a count that
grew with the ranks would be one more request per rank for every rank
added, at every checkpoint.

    fs_ops_per_rank.py --counter LIB --bench PROGRAM [--ranks 8,16] [--cases L1:1,L2:1,L3:1,L4:1,L4:2,HL2:1]

Counts, not times: the result does not depend on the machine's load (the
slack below covers what timing moves between processes and phases).
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import scaling  # noqa: E402  (bench/scaling.py: the launches and the counting)
import verdict  # noqa: E402  (the failures and the outcome)

# Per checkpoint on the shared file system (glbl_dir, meta_dir), the most
# metadata operations of all kinds
#  - a process may make on average: at L4 with a file per rank, create it,
#    rename it into place, sync the directory, and retire the previous one
#    (stat, rename into .retired, unlink) (FTI 1.6 makes about 8); at L1-L3
#    only rank 0's commit, under one per process;
#  - the busiest process (rank 0, which commits) may make ten more: the
#    metadata file and its copy, each created, synced, renamed and its
#    directory synced, and the superseded checkpoints' metadata removed.
AVERAGE_BUDGET = {1: 1, 2: 1, 3: 1, 4: 9}
BUSIEST_PROCESS_EXTRA = 10
# Directories a node's ranks make together (the first to arrive creates,
# the others find it) and files removed in the background (counted in the
# phase that is running when the removal runs) move a few operations
# between processes and phases from one launch to the next. The mean over
# the processes (heads included: with heads half of them) absorbs most of
# that; the busiest process is allowed two of each kind.
SLACK = {"mean": 0.5, "max": 2}


PHASES = (("write", "init"), ("write", "checkpoint"), ("restart", "init"), ("restart", "recover"),
          ("restart", "finalize"))
# The phases in which every case makes operations (directories made and
# looked up, files created, renamed and removed): one counted at zero means
# the counter did not count there. A recovery opens and reads what FTI_Init
# found, which makes no metadata operation of the kinds counted.
PHASES_THAT_COUNT = (("write", "init"), ("write", "checkpoint"), ("restart", "init"), ("restart", "finalize"))


def check_counted(name, ranks, record, heads, failures):
    """Every phase that must make operations counted some, and the heads
    (when the case has them) did the levels' work: they counted operations
    while the application checkpointed."""
    for launch, phase in PHASES_THAT_COUNT:
        ops = record["fs_ops"][launch].get(phase, {})
        if sum(v["total"] for where in ops.values() for v in where.values()) == 0:
            failures.append(f"{name} at {ranks} ranks: no operation counted in the {launch} launch's {phase}: "
                            "the counter counted nothing there")
    if heads:
        head = record["heads_record"]["write"]
        work = (head or {}).get("fs_ops", {}).get("checkpoint", 0)
        print(f"{name} at {ranks} ranks: {head['count'] if head else 0} heads made {work} operations while the "
              f"application checkpointed (peak resident {head['peak_rss_mib'] if head else 0:.1f} MiB)")
        if work == 0:
            failures.append(f"{name} at {ranks} ranks: the heads made no file-system operation during the "
                            "checkpoints: the levels' work was not handed to them (inline_l2..l4 = 0)")


def per_process(record, launch, phase, where, statistic):
    ops = record["fs_ops"][launch].get(phase, {}).get(where, {})
    if statistic == "mean":
        return {op: v["total"] / record["world"] for op, v in ops.items()}
    return {op: v[statistic] for op, v in ops.items()}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--counter", required=True, help="libfs_op_counter.so (bench/fs_op_counter.c)")
    p.add_argument("--bench", required=True, help="the scaling_bench program")
    p.add_argument("--ranks", default="8,16")
    p.add_argument("--cases", default="L1:1,L2:1,L3:1,L4:1,L4:2,HL2:1")
    p.add_argument("--checkpoints", type=int, default=6)
    args = p.parse_args(argv)
    small, large = (int(x) for x in args.ranks.split(","))
    failures = []
    with tempfile.TemporaryDirectory(prefix="mlckpt-fs-ops-") as tmp:
        bench = argparse.Namespace(dir=tmp, counter=os.path.abspath(args.counter),
                                   checkpoints=args.checkpoints, vars=1, bytes=1024, timeout=600)
        binary = os.path.abspath(args.bench)
        for case in args.cases.split(","):
            level, io, heads = scaling.parse_case(case)
            name = scaling.case_name(level, io, heads)
            records = {n: scaling.run_case(bench, "mlckpt", binary, n, level, io, heads) for n in (small, large)}
            for n, record in records.items():
                check_counted(name, n, record, heads, failures)
            for launch, phase in PHASES:
                for where in ("shared", "local"):
                    for statistic, who in (("mean", "a process on average"), ("max", "the busiest process")):
                        a = per_process(records[small], launch, phase, where, statistic)
                        b = per_process(records[large], launch, phase, where, statistic)
                        print(f"{name}: {launch} launch, {phase}, {where}, {who}: {sum(a.values()):.3g} at {small} "
                              f"ranks, {sum(b.values()):.3g} at {large} ranks")
                        for op, n in sorted(b.items()):
                            if n > a.get(op, 0) + SLACK[statistic]:
                                failures.append(f"{name}, {launch} launch, {phase}, {where}: {op} by {who} grew "
                                                f"from {a.get(op, 0):.3g} at {small} ranks to {n:.3g} at {large} ranks")
            for statistic, who, budget in (("mean", "a process on average", AVERAGE_BUDGET[level]),
                                           ("max", "the busiest process",
                                            AVERAGE_BUDGET[level] + BUSIEST_PROCESS_EXTRA)):
                ops = sum(per_process(records[large], "write", "checkpoint", "shared", statistic).values())
                per_checkpoint = ops / args.checkpoints
                print(f"{name}: {per_checkpoint:.1f} operations on the shared file system per checkpoint by {who} "
                      f"(budget {budget})")
                if per_checkpoint > budget + SLACK[statistic] / args.checkpoints:
                    failures.append(f"{name}: {per_checkpoint:.1f} operations on the shared file system per "
                                    f"checkpoint by {who}, more than its budget of {budget}")
    return verdict.report("fs_ops_per_rank", failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
