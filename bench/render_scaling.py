"""The scaling section of docs/performance.md, from the results of
run_bench.py --scaling (bench/scaling.py): plots against the number of
ranks (log-log), mlckpt and FTI beside each other case for case, and a
table of every figure. Used by render_performance.py --scaling FILE."""
import json
import os

PER_LAUNCH = ("write", "restart")


def load(paths):
    results = []
    for path in paths:
        with open(path) as f:
            results += json.load(f)["results"]
    return results


def case_label(r):
    return f"{r['impl']} L{r['level']} io {r['io']}" + (" heads" if r["heads"] else "")


def series(results, value):
    """{label: ([ranks], [value])}, each sorted by the number of ranks."""
    out = {}
    for r in sorted(results, key=lambda r: r["world"]):
        v = value(r)
        if v is None:
            continue
        xs, ys = out.setdefault(case_label(r), ([], []))
        xs.append(r["world"])
        ys.append(v)
    return out


def fs_ops_per_checkpoint(r, where, stat):
    """File-system operations of the checkpoint phase per checkpoint: the
    total over all processes, or the most one process made ("max")."""
    ops = r["fs_ops"]["write"].get("checkpoint", {}).get(where, {})
    return sum(o[stat] for o in ops.values()) / r["checkpoints"]


PANELS = [
    ("time", "FTI_Init, fresh run [s]", lambda r: r["init_s"]),
    ("time", "FTI_Checkpoint, median [s]", lambda r: r["checkpoint_s"]),
    ("time", "FTI_Init at restart (selection) [s]", lambda r: r["restart_init_s"]),
    ("time", "FTI_Finalize after restart [s]", lambda r: r["finalize_s"]),
    ("traffic", "bytes received by the busiest rank, write launch",
     lambda r: r["traffic"]["write"]["received"]["max"]),
    ("traffic", "bytes received by the median rank, write launch",
     lambda r: r["traffic"]["write"]["received"]["median"]),
    ("traffic", "bytes received by the busiest rank, restart launch",
     lambda r: r["traffic"]["restart"]["received"]["max"]),
    ("traffic", "bytes sent by rank 0, restart launch", lambda r: r["traffic"]["restart"]["sent"]["rank0"]),
    ("resources", "peak resident memory, median rank [MiB]", lambda r: r["peak_rss_mib"]["write"]["median"]),
    ("resources", "peak resident memory, rank 0 [MiB]", lambda r: r["peak_rss_mib"]["write"]["rank0"]),
    ("resources", "shared file system: operations per checkpoint, all ranks",
     lambda r: fs_ops_per_checkpoint(r, "shared", "total") or None),
    ("resources", "file-system operations per checkpoint, busiest process",
     lambda r: max(fs_ops_per_checkpoint(r, "shared", "max"), fs_ops_per_checkpoint(r, "local", "max")) or None),
]


def plots(results, docs):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    out_dir = os.path.join(docs, "performance")
    os.makedirs(out_dir, exist_ok=True)
    lines = []
    for group in ("time", "traffic", "resources"):
        panels = [p for p in PANELS if p[0] == group]
        fig, axes = plt.subplots(2, 2, figsize=(11, 8))
        for ax, (_, title, value) in zip(axes.flat, panels):
            for label, (xs, ys) in sorted(series(results, value).items()):
                ax.plot(xs, ys, marker="o", linestyle="--" if label.startswith("fti") else "-", label=label)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("ranks")
            ax.set_title(title, fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
        axes.flat[0].legend(fontsize=7)
        fig.tight_layout()
        name = f"scaling-{group}.png"
        fig.savefig(os.path.join(out_dir, name), dpi=80)
        plt.close(fig)
        lines.append(f"![scaling: {group}](performance/{name})")
    return "\n\n".join(lines)


def table(results):
    rows = ["| case | ranks | init [s] | checkpoint [s] | restart init [s] | finalize [s] | "
            "received, busiest rank: write; restart [B] | rank 0 sent at restart [B] | peak RSS median; rank 0 [MiB] | "
            "shared FS ops per checkpoint: all; busiest process |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in sorted(results, key=lambda r: (case_label(r).split(" ", 1)[1], r["world"], r["impl"])):
        t = r["traffic"]
        rows.append(
            f"| {case_label(r)} | {r['world']} | {r['init_s']:.3f} | {r['checkpoint_s']:.3f} | "
            f"{r['restart_init_s']:.3f} | {r['finalize_s']:.3f} | "
            f"{t['write']['received']['max']}; {t['restart']['received']['max']} | {t['restart']['sent']['rank0']} | "
            f"{r['peak_rss_mib']['write']['median']:.1f}; {r['peak_rss_mib']['write']['rank0']:.1f} | "
            f"{fs_ops_per_checkpoint(r, 'shared', 'total'):.1f}; {fs_ops_per_checkpoint(r, 'shared', 'max'):.1f} |")
    return "\n".join(rows)


def section(paths, docs):
    """The plots and the table; "" without results."""
    results = load(paths)
    if not results:
        return ""
    return plots(results, docs) + "\n\n" + table(results)
