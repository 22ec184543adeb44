#!/usr/bin/env python3
"""Checks that the rules of checkpoint levels have one owner: no source file
of core/, capi/, cpp/ or tools/ compares a level number, or does arithmetic
on one, outside the level descriptors (core/config/levels.*) and FTI's
parsing of the levels its API accepts (core/config/api_level.*).

    check_level_rules.py REPOSITORY [--count]

A level rule is written as a question to the descriptors (is_global(level),
levels[level].promoted_after_commit, for (int level : kBaseLevels) ...),
never as `level == 4`, `level <= 3`, `level - 1` or a number in a
CheckpointRef (`{seq, 4, id}`: kL4). Prints every place that
breaks this (file, line, the text) and exits 1 when there is one; with
--count, prints the number of such places per file and in all, and exits 0.
"""
import pathlib
import re
import sys

SOURCES = (".c", ".h", ".cpp", ".hpp")
CHECKED = ("core", "capi", "cpp", "tools")
OWNERS = ("core/config/levels.hpp", "core/config/levels.cpp", "core/config/api_level.hpp",
          "core/config/api_level.cpp")

# A name that holds a level number: level, ref.level, copy_level, level_, lvl ...
# but not the log's verbosity or a log level.
NAME = r"\b[a-z_]*(?:level|lvl)[a-z_]*\b(?:\(\))?"
OPERAND = r"(?:\d+|k[A-Z][A-Za-z0-9]*Level\b)"
COMPARE = r"\s+(?:==|!=|<=|>=|<|>)\s+"
ARITHMETIC = r"\s+[-+]\s+"
RULES = [
    re.compile(NAME + COMPARE + OPERAND),
    re.compile(OPERAND + COMPARE + NAME),
    re.compile(NAME + ARITHMETIC + r"\d+\b"),
    re.compile(NAME + r"\s+(?:<=|>=|<|>)\s+" + r"[A-Za-z_.>()\-]*" + NAME),
    re.compile(r"\bcase\s+k[A-Z][A-Za-z0-9]*Level\b"),
    # A level written as a number where a checkpoint is named: {seq, 4, id}.
    re.compile(r"\bCheckpointRef\b[^{;]*\{[^,{}]+,\s*\d+\s*[,}]"),
]
NOT_LEVELS = re.compile(r"verbosity|log_level|LogLevel|level_of_compression|compression_level|clevel|"
                        r"zstd_level|deflate_level|kMaxParityGroup", re.I)


def places(repo):
    for top in CHECKED:
        for path in sorted((repo / top).rglob("*")):
            if path.suffix not in SOURCES or not path.is_file():
                continue
            rel = path.relative_to(repo).as_posix()
            if rel in OWNERS:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                code = line.split("//", 1)[0]
                if not code.strip() or code.lstrip().startswith("*"):
                    continue
                code = re.sub(r'"(?:[^"\\]|\\.)*"', '""', code)
                if any(rule.search(code) for rule in RULES) and not NOT_LEVELS.search(code):
                    yield rel, number, line.strip()


def main():
    args = [a for a in sys.argv[1:] if a != "--count"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    found = list(places(pathlib.Path(args[0]).resolve()))
    if "--count" in sys.argv:
        per_file = {}
        for rel, _, _ in found:
            per_file[rel] = per_file.get(rel, 0) + 1
        for rel, n in sorted(per_file.items(), key=lambda x: (-x[1], x[0])):
            print(f"{n:4} {rel}")
        print(f"{len(found):4} in all, in {len(per_file)} files")
        return 0
    for rel, number, text in found:
        print(f"{rel}:{number}: a level rule outside the level descriptors: {text}")
    if found:
        print(f"{len(found)} level rules outside core/config/levels.* and core/config/api_level.*: "
              "ask the descriptors (core/config/levels.hpp) instead", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
