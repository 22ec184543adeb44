#!/usr/bin/env python3
"""Power cuts at every crash point of a checkpoint (docs/power-loss.md).

    crash_points.py --fs FS_BINARY --app APP --mpiexec MPIEXEC --workdir DIR
                    --level L --io IO [--interface fti|scr] [--tool MLCKPT]
                    [--model data|strict] [--torn] [--head 0|1] [--keep-last 0|1]
                    [--icp] [--snapshot] [--stage] [--set SECTION.KEY=VALUE ...] [--lose-node N]
                    [--restart-cuts] [--cut-node N] [--points all|N] [--seed S] [--record FILE]
                    [--timeout S] [--checkpoints 2]

Mounts the power-loss file system over DIR/backing at DIR/mnt; every
directory of the checkpoints (ckpt_dir, glbl_dir, meta_dir) and the
configuration file are on it: the whole machine room loses power at once,
or, with --cut-node N, node N alone (below).

1. A counting run: powerloss_app writes checkpoints 1 .. C and goes on
   computing (with --keep-last 1: calls FTI_Finalize and exits). The
   operations that change durable state from the start of checkpoint C
   until it is idle (or has exited) are counted: n. The power is then cut,
   and the restart must give checkpoint C.
2. For each crash point k of 1 .. n (all of them, or N of them drawn with
   the seed, one from each of N equal stretches of 1 .. n; the test suite
   draws 1, `tests/run_all.sh --power-loss` tries all), a fresh run arms the cut after
   the k-th operation: when the file system freezes, every process is
   killed (a machine without power runs nothing), the power is cut, and
   powerloss_app restarts. It must recover the newest checkpoint whose
   FTI_Checkpoint returned success on some rank before the cut, or a newer
   one, bit for bit (powerloss_app restart).

With --cut-node N the k-th operation cuts the power of simulated node N
only (ranks 2N and 2N+1; its storage is DIR/mnt/local/nodeN, or cache/nodeN
for scr.h; the rest of the mount is the shared storage): the file system
stops N's processes at once (SIGSTOP: to the others they go silent, as a
node without power does), undoes what its storage had not made durable,
and forgets N's unsynced writes to the shared storage. The other nodes go
on until they exit, fail, or wait with nothing to do (no operation for
SURVIVORS_QUIET seconds); then every process is killed, the survivors'
pending writes become durable (their nodes kept the power), and the
relaunch must give the newest checkpoint any rank saw committed, the
survivors' commits after the cut included.

A run that neither exits nor freezes within --timeout seconds is a hang.
Exit code 0 when every crash state passed, 1 when one failed, 77 when FUSE
cannot be mounted here (with the reason), 2 on a usage error.
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

CONTROL = ".powerloss"
RANKS = 4  # application ranks: 2 simulated nodes of 2, one group (L2 and L3 have their partners)
RANKS_PER_NODE = 2  # with heads too: a head and an application rank
SURVIVORS_QUIET = 1.0  # seconds without an operation after a node's cut: the others wait or are done


def parse():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--fs", required=True, help="mlckpt_powerloss_fs")
    p.add_argument("--app", required=True, help="powerloss_app (with --interface scr: scr_powerloss_app)")
    p.add_argument("--interface", choices=("fti", "scr"), default="fti",
                   help="scr: the application writes its own files through scr.h; --level is then its kind "
                        "(1 SINGLE, 2 PARTNER, 3 XOR, 4 SINGLE flushed to the prefix), --io is not used")
    p.add_argument("--mpiexec", required=True, help="the launcher (tests/support/mpiexec.sh)")
    p.add_argument("--tool", help="the mlckpt tool: mlckpt verify (scr.h: mlckpt index) must name the checkpoint "
                   "the relaunch takes")
    p.add_argument("--workdir", required=True)
    p.add_argument("--level", type=int, choices=(1, 2, 3, 4, 8, 9), required=True,
                   help="8: FTI_L4_DCP; 9: FTI_L4_H5_SINGLE, the global HDF5 file (the relaunch is a variate "
                        "restart, failure = 3, as a job script asks for it)")
    p.add_argument("--io", type=int, choices=(1, 2, 3, 4, 5), required=True, help="ckpt_io")
    p.add_argument("--checkpoints", type=int, default=2)
    p.add_argument("--model", choices=("data", "strict"), default="strict")
    p.add_argument("--torn", action="store_true")
    p.add_argument("--head", type=int, choices=(0, 1), default=0)
    p.add_argument("--keep-last", type=int, choices=(0, 1), default=0)
    p.add_argument("--icp", action="store_true", help="checkpoints through FTI_InitICP .. FTI_FinalizeICP")
    p.add_argument("--stage", action="store_true",
                   help="enable_staging = 1: before each checkpoint each rank stages an output file (FTI_SendFile); "
                        "the relaunch checks them")
    p.add_argument("--snapshot", action="store_true",
                   help="async_snapshot = 1: a checkpoint counts as committed when the next checkpoint call (the "
                        "last: FTI_WaitBackground) returns")
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="a configuration key of the case (over the test suite's and the options')")
    p.add_argument("--lose-node", type=int, help="after the cut, node N's local storage is gone too (L2, L3)")
    p.add_argument("--restart-cuts", action="store_true",
                   help="cut the power during the relaunch as well, and relaunch again")
    p.add_argument("--lose-meta", action="store_true",
                   help="with --restart-cuts, L4: meta_dir is lost after a checkpoint without a cut (the copies of "
                        "its files beside the data reached the disk), and the relaunch restores it from them")
    p.add_argument("--cut-node", type=int, metavar="N",
                   help="cut the power of node N only; the other nodes go on (not with --torn, --lose-node, "
                        "--restart-cuts)")
    p.add_argument("--points", default=os.environ.get("MLCKPT_POWERLOSS_POINTS", "1"),
                   help="'all', or how many crash points to draw (default: $MLCKPT_POWERLOSS_POINTS, else 1)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=int, default=180, help="seconds a launch may take (a bound against hangs)")
    p.add_argument("--record", default=os.environ.get("MLCKPT_POWERLOSS_RECORD"),
                   help="append the case's result line to this file (default: $MLCKPT_POWERLOSS_RECORD)")
    a = p.parse_args()
    if a.points != "all" and not (a.points.isdigit() and int(a.points) > 0):
        p.error("--points: 'all' or a positive number")
    if a.lose_meta and (not a.restart_cuts or a.level not in (4, 8) or a.interface != "fti"):
        p.error("--lose-meta: with --restart-cuts, at L4 (--level 4 or 8) through fti.h")
    if a.cut_node is not None:
        nodes = RANKS * (2 if a.head else 1) // RANKS_PER_NODE
        if not 0 <= a.cut_node < nodes:
            p.error(f"--cut-node: a node of the launch, 0 to {nodes - 1}")
        if a.torn or a.lose_node is not None or a.restart_cuts:
            p.error("--cut-node: not with --torn, --lose-node or --restart-cuts")
    return a


def skip(why):
    print(f"=== SKIPPED: {why}")
    sys.exit(77)


class PowerLossMount:
    """The file system mounted over BACKING at MOUNTPOINT, and its control file."""

    def __init__(self, binary, backing, mountpoint, model, torn, seed):
        self.mountpoint = mountpoint
        self.backing = backing
        self.control = os.path.join(mountpoint, CONTROL)
        os.makedirs(backing, exist_ok=True)
        os.makedirs(mountpoint, exist_ok=True)
        cmd = [binary, "--model", model, "--label", "room"]
        if torn:
            cmd += ["--torn", "--seed", str(seed)]
        done = subprocess.run(cmd + [backing, mountpoint], capture_output=True, text=True)
        if done.returncode != 0:
            skip(f"the power-loss file system could not be mounted: {done.stderr.strip() or done.returncode}")

    def command(self, *lines):
        with open(self.control, "w") as f:
            f.write("".join(line + "\n" for line in lines))

    def status(self):
        with open(self.control) as f:
            return dict(line.split(" ", 1) for line in f.read().splitlines() if " " in line)

    def wipe(self):
        """Empties the mount and makes that durable: a fresh machine room."""
        for name in os.listdir(self.mountpoint):
            path = os.path.join(self.mountpoint, name)
            shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
        self.command("sync", "reset")

    def unmount(self):
        subprocess.run(["fusermount3", "-u", self.mountpoint], check=False)


WRITE_CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support", "write_config.sh")


def write_config(path, root, a):
    """The test suite's configuration (tests/support/write_config.sh), with the case's [basic] keys."""
    subprocess.run(["bash", WRITE_CONFIG, path, root, "2", "2"], check=True)
    inline = "0" if a.head else "1"
    sections = {"basic": {"head": a.head, "ckpt_io": a.io, "keep_last_ckpt": a.keep_last,
                          "enable_dcp": int(a.level == 8), "dcp_block_size": 4096, "inline_l2": inline,
                          "inline_l3": inline, "inline_l4": inline, "async_snapshot": int(a.snapshot),
                          "enable_staging": int(a.stage)}}
    if a.level == 9:
        sections["basic"].update({"h5_single_file_enable": 1, "h5_single_file_dir": f"{root}/vpr"})
    for setting in a.set:
        section, key, value = re.fullmatch(r"(\w+)\.(\w+)=(.*)", setting).groups()
        sections.setdefault(section, {})[key] = value
    with open(path) as f:
        text = f.read()
    for section, keys in sections.items():
        lines = "".join(f"{k} = {v}\n" for k, v in keys.items())
        header = f"[{section}]\n"
        text = text.replace(header, header + lines, 1) if header in text else text + header + lines
    with open(path, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def session_processes(sid):
    """The live processes of session `sid`: a zombie is dead already (the
    launcher, our child, stays one until we reap it)."""
    pids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[3]) == sid and fields[0] != "Z":  # fields 6 and 3 of stat: session, state
                    pids.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return pids


def kill_session(sid):
    """SIGKILL to every process of the launch's session (the ranks have process groups of their own)."""
    for _ in range(200):
        pids = session_processes(sid)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.02)


