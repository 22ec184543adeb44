"""The scaling bench (run_bench.py --scaling): the control path of
checkpoint and restart from a few ranks to a few hundred, oversubscribed,
with so little data per rank that only the control path is measured.

For each case (level:ckpt_io, "H" in front for heads: one head per node of
two ranks) and rank count, one write launch of bench/scaling_bench (FTI_Init,
--checkpoints checkpoints) and one restart launch (FTI_Init, FTI_Recover,
FTI_Finalize), each under
  - Open MPI's monitoring (pml/coll): the bytes every rank sent and received,
    collectives included, as they crossed the wire;
  - bench/fs_op_counter.c preloaded: the file-system metadata operations on
    the shared file system (glbl_dir, meta_dir) and on node-local storage
    (ckpt_dir), split into FTI_Init, checkpoints, recovery and FTI_Finalize;
and rank 0's record of the slowest rank's time per phase and the peak
resident memory per rank. With --fti PREFIX the same program is built
against FTI (PREFIX/include, PREFIX/lib) and run beside, case for case.

    python3 bench/run_bench.py --scaling [--build build] [--ranks 2,4,8,16,32,64,128,256]
        [--cases L1:1,L2:1,L3:1,L4:1,L4:2,L4:4,HL2:1] [--checkpoints 3] [--vars 1] [--bytes 1024]
        [--fti PREFIX] [--dir DIR] [--out scaling.json]
"""
import argparse
import collections
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import run_bench  # the machine's description, as in the main bench's results

MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
}
PHASES = ("init", "checkpoint", "recover", "finalize")


def parse_case(text):
    """(level, ckpt_io, heads) of "L2:1" or "HL2:1"."""
    level, io = text.split(":")
    heads = level.startswith("H")
    return int(level.lstrip("HL")), int(io), heads


def case_name(level, io, heads):
    return f"L{level} ckpt_io {io}" + (" heads" if heads else "")


def topology(ranks, heads):
    """node_size and group_size for `ranks` ranks: two ranks per node from
    8 ranks (one of them the head with heads), else one; groups of up to four
    nodes, the node count a multiple of the group's."""
    node_size = 2 if heads or ranks >= 8 else 1
    nodes = ranks // node_size
    group = next(g for g in (4, 2, 1) if nodes % g == 0 and nodes >= g)
    return node_size, group


def write_config(path, workdir, level, io, heads, ranks):
    node_size, group = topology(ranks, heads)
    with open(path, "w") as f:
        f.write(f"""[basic]
head = {1 if heads else 0}
node_size = {node_size}
ckpt_dir = {workdir}/local
glbl_dir = {workdir}/global
meta_dir = {workdir}/meta
ckpt_l1 = 0
ckpt_l2 = 0
ckpt_l3 = 0
ckpt_l4 = 0
inline_l2 = {0 if heads else 1}
inline_l3 = {0 if heads else 1}
inline_l4 = {0 if heads else 1}
keep_last_ckpt = {1 if heads else 0}
group_size = {group}
verbosity = 3
ckpt_io = {io}
enable_staging = 0
enable_dcp = 0
dcp_mode = 0
dcp_block_size = 16384
[restart]
failure = 0
exec_id = XXXX
[injection]
rank = 0
number = 0
position = 0
frequency = 0
[advanced]
block_size = 1024
transfer_size = 16
mpi_tag = 2612
local_test = 1
""")


def build_against_fti(args, prefix):
    """scaling_bench built from the same source against FTI's prefix."""
    here = os.path.dirname(os.path.abspath(__file__))
    binary = os.path.join(args.dir, "scaling_bench_fti")
    # An FTI built with HDF5 includes hdf5.h from fti.h.
    hdf5 = subprocess.run(["pkg-config", "--cflags", "hdf5-openmpi"], stdout=subprocess.PIPE, text=True).stdout.split()
    cmd = ["mpicxx", "-std=c++20", "-O2", os.path.join(here, "scaling_bench.cpp"), os.path.join(here, "system_stats.cpp"),
           f"-I{prefix}/include", *hdf5, f"-L{prefix}/lib", f"-Wl,-rpath,{prefix}/lib", "-lfti", "-ldl", "-o", binary]
    subprocess.run(cmd, check=True)
    return binary


