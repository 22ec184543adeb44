#!/usr/bin/env python3
"""Runs the complete programs and configurations of Markdown documents.

A fenced block is a complete program when it is C or C++ with a main()
function, or Fortran with a `program` unit; it is a complete configuration
when it is INI with a [basic] section. Every other block is a fragment and is
left alone. A block that looks complete but is not meant to run is marked by
an HTML comment on the line before its fence (invisible when rendered):

    <!-- doc-test: skip -->

Each program is compiled the way the document shows (the first mpicc, mpicxx
or mpifort command after it: its options are kept, pkg-config and -l/-L/-I
options are replaced by the build tree's; warnings are errors), then run with the configuration
shown next to it: the nearest configuration block of the same document, else
the first one of README.md (the README's minimal config.fti). It runs with
the rank count of the first `mpirun -np N` (or mpiexec -n N) after it, else
node_size ranks. The configuration's ckpt_dir, glbl_dir and meta_dir are
moved into the work directory: they are the reader's own to choose. A
program runs three times: a fresh run, a run whose last rank is killed while
its second checkpoint is written (MLCKPT_FAULT_INJECT), and the relaunch of
the same command, which must restart and print what the fresh run printed.
A configuration that no program uses must load through FTI_Init.

Python 3 standard library only. Exit code 0 when every block passed.
"""

import argparse
import configparser
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

SKIP_MARKER = "<!-- doc-test: skip -->"
LAUNCH_TIMEOUT = 120  # seconds: only a guard against a hung launch
COMPILERS = {"c": ("mpicc",), "cpp": ("mpicxx", "mpic++"), "fortran": ("mpifort", "mpif90")}
DEFAULT_COMMANDS = {"c": "mpicc -std=c99 app.c", "cpp": "mpicxx -std=c++20 app.cpp", "fortran": "mpifort app.f90"}
SUFFIXES = {"c": ".c", "cpp": ".cpp", "fortran": ".f90"}
LANGUAGES = {"c": "c", "cpp": "cpp", "c++": "cpp", "cxx": "cpp", "fortran": "fortran", "f90": "fortran",
             "ini": "ini"}
DIRECTORY_KEYS = ("ckpt_dir", "glbl_dir", "meta_dir")


@dataclass
class Block:
    doc: Path
    line: int  # line of the opening fence, from 1
    lang: str  # the fence's info string, lower case ("" when none)
    text: str
    skipped: bool = False

    @property
    def kind(self):
        """'program', 'config' or None (a fragment)."""
        lang = LANGUAGES.get(self.lang)
        if lang in ("c", "cpp") and re.search(r"\bint\s+main\s*\(", self.text):
            return "program"
        if lang == "fortran" and re.search(r"^\s*program\s+\w+", self.text, re.I | re.M):
            return "program"
        if lang == "ini" and re.search(r"^\s*\[basic\]", self.text, re.M):
            return "config"
        return None

    @property
    def language(self):
        return LANGUAGES.get(self.lang)

    @property
    def name(self):
        return f"{self.doc.name}:{self.line}"


def parse_blocks(doc):
    """Every fenced block of `doc`, with its skip marker."""
    lines = Path(doc).read_text(encoding="utf-8").splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)", lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.groups()
        end = i + 1
        while end < len(lines) and not re.match(rf"^\s*{re.escape(fence[0])}{{{len(fence)},}}\s*$", lines[end]):
            end += 1
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip() for line in lines[i + 1:end]]
        previous = next((lines[j].strip() for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        blocks.append(Block(Path(doc), i + 1, lang.lower(), "\n".join(body) + "\n", previous == SKIP_MARKER))
        i = end + 1
    return blocks


def command_lines(blocks):
    """(block, line) for every line of every block, continuation lines joined."""
    for b in blocks:
        for line in b.text.replace("\\\n", " ").splitlines():
            yield b, line.strip()


def find_compile_command(program, later):
    """The first command after `program` that compiles its language."""
    for _, line in command_lines(later):
        words = line.split()
        if words and words[0] in COMPILERS[program.language]:
            return line
    return DEFAULT_COMMANDS[program.language]


def find_launch(later):
    """(ranks, program arguments) of the first mpirun/mpiexec after a program."""
    for _, line in command_lines(later):
        words = shlex.split(line, comments=True)
        if not words or words[0] not in ("mpirun", "mpiexec"):
            continue
        ranks = None
        for k, w in enumerate(words[1:-1], start=1):
            if w in ("-np", "-n"):
                ranks = int(words[k + 1])
        executable = next((k for k, w in enumerate(words) if w.startswith("./")), None)
        args = words[executable + 1:] if executable is not None else []
        return ranks, args
    return None, []


def read_config(text):
    parser = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), interpolation=None)
    parser.read_string(text)
    return parser


