#!/usr/bin/env python3
"""What a checkpoint sends and receives over MPI does not grow with the
number of ranks, except at rank 0, which gathers the metadata.

Runs bench/scaling_bench under Open MPI's monitoring (bench/scaling.py) at
two rank counts of the same shape (two ranks per node, groups of four
nodes). The scaling bench writes one checkpoint in one launch and several
in another: the difference, divided by the extra checkpoints, is what one
checkpoint costs, FTI_Init's traffic (MPI's own communicator constructors
exchange a few bytes per rank there) left out; the restart launch's traffic
beyond FTI_Init's (the single checkpoint's launch less its checkpoint) is
what a restart costs. The median rank's bytes received and sent per
checkpoint and per restart may grow by what the collectives' trees add per
doubling of the ranks, far less than a byte count per rank would: the
shared-file modes sending every rank every task's size grew it by 24 bytes
per rank, 576 bytes from 8 to 32 ranks. So may the busiest rank but rank 0,
by what an inner node of the trees forwards: growth on a few ranks does not
move the median.
Rank 0 (and with heads the first head, which commits what the heads did:
"the committing ranks") may receive in proportion to the ranks (their
metadata), within a
budget per rank. And the median rank may send to no more than 2 log2 N + 2
ranks: a collective sending to every rank makes a connection per rank.

    bytes_per_rank.py --counter LIB --bench PROGRAM [--ranks 8,32] [--cases L1:1,L2:1,L3:1,L4:1,L4:2,L4:4,HL2:1]

Counts, not times: the result does not depend on the machine's load.
"""
import argparse
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import scaling  # noqa: E402  (bench/scaling.py: the launches and the counting)
import verdict  # noqa: E402  (the failures and the outcome)

CHECKPOINTS = 5  # of the longer write launch; bench/scaling.py runs one of a single checkpoint too
# Per doubling of the ranks, per checkpoint or restart, for the median rank:
# a few collectives of one or two values (allreduce, barrier) take one more
# step.
GROWTH_PER_DOUBLING = 48
# The same for the busiest rank but rank 0: the root of a subtree of the
# collectives' trees receives one more message per doubling from each
# collective (the largest, MPI-IO's exchange of the ranks' offsets at
# ckpt_io 2, 92 to 124 bytes from 8 to 32 ranks). Growth of 14 bytes per
# rank or more on any rank shows.
BUSIEST_GROWTH_PER_DOUBLING = 160
# The ranks the median rank sends to in a write launch (FTI_Init and the
# checkpoints): the collectives' trees reach log2 N; a collective that
# sends straight to every rank (Open MPI's MPI_Iallgather) reaches N - 1,
# and on a cluster each is a connection with its memory.
def allowed_peers(ranks):
    return 2 * math.log2(ranks) + 2


# Rank 0 gathers each rank's metadata (about 200 bytes at L4 with a file
# per rank, the file's name, size and checksum among them); the first head
# each head's record of its level work (about 250 bytes at L2).
RANK0_BYTES_PER_RANK = 400


def per_checkpoint(record, direction, statistic):
    return record["traffic"]["checkpoint"][direction][statistic]


def restart(record, direction, statistic):
    """What the restart launch sent or received beyond FTI_Init's own
    traffic (bench/scaling.py's per_restart)."""
    return record["traffic"]["restart_beyond_init"][direction][statistic]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--counter", required=True, help="libfs_op_counter.so (bench/fs_op_counter.c)")
    p.add_argument("--bench", required=True, help="the scaling_bench program")
    p.add_argument("--ranks", default="8,32")
    p.add_argument("--cases", default="L1:1,L2:1,L3:1,L4:1,L4:2,L4:4,HL2:1")
    args = p.parse_args(argv)
    small, large = (int(x) for x in args.ranks.split(","))
    allowed_growth = GROWTH_PER_DOUBLING * math.log2(large / small)
    busiest_growth = BUSIEST_GROWTH_PER_DOUBLING * math.log2(large / small)
    failures = []
    with tempfile.TemporaryDirectory(prefix="mlckpt-bytes-") as tmp:
        binary = os.path.abspath(args.bench)
        bench = argparse.Namespace(dir=tmp, counter=os.path.abspath(args.counter),
                                   checkpoints=CHECKPOINTS, vars=1, bytes=1024, timeout=600)
        for case in args.cases.split(","):
            level, io, heads = scaling.parse_case(case)
            name = scaling.case_name(level, io, heads)
            records = {n: scaling.run_case(bench, "mlckpt", binary, n, level, io, heads) for n in (small, large)}
            for direction in ("received", "sent"):
                for statistic, who, allowed in (("median", "the median rank", allowed_growth),
                                                ("max_other", "the busiest rank but the committing ones", busiest_growth)):
                    for what, value in (("per checkpoint", per_checkpoint), ("in a restart", restart)):
                        a = value(records[small], direction, statistic)
                        b = value(records[large], direction, statistic)
                        print(f"{name}: {who} {direction} {a:.0f} bytes {what} at {small} ranks, {b:.0f} at "
                              f"{large} ranks")
                        if b > a + allowed:
                            failures.append(f"{name}: {who} {direction} {a:.0f} bytes {what} at {small} ranks and "
                                            f"{b:.0f} at {large}, more than {allowed:.0f} bytes of growth")
            peers = records[large]["traffic"]["write"]["peers"]["median"]
            print(f"{name}: the median rank sent to {peers} ranks at {large} ranks "
                  f"(at most {allowed_peers(large):.0f})")
            if peers > allowed_peers(large):
                failures.append(f"{name}: the median rank sent to {peers} of {large} ranks, more than "
                                f"{allowed_peers(large):.0f}")
            rank0 = per_checkpoint(records[large], "received", "rank0")
            print(f"{name}: the committing ranks received {rank0:.0f} bytes per checkpoint at {large} ranks "
                  f"(budget {RANK0_BYTES_PER_RANK * large})")
            if rank0 > RANK0_BYTES_PER_RANK * large:
                failures.append(f"{name}: a committing rank received {rank0:.0f} bytes per checkpoint at {large} ranks, more "
                                f"than {RANK0_BYTES_PER_RANK} per rank")
    return verdict.report("bytes_per_rank", failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