def run_launch(args, binary, ranks, config, workdir, phase, level, out, checkpoints=None, extra=(), monitored=True):
    """One launch under the file-system counter and, if `monitored`, Open
    MPI's monitoring (which keeps a few hundred bytes per MPI_File_open:
    left out where the heap is traced); its record, with "traffic" and
    "fs_ops"."""
    checkpoints = checkpoints or args.checkpoints
    counts = os.path.join(workdir, f"counts-{phase}-{checkpoints}")
    monitor = os.path.join(workdir, f"monitor-{phase}-{checkpoints}")
    os.makedirs(counts)
    os.makedirs(monitor)
    monitoring = ["--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
                  "--mca", "pml_monitoring_filename", os.path.join(monitor, "prof")] if monitored else []
    cmd = ["mpiexec", "--oversubscribe", "--bind-to", "none", "-n", str(ranks), *monitoring,
           "-x", f"LD_PRELOAD={args.counter}", "-x", f"MLCKPT_COUNT_DIR={counts}",
           "-x", f"MLCKPT_COUNT_SHARED={workdir}/global:{workdir}/meta",
           "-x", f"MLCKPT_COUNT_LOCAL={workdir}/local",
           binary, config, "--phase", phase, "--level", str(level), "--checkpoints", str(checkpoints),
           "--vars", str(args.vars), "--bytes", str(args.bytes), "--out", out, *extra]
    if phase == "write" and "head = 1" in open(config).read():
        cmd.append("--finalize")
    env = dict(os.environ, **MPI_ENV)
    pml = env.get("OMPI_MCA_pml", "")
    if monitored and pml and not pml.startswith("^") and "monitoring" not in pml.split(","):
        # A point-to-point layer named by the environment (the test suite
        # names ob1) keeps the monitoring layer out unless it is named too.
        env["OMPI_MCA_pml"] = pml + ",monitoring"
    result = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            timeout=args.timeout)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:])
        raise SystemExit(f"scaling: {' '.join(cmd)} failed ({result.returncode})")
    with open(out) as f:
        record = json.loads(f.readlines()[-1])
    entered = ["init", "end"] + (["checkpoint"] if phase == "write" else ["recover", "finalize"])
    if phase == "write" and "--finalize" in cmd:
        entered.append("finalize")
    if "--trace" in extra and checkpoints >= 2:
        entered.append("checkpoint_late")
    processes = counter_records(counts, ranks, entered)
    if monitored:
        heads = "head = 1" in open(config).read()
        record["traffic"] = traffic(monitor, ranks, [1, 0] if heads else [0])
    record["fs_ops"] = fs_ops(processes)
    record["heads"] = heads_of(processes)
    return record


def traffic(monitor, ranks, roots):
    """Bytes each world rank sent and received (point to point and the
    messages of collectives, from Open MPI's monitoring), and the number of
    ranks each sent to: per rank ("per_rank"), and their statistics
    (stats()). `roots` are the world ranks that commit and gather a record
    of every rank: the application's rank 0, and with a head per node (the
    node's first rank) the first head, which commits what the heads did.
    Every rank must have left its record, and the ranks must have sent
    something: a monitoring that recorded nothing is no measurement of zero
    bytes."""
    sent = collections.Counter()
    received = collections.Counter()
    peers = collections.defaultdict(set)
    files = glob.glob(os.path.join(monitor, "prof.*.prof"))
    if len(files) < ranks:
        raise SystemExit(f"scaling: Open MPI's monitoring left {len(files)} records in {monitor} for {ranks} ranks "
                         "(pml_monitoring_enable, pml_monitoring_filename): no measurement")
    for path in files:
        with open(path) as f:
            for line in f:
                parts = line.split("\t")
                if parts[0] in ("E", "I") and len(parts) >= 4:
                    src, dst, nbytes = int(parts[1]), int(parts[2]), int(parts[3].split()[0])
                    sent[src] += nbytes
                    received[dst] += nbytes
                    peers[src].add(dst)
    if sum(sent.values()) == 0:
        raise SystemExit(f"scaling: Open MPI's monitoring recorded no bytes sent by any of {ranks} ranks in {monitor}")
    per_rank = {"sent": [sent.get(r, 0) for r in range(ranks)],
                "received": [received.get(r, 0) for r in range(ranks)],
                # how many ranks a rank sends to (each a connection, with
                # its memory, on a cluster's network)
                "peers": [len(peers.get(r, ())) for r in range(ranks)]}
    out = {name: stats(values, roots) for name, values in per_rank.items()}
    out["per_rank"] = per_rank
    out["roots"] = roots
    return out


