#!/usr/bin/env python3
"""Runs the mlckpt benchmark matrix and prints every figure beside the
machine's limit for the same work, with the ratio and the target.

Each case is one checkpoint launch (a fresh execution taking --runs
checkpoints, with a raw write() + fsync() of the same bytes beside each)
followed by --runs recovery launches with the page cache dropped and --runs
with it warm (each a relaunch, as after a crash), and --runs cold ones with
[advanced] verify_at_init = 0 (the data checked once, while FTI_Recover
reads it) beside the default's (FTI_Init reads and checks every file
whole, as FTI). Results go to a JSON file
that bench/render_performance.py turns into docs/performance.md.

    python3 bench/run_bench.py [--build build] [--ranks 1,4,8] [--mib 64,256]
        [--cases L1:1,L1:3,L2:1,L3:1,L4:1,L4:2,L4:3,L4:4,L4:5,DCP:3,H5S:5] [--runs 5]
        [--recoveries N] [--thread multiple|single] [--time-to-solution SECONDS]
        [--dir DIR] [--out bench-results.json]
    python3 bench/run_bench.py --scaling ...   (bench/scaling.py: the control path against the rank count)
    python3 bench/run_bench.py --long-runs ... (bench/long_runs.py: 1,000 checkpoints, 10,000 variables)
    python3 bench/run_bench.py --compression ... (compression_bench: each codec beside memcpy and the raw write)

Cases BG<L>:<io> complete level L in the background (head = 0,
inline_l<L> = 0), SNAP<L>:<io> take in-memory snapshots (async_snapshot =
1); both with MPI_THREAD_MULTIPLE unless --thread single. --time-to-solution
also times a heat-distribution solver on 2 ranks without checkpoints and
with L4 checkpoints inline, in the background and as snapshots (--cases ""
for that alone).
"""
import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile

DEFAULT_CASES = "L1:1,L1:3,L2:1,L3:1,L4:1,L4:2,L4:3,L4:4,L4:5,DCP:3,H5S:5"
IO_NAMES = {1: "POSIX", 2: "MPI-IO", 3: "FTI-FF", 4: "container", 5: "HDF5"}
# Level 9 is FTI_L4_H5_SINGLE: one HDF5 file of global datasets for all ranks
# ([basic] h5_single_file_enable = 1), recovered by a variate restart
# ([restart] failure = 3). Case "H5S:5".
SINGLE_FILE = 9

# Open MPI as root, more ranks than cores, no ptrace-based single copy.
MPI_ENV = {
    "OMPI_ALLOW_RUN_AS_ROOT": "1",
    "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
    "OMPI_MCA_rmaps_base_oversubscribe": "1",
    "OMPI_MCA_btl_vader_single_copy_mechanism": "none",
}


# Case prefixes of the modes that leave work to each rank's worker thread.
MODES = {"BG": "background", "SNAP": "snapshot"}


def parse_case(text):
    """Level, ckpt_io and mode (None: inline) of a case such as "L4:1",
    "DCP:3", "BG4:1" or "SNAP4:3"."""
    level, io = text.split(":")
    mode = next((m for prefix, m in MODES.items() if level.startswith(prefix)), None)
    if mode:
        return int(level.lstrip("BGSNAP")), int(io), mode
    level = {"DCP": 8, "H5S": SINGLE_FILE}.get(level) or int(level.lstrip("L"))
    return level, int(io), None


def case_name(level, io, mpi_io=None, mode=None, thread=None):
    if level == SINGLE_FILE:
        return f"L4 {IO_NAMES[io]} single file"
    name = ("L4 dCP" if level == 8 else f"L{level}") + f" {IO_NAMES[io]}"
    if mode:
        return name + f" {mode}" + (" (MPI_THREAD_SINGLE)" if thread == "single" else "")
    return name + " (ROMIO)" if io == 2 and mpi_io == "ROMIO" else name


def result_name(r):
    return case_name(r["level"], r["io"], r.get("mpi_io"), r.get("mode"), r.get("thread"))


def mode_options(mode, thread):
    """mlckpt_bench's options for a mode (None: inline) and thread level."""
    if not mode:
        return []
    return [f"--{mode}"] + (["--thread-multiple"] if thread == "multiple" else [])