def drawn_points(ops, count, seed):
    """`count` crash points of 1 .. ops, one drawn from each of `count`
    equal stretches: the start, middle and end of a checkpoint all get
    their share. (The counting run is already the cut after the last.)"""
    rng = random.Random(seed)
    bounds = [1 + (ops * i) // count for i in range(count + 1)]
    return sorted({rng.randrange(lo, max(lo + 1, hi)) for lo, hi in zip(bounds, bounds[1:])})


def committed(state_dir):
    """The newest checkpoint some rank saw FTI_Checkpoint succeed for (0: none)."""
    newest = 0
    for name in os.listdir(state_dir):
        if name.startswith("committed."):
            with open(os.path.join(state_dir, name)) as f:
                numbers = [int(line) for line in f.read().split()]
            newest = max([newest] + numbers)
    return newest


class Case:
    def __init__(self, a, mount):
        self.a = a
        self.mount = mount
        self.root = mount.mountpoint
        self.backing = mount.backing
        self.config = os.path.join(self.root, "config.fti")
        self.state = os.path.join(a.workdir, "state")
        self.logs = os.path.join(a.workdir, "logs")
        os.makedirs(self.logs, exist_ok=True)

    def ranks(self):
        # With heads, one rank of each node of two is the node's head.
        return RANKS * 2 if self.a.head else RANKS

    def fresh(self):
        self.mount.wipe()
        shutil.rmtree(self.state, ignore_errors=True)
        os.makedirs(self.state)
        write_config(self.config, self.root, self.a)
        if self.a.stage:
            os.makedirs(os.path.join(self.root, "output"))  # where the outputs are staged (made durable below)
        self.mount.command("sync", "reset", *([f"node-size {RANKS_PER_NODE}"] if self.a.cut_node is not None else []))

    def all_recorded(self, prefix, wanted=None):
        """Whether every application rank has a STATE_DIR/<prefix>.<rank>
        (whose last line is `wanted`, when given)."""
        done = 0
        for name in os.listdir(self.state):
            if name.startswith(prefix + "."):
                with open(os.path.join(self.state, name)) as f:
                    done += wanted is None or f.read().split()[-1:] == [wanted]
        return done == RANKS

    def node_storage(self, node):
        """A node's own storage, below the mount's root."""
        return f"{'local' if self.a.interface == 'fti' else 'cache'}/node{node}"

    def launch_environment(self):
        env = dict(os.environ, MLCKPT_POWERLOSS_ICP="1" if self.a.icp else "0",
                   MLCKPT_POWERLOSS_SNAPSHOT="1" if self.a.snapshot else "0",
                   MLCKPT_POWERLOSS_STAGE="1" if self.a.stage else "0")
        if self.a.cut_node is not None:
            # The file system knows the launch's processes by this mark (their
            # node by their rank), and the application arms the node's cut.
            env["MLCKPT_POWERLOSS_MOUNT"] = os.path.realpath(self.root)
            env["MLCKPT_POWERLOSS_CUT_NODE"] = f"{self.a.cut_node} {self.node_storage(self.a.cut_node)}"
        return env

    def survivors_settle(self, proc, deadline):
        """After a node's cut: until the other nodes' processes exit, or make
        no operation for SURVIVORS_QUIET seconds (they wait for the node
        that is gone, or have nothing left to do). Returns node-down, or
        hang when they are still busy at the deadline."""
        ops, still_since = None, time.monotonic()
        while proc.poll() is None:
            now = self.mount.status()["ops"]
            if now != ops:
                ops, still_since = now, time.monotonic()
            elif time.monotonic() - still_since > SURVIVORS_QUIET:
                break
            if time.monotonic() > deadline:
                return "hang"
            time.sleep(0.01)
        return "node-down"

    def run(self, mode, last, log_name):
        """Runs powerloss_app until it exits, the file system freezes (the
        armed cut), a node's cut leaves the others settled (node-down), or,
        for `write`, it sits idle after its last checkpoint (every rank
        committed it and no operation for 0.3 s: what the library does in
        the background is done), or, for `restart-stay`, after its restart
        (every rank recovered). Returns the outcome (exited, frozen,
        node-down, idle, hang, or failed) and the log's path."""
        a = self.a
        args = [mode, self.config if a.interface == "fti" else self.root, str(a.level), str(a.checkpoints),
                self.state, last]
        if mode.startswith("write"):
            args = args[:-1] + [os.path.join(self.root, CONTROL), last]
        idle_when = {"write": ("committed", str(a.checkpoints)), "restart-stay": ("restarted", None)}.get(mode)
        log_path = os.path.join(self.logs, log_name)
        with open(log_path, "w") as log:
            proc = subprocess.Popen([a.mpiexec, "--oversubscribe", "-n", str(self.ranks()), a.app] + args,
                                    stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                    env=self.launch_environment())
            deadline = time.monotonic() + a.timeout
            outcome = None
            ops, still_since = None, time.monotonic()
            while proc.poll() is None:
                status = self.mount.status()
                if status.get("frozen") == "1":
                    outcome = "frozen"
                    break
                if status.get("node_down", "-") != "-":
                    outcome = self.survivors_settle(proc, deadline)
                    break
                if idle_when and self.all_recorded(*idle_when):
                    if status["ops"] != ops:
                        ops, still_since = status["ops"], time.monotonic()
                    elif time.monotonic() - still_since > 0.3:
                        outcome = "idle"
                        break
                if time.monotonic() > deadline:
                    outcome = "hang"
                    break
                time.sleep(0.01)
            kill_session(proc.pid)
            rc = proc.wait()
        if outcome is None:
            # It ended: on its own, or because the file system froze under it
            # (or a node's cut made the others give up).
            status = self.mount.status()
            outcome = "frozen" if status.get("frozen") == "1" else \
                "node-down" if status.get("node_down", "-") != "-" else \
                "exited" if rc == 0 else f"failed (exit code {rc})"
        return outcome, log_path

    def checks_with_tool(self):
        """Whether the tool names the relaunch's checkpoint: not for the
        global HDF5 file, whose variate restart reads no execution."""
        return bool(self.a.tool) and self.a.level != 9

    def ask_for_variate_restart(self):
        """[restart] failure = 3 in the configuration, durably, as the job
        script of a variate restart sets it."""
        with open(self.config) as f:
            text = re.sub(r"(?m)^failure *=.*$", "failure = 3", f.read())
        with open(self.config, "w") as f:
            f.write(text)
        self.mount.command("sync")

    def verify_says(self):
        """The checkpoint a restart takes by the tool (None: none), with
        --tool: `mlckpt verify` of the configuration, or for scr.h `mlckpt
        index` of the prefix and the cache (the dataset's number); and the
        tool's failure, or None."""
        if not self.checks_with_tool():
            return None, None
        if self.a.interface == "fti":
            command, tool = [self.a.tool, "verify", "--json", self.config], "mlckpt verify"
        else:
            command = [self.a.tool, "index", "--prefix", os.path.join(self.root, "prefix"),
                       "--cache", os.path.join(self.root, "cache"), "--json"]
            tool = "mlckpt index"
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode not in (0, 1):
            return None, f"{tool} failed (exit code {done.returncode}): {done.stderr.strip()}"
        try:
            restart = json.loads(done.stdout)["restart"]
            if self.a.interface == "fti":
                checkpoint = restart["checkpoint"]
                return (checkpoint["id"] if checkpoint else None), None
            return (int(restart["name"].removeprefix("ckpt.")) if restart else None), None
        except (ValueError, KeyError, TypeError) as e:
            return None, f"{tool} --json printed no restart ({e}): {done.stdout.strip()[:300]}"

    def lose_meta(self):
        """meta_dir is gone (its disk did not come back): the relaunch finds
        the checkpoint through the restart state of the configuration and
        the copies of the metadata beside the data."""
        shutil.rmtree(os.path.join(self.root, "meta"), ignore_errors=True)
        self.mount.command("sync")

    def lose_node(self):
        """Node --lose-node's local storage is gone (its disk did not come back)."""
        node = os.path.join(self.root, self.node_storage(self.a.lose_node))
        if os.path.isdir(node):
            shutil.rmtree(node)
        self.mount.command("sync")

    def trial(self, arm, restart_arm=None):
        """One crash state: the run armed after `arm` operations (0: not
        armed), the cut, and the relaunch. With `restart_arm` (0: not
        armed, and its operations counted) the relaunch is cut too, after
        that many of its operations, and relaunched again: the second
        relaunch must give what the first had to. Returns the operations
        counted (of the write, or of the first relaunch when it is
        counted) and the failure, or None."""
        self.fresh()
        self.restarted = None
        tag = f"k{arm}" if arm else "counting"
        if restart_arm:
            tag += f".j{restart_arm}"
        mode = "write-finalize" if self.a.keep_last else "write"
        logs = []
        outcome, log = self.run(mode, str(arm), f"{tag}.write.log")
        logs.append(log)
        ops = int(self.mount.status()["ops"])
        if outcome == "hang":
            return ops, f"the writing run hung (bound {self.a.timeout} s): {log}"
        if outcome.startswith("failed"):
            return ops, f"the writing run {outcome} before the power cut: {log}"
        if outcome == "node-down":
            # The other nodes kept their power: what they left pending is
            # durable (their page caches reach the disks); then the node's
            # power comes back.
            self.mount.command("sync", "cut")
        else:
            if self.a.lose_meta:
                # The copies of the metadata beside the data are not synced
                # (docs/levels.md, Power loss): they are on the disk once the
                # page cache has written them, which this cut comes after.
                self.mount.command("sync")
            self.mount.command("cut")
        # What the cut left, kept for a failure's reader (the restart changes it).
        after_cut = os.path.join(self.logs, f"{tag}.after-cut")
        shutil.copytree(self.backing, after_cut, symlinks=True,
                        ignore=shutil.ignore_patterns(".powerloss.trash.*"))
        expected = committed(self.state)
        if arm == 0 and expected != self.a.checkpoints:
            return ops, f"the counting run committed {expected} of {self.a.checkpoints} checkpoints: {log}"
        if mode == "write-finalize" and outcome == "exited":
            expected = self.a.checkpoints  # FTI_Finalize returned: keep_last_ckpt kept the last one
        if self.a.lose_node is not None:
            self.lose_node()
        if self.a.lose_meta:
            self.lose_meta()
        if self.a.level == 9:
            self.ask_for_variate_restart()
        if restart_arm is not None:
            self.mount.command("reset", f"arm {restart_arm}" if restart_arm else "disarm")
            outcome, log = self.run("restart-stay", str(expected), f"{tag}.restart1.log")
            logs.append(log)
            if restart_arm == 0:
                ops = int(self.mount.status()["ops"])
            if outcome not in ("frozen", "idle"):
                return ops, f"the first relaunch {outcome} (committed before the cut: {expected}): {log}"
            self.mount.command("cut")
        verified, failure = self.verify_says()
        if failure:
            return ops, failure
        outcome, log = self.run("restart", str(expected), f"{tag}.restart.log")
        logs.append(log)
        if outcome != "exited":
            return ops, f"the relaunch {outcome} (committed before the cut: {expected}): {log}"
        if self.checks_with_tool():
            with open(log) as f:
                found = re.search(r"(?:recovered checkpoint|restarted from dataset) (\d+)", f.read())
            restarted = int(found.group(1)) if found else None
            self.restarted = restarted
            if verified != restarted:
                return ops, (f"{'mlckpt verify' if self.a.interface == 'fti' else 'mlckpt index'} named "
                             f"{verified} for the restart, the relaunch restarted from {restarted}: {log}")
        for log in logs:
            os.unlink(log)
        shutil.rmtree(after_cut)
        return ops, None


def choose(ops, a, seed):
    """The crash points to try of `ops`: all, or --points drawn."""
    if a.points == "all" or int(a.points) >= ops:
        return list(range(1, ops + 1))
    return drawn_points(ops, int(a.points), seed)


def case_name(a):
    if a.interface == "scr":
        kind = {1: "SINGLE", 2: "PARTNER", 3: "XOR", 4: "SINGLE flushed"}[a.level]
        extra = (f" lose_node={a.lose_node}" if a.lose_node is not None else "") + \
            (" restart_cuts" if a.restart_cuts else "") + (f" cut_node={a.cut_node}" if a.cut_node is not None else "")
        return f"scr.h {kind} model={a.model}{' torn' if a.torn else ''}{extra}"
    level = {8: "L4 dCP", 9: "L4 H5 single file"}.get(a.level, f"L{a.level}")
    extra = "".join([" torn" if a.torn else "", " icp" if a.icp else "", " snapshot" if a.snapshot else "", " stage" if a.stage else "", " lose_meta" if a.lose_meta else "", "".join(f" {x}" for x in a.set), f" lose_node={a.lose_node}" if a.lose_node is not None else "",
                     " restart_cuts" if a.restart_cuts else ""])
    return f"{level} ckpt_io={a.io} model={a.model}{extra} head={a.head} keep_last={a.keep_last}" + \
        (f" cut_node={a.cut_node}" if a.cut_node is not None else "")


def main():
    a = parse()
    if not os.path.exists("/dev/fuse"):
        skip("no /dev/fuse: FUSE cannot be mounted here")
    if shutil.which("fusermount3") is None:
        skip("no fusermount3 (Debian's fuse3)")
    a.workdir = os.path.abspath(a.workdir)
    stale = os.path.join(a.workdir, "mnt")
    if os.path.ismount(stale):  # left by a run that was killed
        subprocess.run(["fusermount3", "-u", "-z", stale], check=False)
    shutil.rmtree(a.workdir, ignore_errors=True)
    name = case_name(a)
    mount = PowerLossMount(a.fs, os.path.join(a.workdir, "backing"), os.path.join(a.workdir, "mnt"), a.model,
                           a.torn, a.seed)
    failures = []
    tried = 0
    restart_ops = 0
    try:
        case = Case(a, mount)
        ops, failure = case.trial(0)
        if not failure and a.restart_cuts:
            restart_ops, failure = case.trial(0, 0)
        if failure:
            print(f"=== {name}: the run without a cut failed: {failure}")
            return 1
        if ops == 0 or (a.restart_cuts and restart_ops == 0):
            print(f"=== {name}: {'the relaunch' if ops else f'checkpoint {a.checkpoints}'} made no operation "
                  f"the file system counts")
            return 1
        # The cuts in the checkpoint; with --restart-cuts each relaunch is
        # cut as well, after a number of its operations drawn per point.
        # Then, with --restart-cuts, the cuts in a relaunch after a clean
        # checkpoint (and the node's loss, with --lose-node).
        # (With --lose-meta only these: a cut in the checkpoint may leave
        # the copies of the metadata short, which nothing promises to
        # survive together with the loss of meta_dir.)
        plan = [] if a.lose_meta else \
            [(k, random.Random(a.seed + k).randint(1, restart_ops) if a.restart_cuts else None)
             for k in choose(ops, a, a.seed)]
        if a.restart_cuts:
            plan += [(0, j) for j in choose(restart_ops, a, a.seed + 1)]
        print(f"=== {name}: checkpoint {a.checkpoints} and what follows it "
              f"({'FTI_Finalize' if a.keep_last else 'until the library is idle'}) make {ops} operations"
              f"{f', the relaunch {restart_ops}' if a.restart_cuts else ''}; trying {len(plan)} crash states")
        for k, j in plan:
            _, failure = case.trial(k, j)
            where = (f"cut after operation {k}" if k else "no cut in the checkpoint") + \
                (f", then after operation {j} of the relaunch" if j else "")
            agreed = f" (restarted from {case.restarted}, as mlckpt {'verify' if a.interface == 'fti' else 'index'} " \
                "said)" if case.checks_with_tool() else ""
            print(f"  {where}: {'FAILED: ' + failure if failure else 'passed' + agreed}", flush=True)
            tried += 1
            if failure:
                failures.append(f"{k}" + (f"/{j}" if j else ""))
    finally:
        mount.unmount()
    verdict = "passed" if not failures else f"FAILED at {' '.join(failures)}"
    print(f"=== {name}: {tried} crash states tried, {tried - len(failures)} passed: {verdict}")
    if a.record:
        with open(a.record, "a") as f:
            f.write(f"{name}\t{ops}\t{restart_ops or '-'}\t{tried}\t{tried - len(failures)}\t"
                    f"{' '.join(failures) or '-'}\n")
    if not failures:
        shutil.rmtree(a.workdir, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