def stats(values, roots):
    """The maximum, the median, the most of the committing ranks ("rank0":
    the world ranks `roots`) and the busiest rank's but those ("max_other")
    of per-rank `values`."""
    ordered = sorted(values)
    others = [v for r, v in enumerate(values) if r not in roots] or [0]
    return {"max": ordered[-1], "median": ordered[len(ordered) // 2], "rank0": max(values[r] for r in roots),
            "max_other": max(others)}


def per_checkpoint(single, write, checkpoints):
    """Bytes per checkpoint (sent and received, stats() of the ranks'), from
    a launch of one checkpoint and one of `checkpoints`, rank by rank:
    FTI_Init's traffic cancels out. None with a single checkpoint."""
    if single is None:
        return None
    out = {}
    for d in ("sent", "received"):
        values = [(w - s) / (checkpoints - 1) for w, s in zip(write["traffic"]["per_rank"][d],
                                                              single["traffic"]["per_rank"][d])]
        out[d] = stats(values, write["traffic"]["roots"])
    return out


def per_restart(single, write, restart, checkpoints):
    """Bytes of the restart launch beyond FTI_Init's own (sent and received,
    stats() of the ranks'): FTI_Init's, rank by rank, is the single
    checkpoint's launch less a checkpoint. None with a single checkpoint."""
    if single is None:
        return None
    out = {}
    for d in ("sent", "received"):
        s, w, r = (x["traffic"]["per_rank"][d] for x in (single, write, restart))
        values = [r[i] - (s[i] - (w[i] - s[i]) / (checkpoints - 1)) for i in range(len(r))]
        out[d] = stats(values, restart["traffic"]["roots"])
    return out


def counter_records(counts, world, entered):
    """Each process's record of bench/fs_op_counter.c in `counts`: its role
    (app or follower: a head), the phases it entered or counted in, its
    counts by (phase, where, op), its peak resident bytes and its samples.
    Every one of the `world` processes must have left one that announces the
    counter, and every application process must have entered the phases of
    `entered`: otherwise the counter did not count, and its zeros would pass
    for a flat line."""
    files = sorted(glob.glob(os.path.join(counts, "*.counts")))
    if len(files) != world:
        raise SystemExit(f"scaling: {len(files)} of {world} processes left the counter's record in {counts}: the "
                         "counter (LD_PRELOAD of libfs_op_counter.so) was not loaded in every process")
    processes = []
    for path in files:
        with open(path) as f:
            lines = f.read().splitlines()
        if not lines or not lines[0].startswith("loaded "):
            raise SystemExit(f"scaling: {path} does not start with the counter's announcement (\"loaded PID ROLE\")")
        p = {"role": lines[0].split()[2], "phases": set(), "counts": collections.Counter(), "peak_rss": 0,
             "samples": []}
        for line in lines[1:]:
            parts = line.split()
            if parts[0] == "phase":
                p["phases"].add(parts[1])
            elif parts[0] == "peak_rss_bytes":
                p["peak_rss"] = int(parts[1])
            elif parts[0] == "sample":
                p["samples"].append([int(x) for x in parts[1:]])
            else:
                phase, where, op, n = parts
                p["counts"][(phase, where, op)] += int(n)
        if p["role"] == "app" and not set(entered) <= p["phases"]:
            raise SystemExit(f"scaling: {path}: an application process whose record lacks the phases "
                             f"{sorted(set(entered) - p['phases'])}: the program did not mark them")
        processes.append(p)
    if not any(p["role"] == "app" for p in processes):
        raise SystemExit(f"scaling: no process in {counts} marked a phase: the program did not find the counter")
    return processes


def fs_ops(processes):
    """File-system operations per phase and place: the total over every
    process and the most by one process."""
    out = collections.defaultdict(lambda: collections.defaultdict(dict))
    keys = {k for p in processes for k in p["counts"]}
    for phase, where, op in sorted(keys):
        values = [p["counts"].get((phase, where, op), 0) for p in processes]
        out[phase][where][op] = {"total": sum(values), "max": max(values)}
    return json.loads(json.dumps(out))


def heads_of(processes):
    """What the processes that marked no phase (the heads) did and held:
    their file-system operations per phase (every place and kind), their
    peak resident memory (MiB, the most of them) and the most any held at
    each sample (heap and resident MiB, descriptors). None without heads."""
    heads = [p for p in processes if p["role"] == "follower"]
    if not heads:
        return None
    ops = collections.Counter()
    for p in heads:
        for (phase, _, _), n in p["counts"].items():
            ops[phase] += n
    samples = min(len(p["samples"]) for p in heads)
    most = [[max(p["samples"][i][k] for p in heads) for k in (1, 2, 3)] for i in range(samples)]
    return {"count": len(heads), "fs_ops": dict(ops),
            "peak_rss_mib": max(p["peak_rss"] for p in heads) / (1 << 20),
            "heap_mib": [m[0] / (1 << 20) for m in most], "rss_mib": [m[1] / (1 << 20) for m in most],
            "descriptors": [m[2] for m in most]}


def run_case(args, impl, binary, ranks, level, io, heads):
    workdir = os.path.join(args.dir, f"{impl}-{ranks}-{level}-{io}-{int(heads)}")
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    config = os.path.join(workdir, "config.fti")
    write_config(config, workdir, level, io, heads, ranks)
    out = os.path.join(workdir, "launches.jsonl")
    # A launch of one checkpoint first: what the longer one sends and
    # receives beyond it is what its further checkpoints cost. Its
    # checkpoint and the configuration it updated go before the next.
    single = None
    if args.checkpoints > 1:
        single = run_launch(args, binary, ranks, config, workdir, "write", level, out, 1)
        for d in ("local", "global", "meta"):
            shutil.rmtree(os.path.join(workdir, d), ignore_errors=True)
        write_config(config, workdir, level, io, heads, ranks)
    write = run_launch(args, binary, ranks, config, workdir, "write", level, out)
    restart = run_launch(args, binary, ranks, config, workdir, "restart", level, out)
    shutil.rmtree(workdir, ignore_errors=True)
    if restart["wrong_ranks"] != 0:
        raise SystemExit(f"scaling: {impl} {case_name(level, io, heads)} at {ranks} ranks recovered wrong data")
    return {"impl": impl, "level": level, "io": io, "heads": heads, "world": ranks, "ranks": write["ranks"],
            "checkpoints": args.checkpoints, "vars": args.vars, "bytes": args.bytes,
            "init_s": write["init_s"], "checkpoint_s": statistics.median(write["checkpoint_s"]),
            "restart_init_s": restart["init_s"], "recover_s": restart["recover_s"],
            "finalize_s": restart["finalize_s"],
            "peak_rss_mib": {"write": {k: write[f"peak_rss_mib_{k}"] for k in ("max", "median", "rank0")},
                             "restart": {k: restart[f"peak_rss_mib_{k}"] for k in ("max", "median", "rank0")}},
            "traffic": {"write": write["traffic"], "restart": restart["traffic"],
                        "checkpoint": per_checkpoint(single, write, args.checkpoints),
                        "restart_beyond_init": per_restart(single, write, restart, args.checkpoints)},
            "fs_ops": {"write": write["fs_ops"], "restart": restart["fs_ops"]},
            "heads_record": {"write": write["heads"], "restart": restart["heads"]}}


def prepare(args, prefix):
    """The work directory and the counter in `args`; the programs to run
    ((name, path): mlckpt's, and FTI's built from the same source with
    --fti) and the machine's description."""
    args.dir = os.path.abspath(args.dir or tempfile.mkdtemp(prefix=prefix))
    os.makedirs(args.dir, exist_ok=True)
    args.counter = os.path.abspath(os.path.join(args.build, "bench", "libfs_op_counter.so"))
    if not os.path.isfile(args.counter):
        raise SystemExit(f"scaling: no counter at {args.counter}: build the target fs_op_counter")
    impls = [("mlckpt", os.path.abspath(os.path.join(args.build, "bench", "scaling_bench")))]
    if args.fti:
        impls.append(("fti", build_against_fti(args, os.path.abspath(args.fti))))
    machine = run_bench.machine(args)
    machine["mpi"] = subprocess.run(["mpiexec", "--version"], stdout=subprocess.PIPE, text=True).stdout.splitlines()[0]
    return impls, machine


def main(argv):
    p = argparse.ArgumentParser(prog="run_bench.py --scaling", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build")
    p.add_argument("--ranks", default="2,4,8,16,32,64,128,256")
    p.add_argument("--cases", default="L1:1,L2:1,L3:1,L4:1,L4:2,L4:4,HL2:1")
    p.add_argument("--checkpoints", type=int, default=3)
    p.add_argument("--vars", type=int, default=1)
    p.add_argument("--bytes", type=int, default=1024)
    p.add_argument("--fti", default=None, metavar="PREFIX", help="also run the program built against FTI")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per launch")
    p.add_argument("--dir", default=None)
    p.add_argument("--out", default="scaling.json")
    args = p.parse_args(argv)
    impls, machine = prepare(args, "mlckpt-scaling-")
    results = []
    for ranks in [int(x) for x in args.ranks.split(",")]:
        for level, io, heads in (parse_case(c) for c in args.cases.split(",") if c):
            if level in (2, 3) and topology(ranks, heads)[1] < 2:
                print(f"scaling: {case_name(level, io, heads)} needs two nodes, {ranks} ranks make one",
                      file=sys.stderr, flush=True)
                continue
            for impl, binary in impls:
                print(f"scaling: {impl} {case_name(level, io, heads)}, {ranks} ranks", file=sys.stderr, flush=True)
                results.append(run_case(args, impl, binary, ranks, level, io, heads))
                with open(args.out, "w") as f:  # what is measured so far survives an interrupted run
                    json.dump({"machine": machine, "results": results}, f, indent=1)
    print(f"results: {args.out}")