def mpi_io_component():
    """The MPI-IO component of Open MPI the launches use: ROMIO when the
    environment selects it (OMPI_MCA_io=romio321), else the default, OMPIO."""
    return "ROMIO" if "romio" in os.environ.get("OMPI_MCA_io", "") else "OMPIO"


def mpiexec(args, ranks, program, *options):
    # Unbound: Open MPI binds each of one or two ranks to a single core by
    # default, where the library's worker threads (hashing beside the writes)
    # would share it while the other core idles.
    cmd = ["mpiexec", "--oversubscribe", "--bind-to", "none", "-n", str(ranks),
           os.path.join(args.build, "bench", program), *options]
    env = dict(os.environ, **MPI_ENV)
    result = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout)
        raise SystemExit(f"run_bench: {' '.join(cmd)} failed ({result.returncode})")


def launch(args, ranks, phase, level, io, mib, workdir, out, extra=()):
    mpiexec(args, ranks, "mlckpt_bench", "--phase", phase, "--level", str(level), "--io", str(io), "--mib", str(mib),
            "--runs", str(args.runs), "--dir", workdir, "--out", out, *extra)


def paired(numerators, denominators):
    """The median of numerator / denominator over pairs measured together."""
    return statistics.median(n / d for n, d in zip(numerators, denominators))


