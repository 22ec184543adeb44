"""Reads mlckpt's HDF5 checkpoint files with h5py alone, as a user would, and
compares what it finds with what the test (tests/mpi/hdf5_test.cpp,
Hdf5.FileReadsWithoutMlckpt) protected: names, groups, shapes, types (composite and opaque types
committed as FTI commits them) and values, and no attribute of mlckpt's.

usage: h5py_check.py WORKDIR FILES_ROOT RANKS
"""
import pathlib
import sys

import h5py
import numpy as np


def fail(message):
    print("FAIL:", message)
    sys.exit(1)


def expect(condition, message):
    if not condition:
        fail(message)


def main():
    workdir, root, ranks = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
    size, off_pos, off_id, off_w, off_tag = (int(x) for x in (workdir / "cell-layout.txt").read_text().split())
    cell = np.dtype({"names": ["pos", "id", "w", "tag"],
                     "formats": [("<f8", (3,)), "<i4", ("<f4", (2, 2)), "i1"],
                     "offsets": [off_pos, off_id, off_w, off_tag], "itemsize": size})
    for rank in range(ranks):
        found = list(root.rglob(f"Ckpt1-Rank{rank}.h5"))
        expect(len(found) == 1, f"rank {rank}: one checkpoint file, found {found}")

        def expected(var):
            return (workdir / f"expected-rank{rank}-var{var}").read_bytes()

        with h5py.File(found[0], "r") as f:
            datasets = []
            f.visititems(lambda name, obj: datasets.append(name) if isinstance(obj, h5py.Dataset) else None)
            expect(sorted(datasets) == sorted(["fields/physics/temperature", "Dataset_1", "fields/cells",
                                               "renamed/blobs", "steps"]), f"rank {rank}: datasets {datasets}")
            expect(isinstance(f["renamed"], h5py.Group), "group 'renamed'")

            t = f["fields/physics/temperature"]
            expect(t.shape == (6, 10) and t.dtype == np.dtype("<f8"), f"temperature {t.shape} {t.dtype}")
            expect(t[()].tobytes() == expected(0), f"rank {rank}: temperature values")

            c = f["Dataset_1"]
            expect(c.dtype == np.dtype("<i4") and c.shape == (7 + rank,), f"Dataset_1 {c.shape} {c.dtype}")
            expect(c[()].tobytes() == expected(1), f"rank {rank}: Dataset_1 values")

            cells = f["fields/cells"]
            expect(cells.shape == (5,), f"cells shape {cells.shape}")
            expect(cells.dtype.names == ("pos", "id", "w", "tag"), f"cells fields {cells.dtype.names}")
            want = np.frombuffer(expected(2), dtype=cell)
            got = cells[()]
            for field in cell.names:
                expect(got[field].shape == want[field].shape, f"cells.{field} shape {got[field].shape}")
                expect(np.array_equal(got[field], want[field]), f"rank {rank}: cells.{field} values")

            # Named datatypes, as FTI commits them: the composite Cell in the
            # root (no group given), the opaque type 12 as "Type12".
            expect(isinstance(f["Cell"], h5py.Datatype), "named datatype /Cell")
            expect(cells.id.get_type().committed(), "cells refer to /Cell")
            expect(isinstance(f["Type12"], h5py.Datatype), "named datatype /Type12")

            # FTI's opaque type, a 12-byte integer, has no numpy type: read
            # in the file's own type, into bytes.
            blobs = f["renamed/blobs"]
            expect(blobs.shape == (4,) and blobs.id.get_type().get_size() == 12, f"blobs {blobs.shape}")
            raw = np.empty(4 * 12, dtype="u1")
            blobs.id.read(h5py.h5s.ALL, h5py.h5s.ALL, raw, mtype=blobs.id.get_type())
            expect(raw.tobytes() == expected(3), f"rank {rank}: blobs values")

            steps = f["steps"]
            expect(steps.dtype == np.dtype("<u8") and steps.shape == (5,), f"steps {steps.shape} {steps.dtype}")
            expect(steps[()].tobytes() == expected(4), f"rank {rank}: steps values")
            expect(steps.attrs["name"] == b"steps of the run", f"steps name attribute {steps.attrs['name']!r}")
            expect(list(steps.attrs["dim"]) == [5], f"steps dim attribute {steps.attrs['dim']!r}")

            for var, path in enumerate(["fields/physics/temperature", "Dataset_1", "fields/cells", "renamed/blobs",
                                        "steps"]):
                extra = [a for a in f[path].attrs if a.startswith("mlckpt")]
                expect(not extra, f"{path}: attributes {extra} of mlckpt's")
    expect(ranks > 0, "no rank to check")
    print(f"h5py: {ranks} files read, every dataset as protected")


main()
