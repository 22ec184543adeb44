"""Reads with h5py alone the HDF5 files of the wrapper's tests
(tests/cpp/hdf5_test.cpp):

- the per-rank checkpoint files of CppHdf5.NamedDatasetsRoundTrip: the
  names, groups, shapes, types and attributes that the C++ wrapper gave the
  datasets, and their bytes;
- with --global, the single file of CppHdf5.GlobalFileRestartsOnTwoRanks:
  the global datasets as whole arrays.

usage: h5py_names.py WORKDIR FILES_ROOT RANKS
       h5py_names.py --global FILE
"""
import pathlib
import sys

import h5py
import numpy as np


def expect(condition, message):
    if not condition:
        print("FAIL:", message)
        sys.exit(1)


def raw_bytes(d):
    """The bytes of a dataset of FTI's opaque type (an n-byte integer, which
    numpy has no type for), read in the file's own type."""
    t = d.id.get_type()
    out = np.empty(d.size * t.get_size(), dtype="u1")
    d.id.read(h5py.h5s.ALL, h5py.h5s.ALL, out, mtype=t)
    return out.tobytes()


def check_global(path):
    rows, cols, particles = 10, 6, 13  # as the test declares them
    with h5py.File(path, "r") as f:
        grid = f["fields/grid"]
        expect(grid.shape == (rows, cols) and grid.dtype == np.dtype("<f8"), f"grid {grid.shape} {grid.dtype}")
        i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
        expect((grid[()] == (i * 1000 + j) / 8.0).all(), "grid values")
        p = f["particles"]
        expect(p.shape == (particles,) and p.id.get_type().get_size() == 16, f"particles {p.shape}")
        want = np.zeros(particles, dtype=np.dtype([("x", "<f8"), ("id", "<i4"), ("kind", "<i4")]))
        k = np.arange(particles)
        want["x"], want["id"], want["kind"] = k * 0.25, k, k % 3
        expect(raw_bytes(p) == want.tobytes(), "particles bytes")
    print(f"h5py: {path}: the global datasets as the application's arrays")


def main():
    if sys.argv[1] == "--global":
        check_global(sys.argv[2])
        return
    workdir, root, ranks = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
    # path: (variable id, shape or None for one dimension of the bytes' elements, numpy dtype)
    layout = {
        "fields/physics/temperature": (0, (6, 10), np.dtype("<f8")),
        "Dataset_1": (1, None, np.dtype("<i4")),
        "fields/cells": (2, (5,), None),  # an opaque type: bytes
        "steps": (3, (5,), np.dtype("<u8")),
        "renamed/blobs": (4, (2, 4), np.dtype("<f4")),
        "step": (5, (1,), np.dtype("<i8")),
        "renamed/inner/phases": (6, (3,), np.dtype("u1")),
    }
    for rank in range(ranks):
        found = list(root.rglob(f"Ckpt1-Rank{rank}.h5"))
        expect(len(found) == 1, f"rank {rank}: one checkpoint file, found {found}")
        with h5py.File(found[0], "r") as f:
            datasets = []
            f.visititems(lambda name, obj: datasets.append(name) if isinstance(obj, h5py.Dataset) else None)
            expect(sorted(datasets) == sorted(layout), f"rank {rank}: datasets {sorted(datasets)}")
            expect(isinstance(f["renamed/inner"], h5py.Group), "group 'renamed/inner'")
            expect("first_name" not in f, "the group's first name is gone")
            for path, (var, shape, dtype) in layout.items():
                expected = (workdir / f"expected-rank{rank}-{path.replace('/', '.')}").read_bytes()
                d = f[path]
                if dtype is None:  # an opaque type: FTI's n-byte integer, committed as FTI does
                    size = d.id.get_type().get_size()
                    expect(size == len(expected) // shape[0], f"{path}: elements of {size} bytes")
                    expect(d.id.get_type().committed(), f"{path}: a named datatype")
                else:
                    expect(d.dtype == dtype, f"{path}: dtype {d.dtype}, expected {dtype}")
                want = shape if shape is not None else (len(expected) // dtype.itemsize,)
                expect(d.shape == want, f"rank {rank}: {path}: shape {d.shape}, expected {want}")
                got = raw_bytes(d) if dtype is None else d[()].tobytes()
                expect(got == expected, f"rank {rank}: {path}: values")
                extra = [a for a in d.attrs if a.startswith("mlckpt")]
                expect(not extra, f"{path}: attributes {extra} of mlckpt's")
            steps = f["steps"]
            expect(steps.attrs["name"] == b"steps of the run", f"steps: name attribute {steps.attrs['name']!r}")
            expect(list(steps.attrs["dim"]) == [5] and steps.attrs["dim"].dtype == np.dtype("<u8"),
                   f"steps: dim attribute {steps.attrs['dim']!r}")
            expect("name" not in f["step"].attrs and "dim" not in f["step"].attrs, "step: no attributes set")
    expect(ranks > 0, "no rank to check")
    print(f"h5py: {ranks} files, every dataset named, grouped and shaped as the wrapper set")


main()