def run_case(args, ranks, mib, level, io, mode=None):
    workdir = os.path.join(args.dir, f"case-{ranks}-{mib}-{level}-{io}")
    shutil.rmtree(workdir, ignore_errors=True)
    out = os.path.join(args.dir, "launches.jsonl")
    if os.path.exists(out):
        os.remove(out)
    extra = mode_options(mode, args.thread)
    launch(args, ranks, "checkpoint", level, io, mib, workdir, out, extra)
    # Cold restarts with FTI's integrity check at FTI_Init (verify_at_init
    # = 1, the default) and, in turn with them, with the data checked once
    # while FTI_Recover reads it (0): the cost of settling it at FTI_Init.
    # A restart from the global file reads no per-rank checkpoint.
    single_read_too = level != SINGLE_FILE
    for _ in range(args.recoveries):
        launch(args, ranks, "recover", level, io, mib, workdir, out, ["--cold", *extra])
        if single_read_too:
            launch(args, ranks, "recover", level, io, mib, workdir, out, ["--cold", "--verify-at-init", "0", *extra])
    for _ in range(args.recoveries):
        launch(args, ranks, "recover", level, io, mib, workdir, out, extra)
    shutil.rmtree(workdir, ignore_errors=True)
    with open(out) as f:
        launches = [json.loads(line) for line in f]
    ckpt = launches[0]
    single_read = [l for l in launches[1:] if l["cold"] == "yes" and l.get("verify_at_init") == 0]
    cold = [l for l in launches[1:] if l["cold"] == "yes" and l.get("verify_at_init", 1) == 1]
    warm = [l for l in launches[1:] if l["cold"] == "no"]
    med = statistics.median
    result = {
        "load_average": os.getloadavg()[0],  # other work on the machine, at the end of the case's launches
        "level": level, "io": io, "ranks": ranks, "mib": mib, "runs": args.runs,
        "protected_bytes": ranks * mib * 2**20,
        "checkpoint_s": med(ckpt["checkpoint_s"]),
        "raw_write_s": med(ckpt["raw_write_s"]),
        "bytes_written": med(ckpt["bytes_written"]),
        "files": ckpt["files"],
        "rss_extra_bytes": max([ckpt["rss_extra_bytes"]] + [l["rss_extra_bytes"] for l in launches[1:]]),
        "memcpy_s": ckpt["memcpy_s"], "md5_s": ckpt["md5_s"], "mpi_ring_s": ckpt["mpi_ring_s"],
        "recover_cold_s": med(l["recover_s"] for l in cold),
        "init_cold_s": med(l["init_s"] for l in cold),
        "raw_read_cold_s": med(l["raw_read_s"] for l in cold),
        "recover_warm_s": med(l["recover_s"] for l in warm),
        "raw_read_warm_s": med(l["raw_read_s"] for l in warm),
        "all_checkpoint_s": ckpt["checkpoint_s"],
    }
    # Each ratio is the median of the ratios of pairs measured back to back
    # (a checkpoint and the raw write before it, a recovery and the raw read
    # of its launch), not the ratio of two medians: this disk's speed drifts
    # by a factor of two or three between runs, and a pair sees one speed.
    result["checkpoint_vs_raw"] = paired(ckpt["raw_write_s"], ckpt["checkpoint_s"])
    result["recover_vs_raw"] = paired([l["raw_read_s"] for l in cold], [l["recover_s"] for l in cold])
    if single_read:
        result["recover_cold_single_read_s"] = med(l["recover_s"] for l in single_read)
        result["init_cold_single_read_s"] = med(l["init_s"] for l in single_read)
        result["recover_single_read_vs_raw"] = paired([l["raw_read_s"] for l in single_read],
                                                      [l["recover_s"] for l in single_read])
    if "raw_new_file_write_s" in ckpt:
        result["checkpoint_vs_raw_new_file"] = paired(ckpt["raw_new_file_write_s"], ckpt["checkpoint_s"])
    if "md5_runs_s" in ckpt:  # FTI-FF: writing and hashing overlap, the slower of the two is the limit
        limit = [max(w, m) for w, m in zip(ckpt["raw_write_s"], ckpt["md5_runs_s"])]
        result["checkpoint_vs_limit"] = paired(limit, ckpt["checkpoint_s"])
    if all("md5_s" in l for l in cold) and cold:
        result["md5_recover_s"] = med(l["md5_s"] for l in cold)
        result["recover_vs_limit"] = paired([max(l["raw_read_s"], l["md5_s"]) for l in cold],
                                            [l["recover_s"] for l in cold])
    if "l1_checkpoint_s" in ckpt:
        result["l1_checkpoint_s"] = med(ckpt["l1_checkpoint_s"])
        result["vs_l1"] = paired(ckpt["checkpoint_s"], ckpt["l1_checkpoint_s"])
    if "memcpy_runs_s" in ckpt:
        result["memcpy_runs_s"] = med(ckpt["memcpy_runs_s"])
        result["vs_memcpy"] = paired(ckpt["checkpoint_s"], ckpt["memcpy_runs_s"])
    if mode:
        result["mode"], result["thread"] = mode, ckpt["thread"]
    if isinstance(ckpt.get("isal_raw_s"), list):
        result["encode_vs_raw"] = paired(ckpt["isal_raw_s"], ckpt["isal_library_s"])
    if io == 2:
        result["mpi_io"] = mpi_io_component()
    for key in ("isal_raw_s", "isal_library_s", "group_size", "full_l4_s", "changed_percent", "checkpoint_cpu_s",
                "checkpoint_stolen_s", "checkpoint_minor_faults", "raw_dcp_crc_s", "raw_dcp_write_s", "cpus_per_rank",
                "raw_shared_write_s", "raw_per_rank_write_s", "raw_new_file_write_s"):
        if key in ckpt:
            result[key] = med(ckpt[key]) if isinstance(ckpt[key], list) else ckpt[key]
    for key in ("cpu_s", "stolen_s", "minor_faults"):
        if all(f"recover_{key}" in l for l in cold):
            result[f"recover_cold_{key}"] = med(l[f"recover_{key}"] for l in cold)
    return result


# The time to solution: a heat-distribution solver on 2 ranks with this much
# grid per rank, an L4 checkpoint about every TTS_INTERVAL_S seconds.
TTS_MODES = ("inline", "background", "snapshot")
TTS_RANKS, TTS_MIB, TTS_INTERVAL_S = 2, 32, 2.5


def tts_name(t):
    thread = " (MPI_THREAD_SINGLE)" if t["thread"] == "single" else ""
    return f"time to solution, L4 POSIX {t['mode']}{thread}, {t['ranks']} ranks x {t['mib']} MiB"


