#!/usr/bin/env python3
"""What a checkpoint sends and receives over MPI does not grow with the
number of ranks, except at rank 0, which gathers the metadata.

Runs bench/scaling_bench under Open MPI's monitoring (bench/scaling.py) at
two rank counts of the same shape (two ranks per node, groups of four
nodes). The scaling bench writes one checkpoint in one launch and several
in another: the difference, divided by the extra checkpoints, is what one
checkpoint costs, FTI_Init's traffic (MPI's own communicator constructors
exchange a few bytes per rank there) left out. The median
rank's bytes received and sent per checkpoint may grow by what the
collectives' trees add per doubling of the ranks, far less than a byte
count per rank would: the shared-file modes sending every rank every
task's size grew it by 24 bytes per rank, 576 bytes from 8 to 32 ranks.
Rank 0 may receive in proportion to the ranks (its metadata), within a
budget per rank. And the median rank may send to no more than 2 log2 N + 2
ranks: a collective sending to every rank makes a connection per rank.

    bytes_per_rank.py BUILD_DIR [--ranks 8,32] [--cases L1:1,L2:1,L3:1,L4:1,L4:2,L4:4,HL2:1]

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
# Per doubling of the ranks, per checkpoint, for the median rank: a few
# collectives of one or two values (allreduce, barrier) take one more step.
GROWTH_PER_DOUBLING = 48
# The ranks the median rank sends to in a write launch (FTI_Init and the
# checkpoints): the collectives' trees reach log2 N; a collective that
# sends straight to every rank (Open MPI's MPI_Iallgather) reaches N - 1,
# and on a cluster each is a connection with its memory.
def allowed_peers(ranks):
    return 2 * math.log2(ranks) + 2


# Rank 0 gathers each rank's metadata (about 200 bytes at L4 with a file
# per rank, the file's name, size and checksum among them).
RANK0_BYTES_PER_RANK = 400


def per_checkpoint(record, direction, statistic):
    return record["traffic"]["checkpoint"][direction][statistic]


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("build")
    p.add_argument("--ranks", default="8,32")
    p.add_argument("--cases", default="L1:1,L2:1,L3:1,L4:1,L4:2,L4:4,HL2:1")
    args = p.parse_args(argv)
    small, large = (int(x) for x in args.ranks.split(","))
    allowed_growth = GROWTH_PER_DOUBLING * math.log2(large / small)
    failures = []
    with tempfile.TemporaryDirectory(prefix="mlckpt-bytes-") as tmp:
        binary = os.path.join(args.build, "bench", "scaling_bench")
        bench = argparse.Namespace(dir=tmp, counter=os.path.join(args.build, "bench", "libfs_op_counter.so"),
                                   checkpoints=CHECKPOINTS, vars=1, bytes=1024, timeout=600)
        for case in args.cases.split(","):
            level, io, heads = scaling.parse_case(case)
            name = scaling.case_name(level, io, heads)
            records = {n: scaling.run_case(bench, "mlckpt", binary, n, level, io, heads) for n in (small, large)}
            for direction in ("received", "sent"):
                a = per_checkpoint(records[small], direction, "median")
                b = per_checkpoint(records[large], direction, "median")
                print(f"{name}: the median rank {direction} {a:.0f} bytes per checkpoint at {small} ranks, "
                      f"{b:.0f} at {large} ranks")
                if b > a + allowed_growth:
                    failures.append(f"{name}: the median rank {direction} {a:.0f} bytes per checkpoint at {small} "
                                    f"ranks and {b:.0f} at {large}, more than {allowed_growth:.0f} bytes of growth")
            peers = records[large]["traffic"]["write"]["peers"]["median"]
            print(f"{name}: the median rank sent to {peers} ranks at {large} ranks "
                  f"(at most {allowed_peers(large):.0f})")
            if peers > allowed_peers(large):
                failures.append(f"{name}: the median rank sent to {peers} of {large} ranks, more than "
                                f"{allowed_peers(large):.0f}")
            rank0 = per_checkpoint(records[large], "received", "rank0")
            print(f"{name}: rank 0 received {rank0:.0f} bytes per checkpoint at {large} ranks "
                  f"(budget {RANK0_BYTES_PER_RANK * large})")
            if rank0 > RANK0_BYTES_PER_RANK * large:
                failures.append(f"{name}: rank 0 received {rank0:.0f} bytes per checkpoint at {large} ranks, more "
                                f"than {RANK0_BYTES_PER_RANK} per rank")
    return verdict.report("bytes_per_rank", failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
