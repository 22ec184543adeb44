"""The scaling section of docs/performance.md, from the results of
run_bench.py --scaling (bench/scaling.py): plots against the number of
ranks (log-log), mlckpt and FTI beside each other case for case, and a
table of every figure. Used by render_performance.py --scaling FILE."""
import json
import math

import figures

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


def checkpoint_traffic(r, direction, who):
    per = r["traffic"].get("checkpoint")
    return None if per is None else per[direction][who]


PANELS = [
    ("time", "FTI_Init, fresh run [s]", lambda r: r["init_s"]),
    ("time", "FTI_Checkpoint, median [s]", lambda r: r["checkpoint_s"]),
    ("time", "FTI_Init at restart (selection) [s]", lambda r: r["restart_init_s"]),
    ("time", "FTI_Finalize after restart [s]", lambda r: r["finalize_s"]),
    ("traffic", "bytes received per checkpoint, median rank",
     lambda r: checkpoint_traffic(r, "received", "median") or None),
    ("traffic", "bytes received per checkpoint, rank 0 (no heads)",
     lambda r: None if r["heads"] else checkpoint_traffic(r, "received", "rank0") or None),
    ("traffic", "bytes received by the median rank, restart launch",
     lambda r: r["traffic"]["restart"]["received"]["median"]),
    ("traffic", "bytes sent by rank 0, restart launch", lambda r: r["traffic"]["restart"]["sent"]["rank0"]),
    ("resources", "peak resident memory, median rank [MiB]", lambda r: r["peak_rss_mib"]["write"]["median"]),
    ("resources", "peak resident memory, rank 0 [MiB]", lambda r: r["peak_rss_mib"]["write"]["rank0"]),
    ("resources", "shared file system: operations per checkpoint, all ranks",
     lambda r: fs_ops_per_checkpoint(r, "shared", "total") or None),
    ("resources", "file-system operations per checkpoint, busiest process",
     lambda r: max(fs_ops_per_checkpoint(r, "shared", "max"), fs_ops_per_checkpoint(r, "local", "max")) or None),
]


def plots(results, docs):
    plt = figures.pyplot()
    lines = []
    for group in ("time", "traffic", "resources"):
        panels = [p for p in PANELS if p[0] == group]
        fig, axes = plt.subplots(2, 2, figsize=(11, 8))
        look = figures.styles({case_label(r) for r in results})
        for ax, (_, title, value) in zip(axes.flat, panels):
            for label, (xs, ys) in sorted(series(results, value).items()):
                ax.plot(xs, ys, marker="o", label=label, **look[label])
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("ranks")
            ax.set_title(title, fontsize=9)
            ax.grid(True, which="both", alpha=0.3)
        axes.flat[0].legend(fontsize=7)
        lines.append(figures.save(fig, docs, f"scaling-{group}.png", f"scaling: {group}", 80))
    return "\n\n".join(lines)


def per_checkpoint_cell(r):
    median = checkpoint_traffic(r, "received", "median")
    if median is None:
        return "-"
    return f"{median:.0f}; " + ("(head)" if r["heads"] else f"{checkpoint_traffic(r, 'received', 'rank0'):.0f}")


def table(results):
    rows = ["| case | ranks | init [s] | checkpoint [s] | restart init [s] | finalize [s] | "
            "received per checkpoint: median rank; rank 0 [B] | received at restart: median rank [B] | "
            "rank 0 sent at restart [B] | peak RSS median; rank 0 [MiB] | "
            "shared FS ops per checkpoint: all; busiest process |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in sorted(results, key=lambda r: (case_label(r).split(" ", 1)[1], r["world"], r["impl"])):
        t = r["traffic"]
        rows.append(
            f"| {case_label(r)} | {r['world']} | {r['init_s']:.3f} | {r['checkpoint_s']:.3f} | "
            f"{r['restart_init_s']:.3f} | {r['finalize_s']:.3f} | "
            f"{per_checkpoint_cell(r)} | {t['restart']['received']['median']} | {t['restart']['sent']['rank0']} | "
            f"{r['peak_rss_mib']['write']['median']:.1f}; {r['peak_rss_mib']['write']['rank0']:.1f} | "
            f"{fs_ops_per_checkpoint(r, 'shared', 'total'):.1f}; {fs_ops_per_checkpoint(r, 'shared', 'max'):.1f} |")
    return "\n".join(rows)


# The per-rank and rank-0 quantities of docs/scaling.md's model: each fitted
# as a + b*f(N) over the runs of 8 ranks and more (all of the same shape,
# two ranks per node) and extrapolated.
MODELS = [
    ("bytes received per checkpoint, rank 0", "N", lambda n: n,
     lambda r: None if r["heads"] else checkpoint_traffic(r, "received", "rank0")),
    ("bytes received per checkpoint, median rank", "log2 N", math.log2,
     lambda r: checkpoint_traffic(r, "received", "median")),
    ("bytes received in the restart launch (FTI_Init to FTI_Finalize), median rank", "N", lambda n: n,
     lambda r: r["traffic"]["restart"]["received"]["median"]),
    ("peak resident memory, median rank [MiB]", "N", lambda n: n,
     lambda r: r["peak_rss_mib"]["write"]["median"]),
    # All processes together: a (rank 0's commit) + b (each rank's) * N;
    # a mean per process, a/N + b, fitted as a line would go negative.
    ("shared file-system operations per checkpoint, all processes", "N", lambda n: n,
     lambda r: fs_ops_per_checkpoint(r, "shared", "total")),
]
FIT_FROM = 8
EXTRAPOLATE = (10_000, 100_000)


def fit(xs, ys):
    """Least squares y = a + b*x: (a, b)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    var = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else 0.0
    return my - b * mx, b


def models(results):
    rows = ["| quantity | case | a + b·f(N), f(N) = | a | b | at 10⁴ ranks | at 10⁵ ranks |",
            "|---|---|---|---:|---:|---:|---:|"]
    for title, form, f, value in MODELS:
        for label, (xs, ys) in sorted(series([r for r in results if r["world"] >= FIT_FROM], value).items()):
            if len(xs) < 3:
                continue
            a, b = fit([f(x) for x in xs], ys)
            at = " | ".join(f"{a + b * f(n):.4g}" for n in EXTRAPOLATE)
            rows.append(f"| {title} | {label} | {form} | {a:.4g} | {b:.4g} | {at} |")
    return "\n".join(rows)


def section(paths, docs):
    """The plots, the table and the fitted models; "" without results."""
    results = load(paths)
    if not results:
        return ""
    return plots(results, docs) + "\n\n" + table(results) + "\n\n" + models(results)