def time_to_solution(args):
    """The solver's time with each mode's checkpoints and without any, both
    in the same launch (the loop's speed differs between launches by more
    than what is measured); the modes are launched in turn in each of
    --tts-runs rounds, the loop without checkpoints first in even rounds and
    last in odd ones. Each mode's ratio is the median over the rounds of its
    time / the time without checkpoints of the same launch."""
    out = os.path.join(args.dir, "tts.jsonl")
    thread = ["--thread-multiple"] if args.thread == "multiple" else []

    def solve(mode, iterations, every, baseline="first"):
        if os.path.exists(out):
            os.remove(out)
        workdir = os.path.join(args.dir, f"tts-{mode}")
        mpiexec(args, TTS_RANKS, "time_to_solution", "--mode", mode, "--mib", str(TTS_MIB), "--iterations",
                str(iterations), "--every", str(every), "--baseline", baseline, "--dir", workdir, "--out", out,
                *thread)
        shutil.rmtree(workdir, ignore_errors=True)
        with open(out) as f:
            return json.loads(f.readline())

    # The iterations that take the wanted time and interval on this machine.
    probe = 20
    per_iteration = solve("none", probe, probe)["seconds"] / probe
    iterations = max(2, round(args.time_to_solution / per_iteration))
    every = max(1, round(TTS_INTERVAL_S / per_iteration))
    runs = {mode: [] for mode in TTS_MODES}
    for round_ in range(args.tts_runs):
        baseline = "first" if round_ % 2 == 0 else "last"
        for mode in TTS_MODES:
            print(f"run_bench: time to solution, {mode} (without checkpoints {baseline})", file=sys.stderr,
                  flush=True)
            runs[mode].append(solve(mode, iterations, every, baseline))
    if len({r["checksum"] for rounds in runs.values() for r in rounds}) != 1:
        raise SystemExit("run_bench: the solver's result differs between modes")
    med = statistics.median
    return [{"mode": mode, "thread": args.thread, "ranks": TTS_RANKS, "mib": TTS_MIB, "iterations": iterations,
             "every": every, "checkpoints": runs[mode][0]["checkpoints"],
             "seconds": med(r["seconds"] for r in runs[mode]), "none_s": med(r["none_s"] for r in runs[mode]),
             "vs_none": paired([r["seconds"] for r in runs[mode]], [r["none_s"] for r in runs[mode]]),
             "baseline": "same launch",
             "median_blocking_s": med(r["median_blocking_s"] for r in runs[mode]),
             "all_seconds": [r["seconds"] for r in runs[mode]], "all_none_s": [r["none_s"] for r in runs[mode]],
             "load_average": os.getloadavg()[0]} for mode in TTS_MODES]


def tts_targets(tts):
    out = []
    for t in tts:
        if t["mode"] == "inline":
            out.append((tts_name(t), "(for comparison, not a target) time with L4 inline, as a multiple of the time "
                        "without checkpoints", t["vs_none"], None))
        else:
            out.append((tts_name(t), "time to solution <= 1.05 x without checkpoints", t["vs_none"],
                        1.05 / t["vs_none"]))
    return out


VIRTIO_BALLOON_F_REPORTING = 5  # feature bit: the guest reports free pages to the host


def free_page_reporting():
    """Whether a virtio balloon driver hands free memory back to the host.

    The host then takes those pages back, and the first write to one costs
    a fault in the host: page-cache writes into new files pay it.
    """
    driver = "/sys/bus/virtio/drivers/virtio_balloon"
    if not os.path.isdir(driver):
        return "no"
    for name in os.listdir(driver):
        try:
            with open(os.path.join(driver, name, "features")) as f:
                if f.read().strip()[VIRTIO_BALLOON_F_REPORTING:][:1] == "1":
                    return "yes"
        except OSError:
            continue
    return "no"


def machine(args):
    info = {"cores": os.cpu_count(), "kernel": platform.release(), "free_page_reporting": free_page_reporting()}
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu"] = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
        with open("/proc/meminfo") as f:
            info["memory_gib"] = round(int(f.readline().split()[1]) / 2**20, 1)
        df = subprocess.run(["df", "-T", args.dir], stdout=subprocess.PIPE, text=True).stdout.splitlines()[-1].split()
        info["file_system"] = f"{df[1]} on {df[0]}"
    except (OSError, StopIteration, IndexError):
        pass
    return info