def relocate_directories(text, workdir):
    """The configuration with its checkpoint directories inside `workdir`."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^(\s*)(\w+)(\s*=)", line)
        if m and m.group(2) in DIRECTORY_KEYS:
            line = f"{m.group(1)}{m.group(2)}{m.group(3)} {workdir / m.group(2)}"
        out.append(line)
    return "\n".join(out) + "\n"


class Failure(Exception):
    pass


@dataclass
class Build:
    """How to compile and launch against the build tree."""
    include_dirs: list
    fortran_module_dir: str
    lib_dir: str
    fortran_lib_dir: str
    extra_flags: list
    mpiexec: str
    config_loader: str
    warnings: dict = field(default_factory=lambda: {"c": ["-Wall", "-Wextra", "-Werror"],
                                                    "cpp": ["-Wall", "-Werror"],
                                                    "fortran": ["-Werror"]})

    def compile_args(self, command, language, source, output):
        """`command` as the document shows it, pointed at the build tree."""
        command = re.sub(r"\$\(pkg-config[^)]*\)", " ", command)
        words = shlex.split(command, comments=True)
        args = [words[0]]
        skip_next = False
        for w in words[1:]:
            if skip_next:
                skip_next = False
            elif w == "-o":
                skip_next = True
            elif w.startswith(("-l", "-L", "-I")):
                pass
            elif w.startswith("-"):
                args.append(w)
            # anything else is the document's source file name, replaced below
        args += self.warnings[language] + self.extra_flags + [str(source), "-o", str(output)]
        args += [f"-I{d}" for d in self.include_dirs]
        libs = [f"-L{self.lib_dir}", f"-Wl,-rpath,{self.lib_dir}"]
        if language == "fortran":
            args.append(f"-I{self.fortran_module_dir}")
            libs += [f"-L{self.fortran_lib_dir}", f"-Wl,-rpath,{self.fortran_lib_dir}", "-lmlckpt_fortran"]
        return args + libs + ["-lmlckpt"]


def run(args, cwd, env=None, timeout=LAUNCH_TIMEOUT):
    try:
        return subprocess.run(args, cwd=cwd, env=env, timeout=timeout, capture_output=True, text=True)
    except subprocess.TimeoutExpired as e:
        raise Failure(f"{shlex.join(args)}: no end after {timeout} s") from e


def show(result):
    return f"--- stdout:\n{result.stdout}--- stderr:\n{result.stderr}"


def restart_flag(config_path):
    parser = read_config(config_path.read_text())
    return parser.get("restart", "failure", fallback="0").strip()


def launch(build, ranks, argv, workdir, fault=None):
    env = dict(os.environ)
    extra = []
    if fault:
        env["MLCKPT_FAULT_INJECT"] = fault
        extra = ["-x", "MLCKPT_FAULT_INJECT"]
    return run([build.mpiexec, "--oversubscribe", "-n", str(ranks)] + extra + argv, workdir, env)


def program_lines(output):
    """The program's own lines of output, without the library's log."""
    return [line for line in output.splitlines() if line.strip() and not line.startswith("[ FTI")]


def check_program(build, program, later, config, workdir):
    source = workdir / ("app" + SUFFIXES[program.language])
    source.write_text(program.text)
    command = find_compile_command(program, later)
    args = build.compile_args(command, program.language, source, workdir / "app")
    print(f"  compile: {command}\n    as: {shlex.join(args)}")
    result = run(args, workdir)
    if result.returncode != 0:
        raise Failure(f"does not compile:\n{show(result)}")

    config_path = workdir / "config.fti"
    config_path.write_text(relocate_directories(config.text, workdir))
    parsed = read_config(config.text)
    ranks, args = find_launch(later)
    ranks = ranks or parsed.getint("basic", "node_size")
    argv = ["./app"] + args
    print(f"  run: {ranks} ranks, {shlex.join(argv)}, configuration {config.name}")

    fresh = launch(build, ranks, argv, workdir)
    if fresh.returncode != 0:
        raise Failure(f"the fresh run failed (exit code {fresh.returncode}):\n{show(fresh)}")
    if restart_flag(config_path) != "0":
        raise Failure("after the fresh run, [restart] failure is not 0")

    # The last rank dies while the second checkpoint is written: the first
    # one is committed and the relaunch restarts from it.
    crash = launch(build, ranks, argv, workdir, fault=f"after_data_write:{ranks - 1}:2")
    if crash.returncode == 0:
        raise Failure(f"the run with a rank killed at its second checkpoint ended normally:\n{show(crash)}")
    if restart_flag(config_path) != "1":
        raise Failure(f"after the crash, [restart] failure is not 1:\n{show(crash)}")

    restart = launch(build, ranks, argv, workdir)
    if restart.returncode != 0:
        raise Failure(f"the relaunch after the crash failed (exit code {restart.returncode}):\n{show(restart)}")
    if parsed.getint("basic", "verbosity", fallback=2) <= 2 and "Recovered " not in restart.stdout:
        raise Failure(f"the relaunch after the crash did not recover:\n{show(restart)}")
    missing = [line for line in program_lines(fresh.stdout) if line not in restart.stdout.splitlines()]
    if missing:
        raise Failure(f"the relaunch did not print what the fresh run printed: {missing}\n{show(restart)}")
    if restart_flag(config_path) != "0":
        raise Failure("after the relaunch, [restart] failure is not 0")
    print(f"  ok: fresh run, crash at checkpoint 2, restart")


def check_config(build, config, workdir):
    parsed = read_config(config.text)
    ranks = parsed.getint("basic", "node_size")
    config_path = workdir / "config.fti"
    config_path.write_text(relocate_directories(config.text, workdir))
    print(f"  load through FTI_Init at {ranks} ranks")
    result = launch(build, ranks, [build.config_loader, "config.fti"], workdir)
    if result.returncode != 0:
        raise Failure(f"FTI_Init refuses it:\n{show(result)}")
    print("  ok: loads")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("docs", nargs="+", type=Path, help="the Markdown documents to check")
    p.add_argument("--readme", type=Path, required=True, help="README.md, whose first configuration is the default")
    p.add_argument("--work", type=Path, required=True, help="work directory (emptied first)")
    p.add_argument("--include", default="", help="include directories of fti.h and mlckpt/mlckpt.hpp, separated by ':'")
    p.add_argument("--lib-dir", required=True, help="directory of libmlckpt")
    p.add_argument("--fortran-lib-dir", required=True, help="directory of libmlckpt_fortran")
    p.add_argument("--fortran-module-dir", required=True, help="directory of fti.mod")
    p.add_argument("--mpiexec", required=True, help="mpiexec wrapper (tests/support/mpiexec.sh)")
    p.add_argument("--config-loader", required=True, help="program that runs FTI_Init and FTI_Finalize on a file")
    p.add_argument("--flag", action="append", default=[], help="extra compile and link flag (sanitizers)")
    p.add_argument("--list", action="store_true", help="list the complete blocks and stop")
    opts = p.parse_args()

    readme_configs = [b for b in parse_blocks(opts.readme) if b.kind == "config" and not b.skipped]
    build = Build([d for d in opts.include.split(os.pathsep) if d], opts.fortran_module_dir, opts.lib_dir, opts.fortran_lib_dir, opts.flag,
                  opts.mpiexec, opts.config_loader)
    shutil.rmtree(opts.work, ignore_errors=True)
    failures = []
    checked = 0

    def attempt(block, check):
        """Runs check(work directory) for a block, recording a failure."""
        work = opts.work / f"{block.doc.stem}-{block.line}"
        work.mkdir(parents=True)
        if opts.list:
            return
        try:
            check(work.resolve())
        except Failure as e:
            print(f"FAILED {block.name}: {e}")
            failures.append(block.name)

    for doc in opts.docs:
        blocks = parse_blocks(doc)
        configs = [b for b in blocks if b.kind == "config" and not b.skipped]
        used = set()
        for i, block in enumerate(blocks):
            if block.kind is None:
                continue
            if block.skipped:
                print(f"{block.name}: {block.lang} {block.kind}, marked skip")
                continue
            if block.kind != "program":
                continue
            config = min(configs, key=lambda c: abs(c.line - block.line)) if configs else readme_configs[0]
            used.add(config.line if config.doc == doc else None)
            print(f"{block.name}: {block.lang} program")
            checked += 1
            attempt(block, lambda work, block=block, rest=blocks[i + 1:], config=config:
                    check_program(build, block, rest, config, work))
        for config in configs:
            if config.line in used:
                continue
            print(f"{config.name}: configuration")
            checked += 1
            attempt(config, lambda work, config=config: check_config(build, config, work))
    print(f"{checked} complete blocks, {len(failures)} failed" + (": " + ", ".join(failures) if failures else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
