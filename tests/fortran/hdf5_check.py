#!/usr/bin/env python3
"""Reads the HDF5 checkpoint files of the Fortran tests with h5dump (its XML
output) and checks what an HDF5 reader sees: groups, dataset names, shapes,
attributes and values.

    hdf5_check.py H5DUMP WORKDIR LEVEL CKPT_ID RANKS VERSION

LEVEL is l1 (the per-rank files of hdf5_datasets.f90 under WORKDIR/local),
l4 (the same under WORKDIR/global) or global (the one global file of
global_file.f90 under WORKDIR/vpr, written by RANKS ranks); VERSION is the
argument of the program's fill() for that checkpoint.
Python 3 standard library only. Exit code 0 when every file is as expected.
"""

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

NS = {"h": "http://hdfgroup.org/HDF5/XML/schema/HDF5-File.xsd"}


def fail(message):
    print(f"hdf5 check: FAILED: {message}")
    sys.exit(1)


def values(element):
    """The numbers or the string of a Dataset's or Attribute's data."""
    data = element.find("h:Data/h:DataFromFile", NS)
    if data is None:
        return None
    text = data.text.strip()
    if text.startswith('"'):
        return text.strip('"')
    return [float(x) for x in text.split()]


def shape(element):
    simple = element.find("h:Dataspace/h:SimpleDataspace", NS)
    if simple is None:
        return []
    return [int(d.get("DimSize")) for d in simple.findall("h:Dimension", NS)]


def read_objects(h5dump, path):
    """{HDF5 path: XML element} of every group and dataset of a file."""
    xml = subprocess.run([h5dump, "-x", str(path)], capture_output=True, text=True, check=True).stdout
    root = ET.fromstring(xml)
    objects = {}
    for tag in ("Group", "Dataset"):
        for e in root.iter(f"{{{NS['h']}}}{tag}"):
            objects[e.get("H5Path").strip()] = e
    return objects


def check_global_file(h5dump, path, v):
    """The global file of global_file.f90: t(nx = 5, ny = 12) as the dataset
    /temperature of shape [12, 5], t(i, j) at [j - 1][i - 1]; counts(24) as
    /fields/counts."""
    objects = read_objects(h5dump, path)
    for name in ("/temperature", "/fields", "/fields/counts"):
        if name not in objects:
            fail(f"{path}: no {name} among {sorted(objects)}")
    t = objects["/temperature"]
    expected = [1000 * v + 10 * j + i + 0.5 for j in range(1, 13) for i in range(1, 6)]
    if shape(t) != [12, 5] or values(t) != expected:
        fail(f"{path}: temperature has shape {shape(t)} and values {values(t)}, expected [12, 5] and {expected}")
    c = objects["/fields/counts"]
    expected = [1000 * v + k for k in range(1, 25)]
    if shape(c) != [24] or values(c) != expected:
        fail(f"{path}: counts has shape {shape(c)} and values {values(c)}")


def check_file(h5dump, path, rank, v):
    objects = read_objects(h5dump, path)
    want = {"/Dataset_4", "/fields", "/fields/physics", "/fields/physics/temperature", "/renamed", "/renamed/grid",
            "/steps"}
    if set(objects) != want:
        fail(f"{path}: objects {sorted(objects)}, expected {sorted(want)}")

    def attrs(name):
        return {a.get("Name"): values(a) for a in objects[name].findall("h:Attribute", NS)}

    base = 1000 * v + 100 * rank
    # temperature(nx = 4, ny = 3), described as [3, 4]: temperature(i, j)
    # is element [j - 1][i - 1] in C order, as h5dump lists them.
    t = objects["/fields/physics/temperature"]
    if shape(t) != [3, 4]:
        fail(f"{path}: temperature has shape {shape(t)}, expected [3, 4]")
    expected = [base + 10 * j + i + 0.25 for j in range(1, 4) for i in range(1, 5)]
    if values(t) != expected:
        fail(f"{path}: temperature holds {values(t)}, expected {expected}")
    if set(attrs("/fields/physics/temperature")):
        fail(f"{path}: temperature has the attributes {sorted(attrs('/fields/physics/temperature'))}")

    s = objects["/steps"]
    if shape(s) != [5] or values(s) != [base + i for i in range(1, 6)]:
        fail(f"{path}: steps has shape {shape(s)} and values {values(s)}")
    a = attrs("/steps")
    if a.get("name") != "steps of the run" or a.get("dim") != [5]:
        fail(f"{path}: steps has the attributes {a}")

    # grid(2, 3, 4), described as [4, 3, 2]; its "dim" attribute keeps the
    # order it was given in, [2, 3, 4].
    g = objects["/renamed/grid"]
    expected = [base + 10 * k + 3 * j + i for k in range(1, 5) for j in range(1, 4) for i in range(1, 3)]
    if shape(g) != [4, 3, 2] or values(g) != expected:
        fail(f"{path}: grid has shape {shape(g)} and values {values(g)}")
    a = attrs("/renamed/grid")
    if a.get("name") != "Fortran grid(2, 3, 4)" or a.get("dim") != [2, 3, 4]:
        fail(f"{path}: grid has the attributes {a}")

    # The calls whose flag did not match their form set nothing.
    if set(attrs("/Dataset_4")) or shape(objects["/Dataset_4"]) != [1]:
        fail(f"{path}: Dataset_4 has the attributes {sorted(attrs('/Dataset_4'))}")


def main():
    h5dump, workdir, level, ckpt, ranks, v = sys.argv[1:7]
    if level == "global":
        # h5_single_file_keep = 0: the newest file alone is left.
        files = sorted((Path(workdir) / "vpr").glob("*.h5"))
        want = f"VPR-h5-ID{int(ckpt):08d}.h5"
        if [f.name for f in files] != [want]:
            fail(f"global files {[f.name for f in files]}, expected [{want}]")
        check_global_file(h5dump, files[0], int(v))
        print(f"hdf5 check: the global file of checkpoint {ckpt} ({ranks} ranks) reads as expected with h5dump")
        return
    top = Path(workdir) / {"l1": "local", "l4": "global"}[level]
    for rank in range(int(ranks)):
        files = sorted(top.rglob(f"Ckpt{ckpt}-Rank{rank}.h5"))
        if len(files) != 1:
            fail(f"{len(files)} files Ckpt{ckpt}-Rank{rank}.h5 under {top}: {files}")
        check_file(h5dump, files[0], rank, int(v))
    print(f"hdf5 check: the {level} files of checkpoint {ckpt} read as expected with h5dump")


if __name__ == "__main__":
    main()