def cores_share(r, what, seconds_key, cores):
    """The share of the cores' time a checkpoint or recovery (`what`:
    "checkpoint" or "recover_cold") used, and the share the host took
    (steal); None in results from before the bench measured them."""
    cpu, stolen = f"{what}_cpu_s", f"{what}_stolen_s"
    if what == "checkpoint" and r.get("mode"):
        return None  # its CPU time includes the work left to the background, after the call returned
    if cpu not in r or stolen not in r or not cores:
        return None
    wall = r[seconds_key] * cores
    return r[cpu] / wall, r[stolen] / wall


def checkpoint_ratio(r):
    """Raw durable write / checkpoint: paired, or (results from before the
    bench paired them) the ratio of the medians."""
    return r.get("checkpoint_vs_raw", r["raw_write_s"] / r["checkpoint_s"])


def recover_ratio(r):
    """Raw read + CRC-32 / recovery, cold, as checkpoint_ratio."""
    return r.get("recover_vs_raw", r["raw_read_cold_s"] / r["recover_cold_s"])


def targets(results, cores):
    """Every target of the performance issue with its ratio (>= 1.0 meets it),
    and beside some, for information, the measurement that explains them."""
    out = []
    by = {(r["level"], r["io"], r["ranks"], r["mib"]): r for r in results if not r.get("mode")}
    for r in results:
        where = f"{result_name(r)}, {r['ranks']} ranks x {r['mib']} MiB"
        mode = r.get("mode")
        if r["level"] == SINGLE_FILE:
            # raw_write_s / raw_read_s are the shared file's, written and read with collective MPI-IO
            ratio = checkpoint_ratio(r)
            out.append((where, "checkpoint >= 0.8 x raw shared-file write (collective MPI-IO + MPI_File_sync)",
                        ratio, ratio / 0.8))
            if "raw_per_rank_write_s" in r:
                out.append((where, "(for information) raw shared-file write (MPI-IO) as a multiple of the raw "
                            "write() + fsync() to a file per rank", r["raw_write_s"] / r["raw_per_rank_write_s"],
                            None))
                out.append((where, "(for comparison, not the target) checkpoint vs the raw write to a file per rank",
                            r["raw_per_rank_write_s"] / r["checkpoint_s"], None))
        if mode == "background":
            # The checkpoint is written and committed at L1 before the call
            # returns; the rest of the level is the worker's.
            ratio = r["vs_l1"]
            out.append((where, "blocking time <= 1.1 x an L1 checkpoint of the same data", ratio, 1.1 / ratio))
        if mode == "snapshot":
            ratio = r["vs_memcpy"]
            out.append((where, "blocking time <= 2 x raw memcpy of the same bytes", ratio, 2 / ratio))
        if r["level"] in (1, 4) and r["io"] != 3 and not mode:
            ratio = checkpoint_ratio(r)
            out.append((where, "checkpoint >= 0.8 x raw durable write", ratio, ratio / 0.8))
            if "raw_new_file_write_s" in r:
                out.append((where, "(for information) raw durable write into a new file per rank (the previous one "
                            "removed as the library removes its retired checkpoint), as a multiple of the raw write",
                            r["raw_new_file_write_s"] / r["raw_write_s"], None))
                out.append((where, "(for comparison, not the target) checkpoint vs that new-file write",
                            r.get("checkpoint_vs_raw_new_file", r["raw_new_file_write_s"] / r["checkpoint_s"]), None))
            if "raw_shared_write_s" in r:
                shared = r["raw_shared_write_s"]
                out.append((where, "(for information) raw durable write of the same bytes into one shared file, "
                            "as a multiple of the raw write to a file per rank", shared / r["raw_write_s"], None))
                out.append((where, "(for comparison, not the target) checkpoint vs that shared-file write",
                            shared / r["checkpoint_s"], None))
        if r["level"] in (1, 4) and r["io"] == 3 and not mode:
            # the slower of writing and hashing the same bytes
            ratio = r.get("checkpoint_vs_limit", max(r["raw_write_s"], r["md5_s"]) / r["checkpoint_s"])
            out.append((where, "checkpoint >= 0.8 x min(raw durable write, MD5)", ratio, ratio / 0.8))
            busy = cores_share(r, "checkpoint", "checkpoint_s", cores)
            if busy:
                out.append((where, f"(for information) share of the {cores} cores' time the checkpoint used or "
                            "the host took (steal)", sum(busy), None))
        if r["level"] in (2, 3) and not mode:
            # An L1 checkpoint of the same data in the same launch; results
            # from before the bench took one compare with the L1 case's launch.
            l1 = by.get((1, r["io"], r["ranks"], r["mib"]))
            ratio = r.get("vs_l1", r["checkpoint_s"] / l1["checkpoint_s"] if l1 else None)
            if ratio:
                bound = 2.2 if r["level"] == 2 else 2.5
                out.append((where, f"time <= {bound} x L1 time", ratio, bound / ratio))
        if r["level"] == 3 and "isal_raw_s" in r:
            ratio = r.get("encode_vs_raw", r["isal_raw_s"] / r["isal_library_s"])
            out.append((where, "encoding >= 0.8 x raw ISA-L", ratio, ratio / 0.8))
        ratio = recover_ratio(r)
        if r["io"] == 3 and r["level"] != 8:
            # FTI-FF's checksum is the MD5 of each chunk (dCP files: CRC-32s of blocks), so
            # the limit is reading and hashing with MD5, overlapped: the slower of the two.
            limit = r.get("recover_vs_limit", max(r["raw_read_cold_s"], r["md5_s"]) / r["recover_cold_s"])
            out.append((where, "recovery (cold) >= 0.8 x max(raw read, MD5)", limit, limit / 0.8))
            out.append((where, "(for comparison, not the target) recovery vs raw read + CRC", ratio, None))
            busy = cores_share(r, "recover_cold", "recover_cold_s", cores)
            if busy:
                out.append((where, f"(for information) share of the {cores} cores' time the recovery used or "
                            "the host took (steal)", sum(busy), None))
        elif r["level"] == SINGLE_FILE:
            out.append((where, "recovery (cold) >= 0.8 x raw shared-file read (collective MPI-IO) + CRC", ratio,
                        ratio / 0.8))
        else:
            out.append((where, "recovery (cold) >= 0.8 x raw read + CRC", ratio, ratio / 0.8))
        if r["level"] == 8:
            ratio = r["checkpoint_s"] / r["full_l4_s"]
            out.append((where, f"dCP {r['changed_percent']:g}% changed <= 0.1 x full L4", ratio, 0.1 / ratio))
            if "raw_dcp_crc_s" in r:
                floor = r["raw_dcp_crc_s"] + r["raw_dcp_write_s"]
                out.append((where, "(for information) raw CRC-32 of every block + in-place write of the changed "
                            "blocks + fsync, as a multiple of full L4", floor / r["full_l4_s"], None))
                out.append((where, "(for comparison) dCP vs that raw work", floor / r["checkpoint_s"], None))
        budget = 64 * 2**20 + 4 * 2**20  # 64 MiB + a few block_size (1 MiB) buffers
        target = "peak RSS beyond the data <= 64 MiB + 4 x block_size"
        if mode == "snapshot":  # the bench sets async_snapshot_mb to the data's size
            budget = r["mib"] * 2**20 + 64 * 2**20
            target = "peak RSS beyond the data <= the snapshot's budget (async_snapshot_mb, the data's size) + 64 MiB"
        extra = r["rss_extra_bytes"]
        out.append((where, target, extra / 2**20, budget / max(extra, 1)))
    return out


