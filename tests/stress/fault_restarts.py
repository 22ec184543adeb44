#!/usr/bin/env python3
"""Fault restarts under CPU load, many times, with every outcome counted.

Each trial runs the stress application (mlckpt_stress_app, built with the
tests) with checkpoints until one rank kills itself, damages the files as
the trial's fault says, relaunches the same command and classifies how the
restart ended:

  RECOVERED      restarted, and the data at the end is right bit for bit
  CLEAN-FAILURE  the restart found nothing to recover (FTI_NREC, a message,
                 exit code 3) where the fault may leave nothing: L4 and L4
                 differential checkpoints with a damaged data file
  LOST           the same where the level must survive the fault (failure)
  WRONG-DATA     the data at the end differs (failure)
  NO-RESTART     the relaunch started afresh (failure)
  ERROR          a library call failed with a message (failure)
  CRASH          a rank died, or the launch ended otherwise (failure)
  HANG           a launch reached --timeout: the stacks of all its
                 processes are saved in the trial's directory (failure)

The first launch is classified too: it must end by the announced kill.
The trials go round the matrix (configuration x fault x rank count) in an
order drawn from --seed; more ranks than cores, and a busy loop per core
runs throughout. Exit code 1 when any trial failed.

  python3 tests/stress/fault_restarts.py --restarts 500 [--build build]
          [--out DIR] [--seed N] [--timeout 300] [--ranks 4,8] [--only REGEX]
"""
import argparse
import os
import platform
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SUPPORT = REPO / "tests" / "support"

# Configurations: level of the checkpoints, ckpt_io, head ranks. Below L4,
# every fourth checkpoint (the 2nd, 6th, ...) is an L4 one to fall back to.
CONFIGS = {
    "l1": dict(level=1, io=1, heads=False, backstop=True),
    "l2": dict(level=2, io=1, heads=False, backstop=True),
    "l3": dict(level=3, io=1, heads=False, backstop=True),
    "l2-ftiff": dict(level=2, io=3, heads=False, backstop=True),
    "l4": dict(level=4, io=1, heads=False, backstop=False),
    "l4-mpiio": dict(level=4, io=2, heads=False, backstop=False),
    "l4-ftiff": dict(level=4, io=3, heads=False, backstop=False),
    "l4-container": dict(level=4, io=4, heads=False, backstop=False),
    "dcp": dict(level=8, io=1, heads=False, backstop=False),
    "l2-heads": dict(level=2, io=1, heads=True, backstop=True),
    "l3-heads": dict(level=3, io=1, heads=True, backstop=True),
    "l4-heads": dict(level=4, io=1, heads=True, backstop=False),
    "l4-heads-mpiio": dict(level=4, io=2, heads=True, backstop=False),
    "l4-heads-container": dict(level=4, io=4, heads=True, backstop=False),
}

FAULTS = {
    "none": "nothing damaged: the kill alone",
    "node": "one simulated node's whole local directory deleted",
    "truncate": "one data file of the newest checkpoint cut to half",
    "flip-data": "16 bytes inverted in the middle of one data file of the newest checkpoint",
    "meta": "the first 4 KiB of the newest checkpoint's metadata zeroed",
    "flip-redundancy": "16 bytes inverted in one partner copy or parity file (L2, L3)",
    "wipe-local": "every file of every node's local directory deleted",
}

FAILURES = ("LOST", "WRONG-DATA", "NO-RESTART", "ERROR", "CRASH", "HANG")
OUTCOMES = ("RECOVERED", "CLEAN-FAILURE") + FAILURES

ITERATIONS = 30
EVERY = 3
FIRST_KILL = 3 * EVERY  # after checkpoint 3: the L4 backstop (checkpoint 2) is complete, also with heads


def applies(config, fault):
    return fault != "flip-redundancy" or config["level"] in (2, 3)


