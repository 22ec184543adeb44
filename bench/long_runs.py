"""Long runs (run_bench.py --long-runs): what a run accumulates as its
checkpoints add up and as it protects more variables. With so little data
per variable that only the library's own work is measured, the time of a
checkpoint, the memory a rank holds and its open descriptors should stay
flat over a thousand checkpoints, and a checkpoint's time should grow with
the variables no faster than their number.

Two kinds of run of bench/scaling_bench --trace (the launches, the
file-system counter and the MPI monitoring of bench/scaling.py):
  - checkpoints: --checkpoints checkpoints (default 1,000) of each case,
    every rank's heap in use (malloc), resident set and open descriptors
    sampled after each; then a restart launch, whose selection of the
    newest checkpoint must not depend on how many came before;
  - variables: --vars-sweep variable counts (default 10 to 10,000) of one
    case, --vars-checkpoints checkpoints each (default 100).
Cases are "<levels>:<ckpt_io>", levels being one level or several cycled
through ("L1234:1": L1, L2, L3, L4, L1, ...), "H" in front for a head per
node. With --fti PREFIX the same program built against FTI runs beside.

    python3 bench/run_bench.py --long-runs [--build build] [--ranks 4]
        [--cases L1234:1,L1234:3,L4:2,HL1234:1] [--checkpoints 1000]
        [--vars-case L1234:1] [--vars-sweep 10,100,1000,10000] [--vars-checkpoints 100]
        [--bytes 64] [--fti PREFIX] [--dir DIR] [--out long-runs.json]
"""
import argparse
import json
import os
import shutil
import statistics
import sys

import scaling  # the configuration, the launches and their counts


def parse_case(text):
    """(levels "1,2,3,4", ckpt_io, heads) of "L1234:1" or "HL1234:1"."""
    levels, io = text.split(":")
    heads = levels.startswith("H")
    return ",".join(levels.lstrip("HL")), int(io), heads


def case_name(levels, io, heads):
    return f"L{levels.replace(',', '')} ckpt_io {io}" + (" heads" if heads else "")


def files_below(path):
    return sum(len(files) for _, _, files in os.walk(path))


def run_case(args, impl, binary, levels, io, heads, checkpoints, variables):
    """One write launch with its trace and one restart launch; the work
    directory's files counted between them."""
    workdir = os.path.join(args.dir, f"{impl}-{levels.replace(',', '')}-{io}-{int(heads)}-{checkpoints}-{variables}")
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    config = os.path.join(workdir, "config.fti")
    scaling.write_config(config, workdir, levels, io, heads, args.ranks)
    out = os.path.join(workdir, "launches.jsonl")
    launch = argparse.Namespace(**dict(vars(args), checkpoints=checkpoints, vars=variables))
    write = scaling.run_launch(launch, binary, args.ranks, config, workdir, "write", levels, out, extra=["--trace"],
                               monitored=False)
    kept = {d: files_below(os.path.join(workdir, d)) for d in ("local", "global", "meta")}
    restart = scaling.run_launch(launch, binary, args.ranks, config, workdir, "restart", levels, out, monitored=False)
    shutil.rmtree(workdir, ignore_errors=True)
    if restart["wrong_ranks"] != 0:
        raise SystemExit(f"long runs: {impl} {case_name(levels, io, heads)} recovered wrong data")
    return {"impl": impl, "levels": [int(x) for x in levels.split(",")], "io": io, "heads": heads,
            "world": args.ranks, "ranks": write["ranks"], "checkpoints": checkpoints, "vars": variables,
            "bytes": args.bytes, "init_s": write["init_s"], "checkpoint_s": write["checkpoint_s"],
            "heap_mib": write["heap_mib"], "rss_mib": write["rss_mib"], "descriptors": write["descriptors"],
            "files_kept": kept, "restart_init_s": restart["init_s"], "recover_s": restart["recover_s"],
            "finalize_s": restart["finalize_s"],
            "fs_ops": {"write": write["fs_ops"], "restart": restart["fs_ops"]},
            "heads_record": {"write": write["heads"], "restart": restart["heads"]}}


def summary(record):
    """The figures that say whether anything grew: the median checkpoint of
    the first and the last tenth; the heap's growth per checkpoint and the
    descriptors from the end of the first tenth, or of the second cycle of
    the levels if later (each level's buffers and directories are made at
    its first checkpoint), to the end."""
    n = len(record["checkpoint_s"])
    tenth = max(1, n // 10)
    settled = min(n, max(tenth, 2 * len(record["levels"]))) - 1
    heap = record["heap_mib"]
    return {"first_tenth_s": statistics.median(record["checkpoint_s"][:tenth]),
            "last_tenth_s": statistics.median(record["checkpoint_s"][-tenth:]),
            "heap_growth_bytes_per_checkpoint": (heap[-1] - heap[settled]) * (1 << 20) / max(1, n - 1 - settled),
            "descriptors": [record["descriptors"][settled], record["descriptors"][-1]]}


def main(argv):
    p = argparse.ArgumentParser(prog="run_bench.py --long-runs", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build")
    p.add_argument("--ranks", type=int, default=4)
    p.add_argument("--cases", default="L1234:1,L1234:3,L4:2,HL1234:1")
    p.add_argument("--checkpoints", type=int, default=1000)
    p.add_argument("--vars-case", default="L1234:1")
    p.add_argument("--vars-sweep", default="10,100,1000,10000")
    p.add_argument("--vars-checkpoints", type=int, default=100)
    p.add_argument("--bytes", type=int, default=64)
    p.add_argument("--fti", default=None, metavar="PREFIX", help="also run the program built against FTI")
    p.add_argument("--timeout", type=float, default=3600, help="seconds per launch")
    p.add_argument("--dir", default=None)
    p.add_argument("--out", default="long-runs.json")
    args = p.parse_args(argv)
    impls, machine = scaling.prepare(args, "mlckpt-long-runs-")
    runs = [("checkpoints", c, args.checkpoints, 1) for c in args.cases.split(",") if c]
    runs += [("variables", args.vars_case, args.vars_checkpoints, int(v)) for v in args.vars_sweep.split(",") if v]
    results = []
    for kind, case, checkpoints, variables in runs:
        levels, io, heads = parse_case(case)
        for impl, binary in impls:
            print(f"long runs: {impl} {case_name(levels, io, heads)}, {checkpoints} checkpoints, {variables} variables",
                  file=sys.stderr, flush=True)
            record = run_case(args, impl, binary, levels, io, heads, checkpoints, variables)
            record["kind"] = kind
            record["summary"] = summary(record)
            results.append(record)
            with open(args.out, "w") as f:  # what is measured so far survives an interrupted run
                json.dump({"machine": machine, "results": results}, f, indent=1)
    print(f"results: {args.out}")
