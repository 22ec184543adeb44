"""The compression section of docs/performance.md, from the results of
run_bench.py --compression (bench/compression_bench.cpp): each codec's ratio
and speed per core beside memcpy and the raw write; a rank's checkpoint file
written and read back, compressed or not; and the L4 checkpoint time on a
shared parallel file system, from a model of the measured rates. Used by
render_performance.py --compression FILE."""
import json

# The model's node: ranks that each compress on a core of their own and
# share the node's bandwidth to the parallel file system.
RANKS_PER_NODE = 32
NODE_BANDWIDTHS_GBS = (0.25, 1.0)


def load(paths):
    """The last file's results (one run of compression_bench)."""
    result = None
    for path in paths:
        with open(path) as f:
            result = json.load(f)
    return result


def codec_label(c):
    return c["codec"] if c["codec"] != "zfp" else f"zfp ±{c['bound']:g}"


def markdown(header, rows):
    """A markdown table of `header` cells and rows of cells."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def codec_table(result):
    rows = []
    for s in result["sets"]:
        for i, c in enumerate(s["codecs"]):
            first = i == 0
            rows.append([s["name"] if first else "", f"{s['memcpy_gbs']:.1f}" if first else "",
                         f"{s['raw_write_gbs']:.2f}" if first else "", codec_label(c), f"{c['ratio']:.2f}",
                         f"{c['compress_gbs_per_core']:.2f} ({c['compress_gbs_all']:.2f})",
                         f"{c['decompress_gbs_per_core']:.2f} ({c['decompress_gbs_all']:.2f})"])
    return markdown(["data", "memcpy GB/s", "raw write GB/s", "codec", "ratio",
                     "compress GB/s per core (all cores)", "decompress GB/s per core (all cores)"], rows)


def file_table(result):
    rows = []
    for s in result["sets"]:
        by_codec = {r["codec"]: r for r in s["file"]}
        none = by_codec["none"]
        row = [s["name"], f"{none['write_gbs']:.2f}, {none['read_gbs']:.2f}"]
        for codec in ("lz4", "zstd"):
            r = by_codec[codec]
            row.append(f"{r['write_gbs']:.2f}, {r['read_gbs']:.2f} ({r['read_gbs'] / none['read_gbs']:.2f})")
        rows.append(row)
    return markdown(["data", "none: write, read GB/s", "lz4: write, read GB/s (read vs none)",
                     "zstd: write, read GB/s (read vs none)"], rows)


def hdf5_table(result):
    """HDF5 files with and without HDF5's filters; "" for results without them."""
    rows = []
    for s in result["sets"]:
        if "hdf5" not in s:
            return ""
        by = {r["filters"]: r for r in s["hdf5"]}
        none, packed = by["none"], by["shuffle+deflate"]
        rows.append([s["name"], f"{none['write_gbs']:.2f}, {none['read_gbs']:.2f}",
                     f"{packed['write_gbs']:.2f}, {packed['read_gbs']:.2f}",
                     f"{packed['write_gbs'] / none['write_gbs']:.2f}, {packed['read_gbs'] / none['read_gbs']:.2f}"])
    return markdown(["data", "no filters: write, read GB/s", "shuffle + deflate: write, read GB/s",
                     "filtered vs none: write, read"], rows)


def l4_speedup(codec, node_gbs):
    """Uncompressed time over compressed time of an L4 checkpoint, per GB a
    rank writes: the rank compresses on its core while its earlier batches
    are written (the writer overlaps them), the node's ranks share
    `node_gbs`."""
    share = node_gbs / RANKS_PER_NODE
    uncompressed = 1 / share
    compressed = max(1 / codec["compress_gbs_per_core"], 1 / (codec["ratio"] * share))
    return uncompressed / compressed


def model_table(result):
    rows = []
    for s in result["sets"]:
        for c in s["codecs"]:
            rows.append([s["name"], codec_label(c)] + [f"{l4_speedup(c, b):.2f}×" for b in NODE_BANDWIDTHS_GBS] +
                        [f"{100 / c['ratio']:.0f} %"])
    return markdown(["data", "codec"] + [f"L4 at {b:g} GB/s per node" for b in NODE_BANDWIDTHS_GBS] +
                    ["L2/L3 bytes on the wire"], rows)


def section(paths):
    """The tables; "" without results."""
    result = load(paths)
    if not result:
        return ""
    return "\n\n".join([
        f"{result['mib']} MiB per data set, blocks of {result['block_bytes'] // 1024} KiB, {result['cores']} cores.",
        codec_table(result),
        "A rank's POSIX checkpoint file written with the library's writer (synced) and read back with its "
        "reader from storage (the file's pages dropped from the page cache first), on this machine's local "
        "disk:",
        file_table(result),
        *([] if not hdf5_table(result) else [
            "The same variable as a rank's HDF5 file (`ckpt_io = 5`, one dataset of its elements), without "
            "filters and with HDF5's shuffle and deflate (level 1), which HDF5 runs on one core:",
            hdf5_table(result)]),
        f"The L4 checkpoint on a shared parallel file system, modelled from the rates above (this machine "
        f"cannot limit its disk's bandwidth: its cgroups are version 1, whose throttle misses buffered "
        f"writes): {RANKS_PER_NODE} ranks per node, each compressing on its own core while its earlier "
        f"batches are written, sharing the node's bandwidth; the time without compression over the time "
        f"with it, and the bytes an L2 copy or L3 parity moves, against uncompressed:",
        model_table(result),
    ])