def may_fail_cleanly(config, fault):
    """Whether the fault may leave nothing recoverable. An L4 (or L4
    differential) checkpoint retires every older one, so damage to its data
    files may; below L4 the partner copies, the parity or the L4 backstop
    must recover any of these faults, as L4 must recover from the loss of
    local files and from damaged metadata (its copy beside the data)."""
    return config["level"] in (4, 8) and fault in ("truncate", "flip-data")


def app_ranks(config, ranks):
    return ranks // 2 if config["heads"] else ranks  # a head per node of 2 ranks


def checkpoint_level(config, n):
    if config["backstop"] and n >= 2 and (n - 2) % 4 == 0:
        return 4
    return config["level"]


def write_config(path, work, config, ranks):
    nodes = max(1, ranks // 2)
    basic = {
        "ckpt_dir": work / "local",
        "glbl_dir": work / "global",
        "meta_dir": work / "meta",
        "node_size": 2,
        "group_size": min(nodes, 4),
        "ckpt_io": config["io"],
        "verbosity": 2,
        "head": 0,
    }
    if config["heads"]:
        basic.update(head=1, keep_heads_alive=1, inline_l2=0, inline_l3=0, inline_l4=0)
    if config["level"] == 8:
        basic.update(enable_dcp=1, dcp_mode=2)
    lines = ["# written by tests/stress/fault_restarts.py", "[basic]"]
    lines += [f"{k} = {v}" for k, v in basic.items()]
    lines += ["", "[restart]", "failure = 0", "exec_id =", "", "[advanced]", "local_test = 1", "block_size = 64", ""]
    path.write_text("\n".join(lines))


class Launcher:
    def __init__(self, app, timeout, env):
        self.app, self.timeout, self.env = app, timeout, env

    def run(self, ranks, args, log, stacks):
        """Runs the app under the hang watchdog; returns (exit code, output, seconds)."""
        cmd = [str(SUPPORT / "run_bounded.sh"), str(self.timeout), str(stacks),
               str(SUPPORT / "mpiexec.sh"), "--oversubscribe", "-n", str(ranks), str(self.app)] + args
        start = time.monotonic()
        with open(log, "wb") as out:
            launch = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=self.env)
            try:
                rc = launch.wait()
            except BaseException:  # interrupted: run_bounded.sh stops the whole launch on SIGTERM
                launch.terminate()
                launch.wait()
                raise
        return rc, log.read_text(errors="replace"), time.monotonic() - start


# ---------------------------------------------------------------------------
# Faults, applied to the files as the restart will find them.

def id_of(path):
    m = re.match(r"Ckpt(\d+)-", path.name)
    return int(m.group(1)) if m else -1


def newest(files):
    """The files of the newest checkpoint among `files` (the campaign's ids grow)."""
    if not files:
        return []
    top = max(id_of(f) for f in files)
    return sorted(f for f in files if id_of(f) == top)


def level_files(root, pattern):
    """Files matching `pattern` in a level's directory, as FTI keeps them, or in
    a checkpoint's own directory below it (a repeated id)."""
    return list(root.glob(pattern)) + list(root.glob(pattern.replace("/Ckpt", "/ckpt*/Ckpt", 1)))


def data_files(work, config):
    """Data files of the newest checkpoint at the configuration's level."""
    level = config["level"]
    if level == 8:
        # FTI's names for its dCP files: POSIX dCP's (ckpt_io = 1), FTI-FF dCP's (the others)
        return sorted((work / "global").glob("*/dCP/dcp-id0-rank*.fti")) + sorted(
            (work / "global").glob("*/dCP/dCPFile-Rank*.fti"))
    if level == 4:
        files = [f for f in level_files(work / "global", "*/l4/Ckpt*-*.fti*") if not f.name.endswith(".tmp")]
    else:
        files = level_files(work / "local", f"node*/*/l{level}/Ckpt*-Rank*.fti")
    return newest(files)


def invert(path, offset, count):
    with open(path, "r+b") as f:
        f.seek(offset)
        data = f.read(count)
        f.seek(offset)
        f.write(bytes(b ^ 0xFF for b in data))