def print_table(results):
    print(f"{'case':<32}{'ranks':>6}{'MiB':>6}{'files':>7}{'ckpt s':>9}{'GB/s':>7}{'raw wr s':>10}{'ratio':>7}"
          f"{'rec cold s':>12}{'raw rd s':>10}{'ratio':>7}{'rec warm s':>12}{'RSS+ MiB':>10}{'1-read s':>10}")
    for r in results:
        gb = r["protected_bytes"] / 1e9
        print(f"{result_name(r):<32}{r['ranks']:>6}{r['mib']:>6}{int(r['files']):>7}"
              f"{r['checkpoint_s']:>9.3f}{gb / r['checkpoint_s']:>7.2f}{r['raw_write_s']:>10.3f}"
              f"{checkpoint_ratio(r):>7.2f}{r['recover_cold_s']:>12.3f}{r['raw_read_cold_s']:>10.3f}"
              f"{recover_ratio(r):>7.2f}{r['recover_warm_s']:>12.3f}"
              f"{r['rss_extra_bytes'] / 2**20:>10.1f}{r.get('recover_cold_single_read_s', float('nan')):>10.3f}")


def compression(argv):
    """run_bench.py --compression [--build B] [--dir D] [--mib N] [--out F]: one
    run of compression_bench, its JSON kept in F."""
    p = argparse.ArgumentParser(prog="run_bench.py --compression")
    p.add_argument("--build", default="build")
    p.add_argument("--dir", default=None, help="where files go (default: a new temporary folder)")
    p.add_argument("--mib", default="64")
    p.add_argument("--repeat", default="3")
    p.add_argument("--out", default="compression-results.json")
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=a.dir) as work:
        out = subprocess.run([os.path.join(a.build, "bench", "compression_bench"), "--dir", work, "--mib", a.mib,
                              "--repeat", a.repeat], check=True, capture_output=True, text=True).stdout
    with open(a.out, "w") as f:
        f.write(out)
    print(f"run_bench: wrote {a.out}")


