"""Reads mlckpt's HDF5 checkpoint files with h5py alone, as a user would, and
compares what it finds with what the test (tests/mpi/hdf5_test.cpp,
Hdf5.FileReadsWithoutMlckpt) protected: names, groups, shapes, types and
values, and each dataset's CRC-32 attribute.

usage: h5py_check.py WORKDIR FILES_ROOT RANKS
"""
import pathlib
import sys
import zlib

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
        found = list(root.rglob(f"Ckpt1-Rank{rank}.fti"))
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

            blobs = f["renamed/blobs"]
            expect(blobs.shape == (4,) and blobs.dtype == np.dtype(("u1", (12,))), f"blobs {blobs.shape} {blobs.dtype}")
            expect(blobs[()].shape == (4, 12), f"blobs read as {blobs[()].shape}")
            expect(blobs[()].tobytes() == expected(3), f"rank {rank}: blobs values")

            steps = f["steps"]
            expect(steps.dtype == np.dtype("<u8") and steps.shape == (5,), f"steps {steps.shape} {steps.dtype}")
            expect(steps[()].tobytes() == expected(4), f"rank {rank}: steps values")
            expect(steps.attrs["name"] == b"steps of the run", f"steps name attribute {steps.attrs['name']!r}")
            expect(list(steps.attrs["dim"]) == [5], f"steps dim attribute {steps.attrs['dim']!r}")

            for var, path in enumerate(["fields/physics/temperature", "Dataset_1", "fields/cells", "renamed/blobs",
                                        "steps"]):
                d = f[path]
                expect(int(d.attrs["mlckpt_id"]) == var, f"{path}: mlckpt_id {d.attrs['mlckpt_id']}")
                expect(int(d.attrs["mlckpt_crc32"]) == zlib.crc32(expected(var)), f"{path}: mlckpt_crc32")
    expect(ranks > 0, "no rank to check")
    print(f"h5py: {ranks} files read, every dataset as protected")


main()