def inject(fault, work, config, ranks, rng):
    """Damages the files; returns a line saying what was done."""
    if fault == "none":
        return "nothing damaged"
    if fault == "node":
        node = rng.randrange(ranks // 2)
        shutil.rmtree(work / "local" / f"node{node}", ignore_errors=True)
        return f"deleted local/node{node}"
    if fault == "wipe-local":
        for d in (work / "local").glob("*"):
            shutil.rmtree(d, ignore_errors=True)
        return "deleted everything in local/"
    if fault == "meta":
        metas = sorted((work / "meta").glob("*/ckpt*.l*.meta"),
                       key=lambda p: int(re.match(r"ckpt(\d+)", p.name).group(1)))
        if not metas:
            return "no metadata file to damage"
        meta = metas[-1]
        size = meta.stat().st_size
        with open(meta, "r+b") as f:
            f.write(bytes(min(4096, size)))
        return f"zeroed the first {min(4096, size)} of {size} bytes of {meta.relative_to(work)}"
    if fault == "flip-redundancy":
        kind = "Pcof" if config["level"] == 2 else "RSed"
        files = newest(level_files(work / "local", f"node*/*/l{config['level']}/Ckpt*-{kind}*.fti"))
    else:
        files = data_files(work, config)
    if not files:
        return "no file to damage"
    victim = rng.choice(files)
    size = victim.stat().st_size
    if fault == "truncate":
        os.truncate(victim, size // 2)
        return f"cut {victim.relative_to(work)} from {size} to {size // 2} bytes"
    offset = max(0, size // 2 - 8)
    invert(victim, offset, 16)
    return f"inverted 16 bytes at {offset} of {victim.relative_to(work)} ({size} bytes)"


# ---------------------------------------------------------------------------
# Outcomes.

def killed_as_announced(rc, text):
    return rc == 128 + signal.SIGKILL and "killed on purpose" in text


def classify_failure(rc, text):
    """A launch that ended neither as expected nor as a hang."""
    if rc == 4 or "WRONG" in text:
        return "WRONG-DATA"
    if rc == 1 and re.search(r"^stress_app: .*failed", text, re.M):
        return "ERROR"
    return "CRASH"


def classify_restart(rc, text, config, fault, reference):
    if rc == 124:
        return "HANG", "the restart reached the bound"
    result = re.search(r"stress_app: result iterations=\d+ checksum=([0-9a-f]{16}) verify=(\w+)", text)
    if rc == 0 and result and result.group(2) == "OK":
        if "stress_app: restarted from iteration" not in text:
            return "NO-RESTART", "the relaunch started afresh"
        if reference is not None and result.group(1) != reference:
            return "WRONG-DATA", f"checksum {result.group(1)}, reference {reference}"
        # One line per checkpoint selected; the last one was recovered from.
        tried = re.findall(r"Restarting from checkpoint (\d+) \((L[^,]*), seq \d+\)", text)
        if not tried:
            return "RECOVERED", "recovered"
        detail = f"from checkpoint {tried[-1][0]} at {tried[-1][1]}"
        if len(tried) > 1:
            detail += " after " + ", ".join(f"{c} at {lv}" for c, lv in tried[:-1]) + " failed to read"
        return "RECOVERED", detail
    if rc == 3 and "stress_app: restart failed" in text:
        reason = re.search(r"stress_app: restart failed.*", text).group(0)[:300]
        return ("CLEAN-FAILURE" if may_fail_cleanly(config, fault) else "LOST"), reason
    return classify_failure(rc, text), f"exit code {rc}"


# ---------------------------------------------------------------------------

def machine_line(hogs):
    load = os.getloadavg()
    return (f"{os.cpu_count()} cores, {hogs} busy loops, load average "
            f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


def start_hogs(count):
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"], stdin=subprocess.DEVNULL) for _ in range(count)]


def stop_hogs(hogs):
    for h in hogs:
        h.kill()
    for h in hogs:
        h.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--restarts", type=int, default=24, help="number of trials (kill, fault, restart)")
    parser.add_argument("--build", default=str(REPO / "build"), help="build directory (with the tests)")
    parser.add_argument("--out", help="output directory (default: a new one under /tmp)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the matrix order, kills and faults")
    parser.add_argument("--timeout", type=int, default=300, help="bound of each launch against hangs (s)")
    parser.add_argument("--ranks", default="4,8", help="rank counts, comma-separated (even)")
    parser.add_argument("--hogs", type=int, default=os.cpu_count(), help="busy loops during the run")
    parser.add_argument("--kib", type=int, default=512, help="protected KiB per rank")
    parser.add_argument("--only", help="only the cells matching this regex (e.g. 'l2-heads/truncate/np8')")
    parser.add_argument("--keep", action="store_true", help="keep the checkpoint files of passed trials")
    args = parser.parse_args()

    app = Path(args.build) / "tests" / "stress" / "mlckpt_stress_app"
    if not app.exists():
        sys.exit(f"fault_restarts: {app} not found: build the tests first (cmake --build {args.build})")
    ranks_list = [int(r) for r in args.ranks.split(",")]
    if any(r < 4 or r % 2 for r in ranks_list):
        sys.exit("fault_restarts: --ranks: even counts of at least 4 (2 nodes of 2 ranks)")
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="mlckpt-stress."))
    if (out / "trials").exists():
        sys.exit(f"fault_restarts: {out} holds the trials of another run: give a new --out")
    out.mkdir(parents=True, exist_ok=True)
    cells = [(c, f, r) for c in CONFIGS for f in FAULTS for r in ranks_list if applies(CONFIGS[c], f)]
    if args.only:
        cells = [cell for cell in cells if re.search(args.only, f"{cell[0]}/{cell[1]}/np{cell[2]}")]
    if not cells:
        sys.exit("fault_restarts: --only selects no cell")

    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_btl="self,vader",
               OMPI_MCA_btl_vader_single_copy_mechanism="none")
    launcher = Launcher(app, args.timeout, env)
    rng = random.Random(args.seed)
    base = ["--iterations", str(ITERATIONS), "--every", str(EVERY), "--kib", str(args.kib)]
    results = open(out / "results.tsv", "w")
    results.write("trial\tconfig\tfault\tranks\tkill\toutcome\tseconds\tfault applied\tdetail\n")
    counts = {o: 0 for o in OUTCOMES}
    per_cell = {}
    failed = []
    slowest = (0.0, "")

    hogs = start_hogs(args.hogs)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    started = time.monotonic()
    machine_start = machine_line(len(hogs))
    print(f"fault_restarts: {args.restarts} trials over {len(cells)} cells, seed {args.seed}, "
          f"output in {out}", flush=True)
    print(f"fault_restarts: {machine_start}", flush=True)
    try:
        # The fault-free result of each count of application ranks (heads
        # compute nothing): every restart must end with it.
        reference = {}
        for n in sorted({app_ranks(CONFIGS[c], r) for c, _, r in cells}):
            cfg = out / f"reference-{n}ranks" / "config.fti"
            cfg.parent.mkdir(exist_ok=True)
            write_config(cfg, cfg.parent, CONFIGS["l1"], n)
            log = out / f"reference-{n}ranks.log"
            rc, text, secs = launcher.run(n, ["--config", str(cfg)] + base, log, out / f"reference-{n}ranks-stacks")
            m = re.search(r"checksum=([0-9a-f]{16}) verify=OK", text)
            if rc != 0 or not m:
                sys.exit(f"fault_restarts: the fault-free run of {n} ranks failed (exit code {rc}); see {log}")
            reference[n] = m.group(1)
            shutil.rmtree(cfg.parent)
            print(f"fault_restarts: fault-free run of {n} ranks: checksum {m.group(1)} ({secs:.1f} s)", flush=True)

        order = []
        for trial in range(1, args.restarts + 1):
            if not order:
                order = cells[:]
                rng.shuffle(order)
            name, fault, ranks = order.pop()
            config = CONFIGS[name]
            trial_rng = random.Random(f"{args.seed}/{trial}")  # the kill and the fault's victim
            # The kill comes after a checkpoint at the configuration's own level
            # (not after an L4 backstop), so that the fault hits that level.
            kills = [i for i in range(FIRST_KILL, ITERATIONS)
                     if checkpoint_level(config, i // EVERY) == config["level"]]
            kill_at, kill_rank = trial_rng.choice(kills), trial_rng.randrange(app_ranks(config, ranks))
            tdir = out / "trials" / f"{trial:04d}-{name}-np{ranks}-{fault}"
            work = tdir / "work"
            work.mkdir(parents=True)
            cfg = work / "config.fti"
            write_config(cfg, work, config, ranks)
            run_args = ["--config", str(cfg), "--level", str(config["level"]),
                        "--l4-every", "4" if config["backstop"] else "0"] + base
            kill = f"rank {kill_rank} after iteration {kill_at}"

            rc, text, secs = launcher.run(ranks, run_args + ["--kill-rank", str(kill_rank), "--kill-at", str(kill_at)],
                                          tdir / "run.log", tdir / "hang-stacks-run")
            applied = "-"
            if rc == 124:
                outcome, detail = "HANG", "the first launch (before the kill) reached the bound"
            elif not killed_as_announced(rc, text):
                outcome = classify_failure(rc, text)
                detail = f"the first launch ended with exit code {rc}, not by the announced kill"
            else:
                applied = inject(fault, work, config, ranks, trial_rng)
                (tdir / "fault.txt").write_text(applied + "\n")
                shutil.copytree(work, tdir / "before-restart", symlinks=True)
                rc, text, more = launcher.run(ranks, run_args, tdir / "restart.log", tdir / "hang-stacks-restart")
                secs += more
                outcome, detail = classify_restart(rc, text, config, fault, reference[app_ranks(config, ranks)])

            counts[outcome] += 1
            cell = per_cell.setdefault(f"{name}/{fault}/np{ranks}", {})
            cell[outcome] = cell.get(outcome, 0) + 1
            slowest = max(slowest, (secs, tdir.name))
            results.write(f"{trial}\t{name}\t{fault}\t{ranks}\t{kill}\t{outcome}\t{secs:.1f}\t{applied}\t{detail}\n")
            results.flush()
            if outcome in FAILURES:
                failed.append(f"{tdir.name}: {outcome}: {detail}")
            elif not args.keep:
                shutil.rmtree(work, ignore_errors=True)
                shutil.rmtree(tdir / "before-restart", ignore_errors=True)
            print(f"[{trial:4d}/{args.restarts}] {name:18s} np{ranks} {fault:15s} kill {kill}: {outcome}, "
                  f"{detail} ({secs:.1f} s)", flush=True)
    finally:
        stop_hogs(hogs)
        results.close()

    wall = time.monotonic() - started
    shown = [o for o in OUTCOMES if counts[o] or o == "RECOVERED"]
    lines = [
        f"fault_restarts: {sum(counts.values())} trials, seed {args.seed}, {ITERATIONS} iterations, "
        f"checkpoint every {EVERY}, {args.kib} KiB per rank, ranks {args.ranks}, bound {args.timeout} s per launch",
        f"machine: Linux {platform.release()}, {machine_start} at the start; "
        f"{machine_line(len(hogs))} at the end",
        f"wall time: {wall:.0f} s; slowest trial (both launches): {slowest[0]:.1f} s, {slowest[1]}",
        "outcomes: " + ", ".join(f"{o} {counts[o]}" for o in shown),
        "",
        f"{'cell (configuration/fault/ranks)':40s} " + " ".join(f"{o:>13s}" for o in shown),
    ]
    for name, c in sorted(per_cell.items()):
        lines.append(f"{name:40s} " + " ".join(f"{c.get(o, 0):13d}" for o in shown))
    if failed:
        lines += ["", "failed trials (logs, stacks and the files before the restart in their directories):"]
        lines += [f"  {f}" for f in failed]
    lines.append(f"\nresults: {out / 'results.tsv'}")
    summary = "\n".join(lines) + "\n"
    (out / "summary.txt").write_text(summary)
    print("\n" + summary, end="")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