def main():
    if "--scaling" in sys.argv[1:]:  # the control path against the rank count: bench/scaling.py
        import scaling
        scaling.main([a for a in sys.argv[1:] if a != "--scaling"])
        return
    if "--compression" in sys.argv[1:]:  # each codec against memcpy and the raw write: compression_bench
        compression([a for a in sys.argv[1:] if a != "--compression"])
        return
    if "--long-runs" in sys.argv[1:]:  # what accumulates over checkpoints and variables: bench/long_runs.py
        import long_runs
        long_runs.main([a for a in sys.argv[1:] if a != "--long-runs"])
        return
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build")
    p.add_argument("--ranks", default="1,4,8")
    p.add_argument("--mib", default="64,256")
    p.add_argument("--cases", default=DEFAULT_CASES)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--recoveries", type=int, default=None,
                   help="recovery launches per case, cold and warm each (default: --runs)")
    p.add_argument("--thread", choices=("multiple", "single"), default="multiple",
                   help="the MPI thread level of the BG and SNAP cases and of the time to solution")
    p.add_argument("--time-to-solution", type=float, default=0, metavar="SECONDS",
                   help="also time the solver, for about SECONDS per launch")
    p.add_argument("--tts-runs", type=int, default=2, help="rounds of the time-to-solution launches")
    p.add_argument("--dir", default=None, help="where checkpoints go (default: a new temporary folder)")
    p.add_argument("--out", default="bench-results.json")
    args = p.parse_args()
    args.dir = args.dir or tempfile.mkdtemp(prefix="mlckpt-bench-")
    args.recoveries = args.runs if args.recoveries is None else args.recoveries
    os.makedirs(args.dir, exist_ok=True)
    results = []
    for ranks in [int(x) for x in args.ranks.split(",")]:
        for mib in [int(x) for x in args.mib.split(",")]:
            for level, io, mode in (parse_case(c) for c in args.cases.split(",") if c):
                if level in (2, 3) and ranks < 2:
                    continue  # partner copies and parity need at least two nodes
                name = case_name(level, io, mpi_io_component(), mode, args.thread)
                print(f"run_bench: {name}, {ranks} ranks x {mib} MiB", file=sys.stderr, flush=True)
                results.append(run_case(args, ranks, mib, level, io, mode))
    tts = time_to_solution(args) if args.time_to_solution > 0 else []
    report = {"machine": machine(args), "runs": args.runs, "results": results, "time_to_solution": tts,
              "targets": [{"case": c, "target": t, "value": v, "met": None if m is None else m >= 1.0}
                          for c, t, v, m in targets(results, os.cpu_count()) + tts_targets(tts)]}
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)
    print_table(results)
    for t in tts:
        print(f"{tts_name(t)}: {t['seconds']:.2f} s, without checkpoints {t['none_s']:.2f} s, "
              f"{t['checkpoints']} checkpoints blocking {t['median_blocking_s']:.3f} s each")
    print()
    for t in report["targets"]:
        c, v, m = t["case"], t["value"], t["met"]
        verdict = "info  " if m is None else "met   " if m else "MISSED"
        print(f"{verdict} {c}: {t['target']}: {v:.2f}")
    print(f"\nresults: {args.out}")


if __name__ == "__main__":
    main()
