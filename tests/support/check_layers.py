#!/usr/bin/env python3
"""Checks every #include "..." of core/, capi/, cpp/ and fortran/ against the
layer table of docs/architecture.md: a folder may include the folders of the
layers below its own, and nothing else of core.

    check_layers.py REPOSITORY

Prints every edge the table does not allow (file, line, the include, why)
and exits 1 when there is one; exits 2 when the table cannot be read.
"""
import pathlib
import re
import sys

SOURCES = (".c", ".h", ".cpp", ".hpp")
CHECKED = ("core", "capi", "cpp", "fortran")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def read_layers(doc):
    """{folder: layer} from the table between the layers markers."""
    text = doc.read_text(encoding="utf-8")
    match = re.search(r"<!-- layers: begin -->(.*?)<!-- layers: end -->", text, re.S)
    if not match:
        raise ValueError(f"{doc}: no table between <!-- layers: begin --> and <!-- layers: end -->")
    layers = {}
    for line in match.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].isdigit():
            continue
        for folder in cells[1].split(","):
            folder = folder.strip()
            if folder in layers:
                raise ValueError(f"{doc}: folder '{folder}' is in two layers")
            layers[folder] = int(cells[0])
    if not layers:
        raise ValueError(f"{doc}: the layer table has no rows")
    return layers


def folder_of(repo, path):
    """The layer folder a source file belongs to: core/<folder>/..., or capi, cpp, fortran."""
    parts = path.relative_to(repo).parts
    return parts[1] if parts[0] == "core" else parts[0]


def violations(repo, layers):
    core_folders = {p.name for p in (repo / "core").iterdir() if p.is_dir()}
    unknown = sorted(core_folders - layers.keys())
    if unknown:
        yield f"docs/architecture.md: core folders missing from the layer table: {', '.join(unknown)}"
    for top in CHECKED:
        for path in sorted((repo / top).rglob("*")):
            if path.suffix not in SOURCES or not path.is_file():
                continue
            mine = folder_of(repo, path)
            if mine not in layers:
                yield f"{path.relative_to(repo)}: folder '{mine}' is not in the layer table"
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                match = INCLUDE.match(line)
                if not match or "/" not in match.group(1):
                    continue
                target = match.group(1).split("/")[0]
                if target not in core_folders or target == mine:
                    continue
                if layers[target] <= layers[mine]:
                    where = "above" if layers[target] < layers[mine] else "beside"
                    yield (f"{path.relative_to(repo)}:{number}: includes \"{match.group(1)}\": "
                           f"{mine} (layer {layers[mine]}) may not include {target} (layer {layers[target]}, "
                           f"{where} it)")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    repo = pathlib.Path(sys.argv[1]).resolve()
    try:
        layers = read_layers(repo / "docs" / "architecture.md")
    except (OSError, ValueError) as e:
        print(e, file=sys.stderr)
        return 2
    found = list(violations(repo, layers))
    for v in found:
        print(v, file=sys.stderr)
    if found:
        print(f"{len(found)} include edges break the layers of docs/architecture.md", file=sys.stderr)
        return 1
    print(f"every include of {', '.join(CHECKED)} follows the {len(set(layers.values()))} layers of "
          "docs/architecture.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
