"""The long-runs section of docs/performance.md, from the results of
run_bench.py --long-runs (bench/long_runs.py): time per checkpoint and
memory held against the checkpoint's number over a thousand checkpoints,
and the checkpoint's time and memory against the protected variables,
mlckpt and FTI beside each other. Used by render_performance.py
--long-runs FILE."""
import statistics

import figures
from render_scaling import load  # the results of every file given

WINDOW = 25  # checkpoints per point of the time plots: the median of each window


def case_label(r):
    levels = "".join(str(x) for x in r["levels"])
    return f"{r['impl']} L{levels} io {r['io']}" + (" heads" if r["heads"] else "")


def windowed(values):
    """(checkpoint numbers, medians) of consecutive windows of WINDOW."""
    xs, ys = [], []
    for start in range(0, len(values) - WINDOW + 1, WINDOW):
        xs.append(start + WINDOW)
        ys.append(statistics.median(values[start:start + WINDOW]))
    return xs, ys


def checkpoint_plots(runs, docs):
    plt = figures.pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    look = figures.styles({case_label(r) for r in runs})
    for r in runs:
        style = look[case_label(r)]
        axes[0].plot(*windowed(r["checkpoint_s"]), label=case_label(r), **style)
        x = range(1, len(r["heap_mib"]) + 1)
        axes[1].plot(x, r["heap_mib"], label=case_label(r), **style)
        axes[2].plot(x, r["descriptors"], label=case_label(r), **style)
    titles = (f"FTI_Checkpoint, slowest rank, median of each {WINDOW} [s]", "heap in use, most of any rank [MiB]",
              "open descriptors, most of any rank")
    for ax, title in zip(axes, titles):
        ax.set_xlabel("checkpoint")
        ax.set_title(title, fontsize=9)
        ax.grid(True, alpha=0.3)
    axes[0].set_yscale("log")
    axes[0].legend(fontsize=7)
    return figures.save(fig, docs, "long-runs-checkpoints.png", "long runs: 1,000 checkpoints", 80)


def variable_plots(runs, docs):
    plt = figures.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    look = figures.styles({case_label(r) for r in runs})
    for impl in sorted({r["impl"] for r in runs}):
        mine = sorted((r for r in runs if r["impl"] == impl), key=lambda r: r["vars"])
        label = case_label(mine[0])
        xs = [r["vars"] for r in mine]
        axes[0].plot(xs, [statistics.median(r["checkpoint_s"]) for r in mine], marker="o", label=label, **look[label])
        axes[1].plot(xs, [r["heap_mib"][-1] for r in mine], marker="o", label=label, **look[label])
    for ax, title in zip(axes, ("FTI_Checkpoint, median [s]", "heap in use after the last checkpoint [MiB]")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("protected variables")
        ax.set_title(title, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7)
    return figures.save(fig, docs, "long-runs-variables.png", "long runs: protected variables", 80)


def checkpoint_table(runs):
    rows = ["| case | checkpoints | first tenth, median [s] | last tenth, median [s] | "
            "heap growth per checkpoint after the first tenth [B] | descriptors then; at the end | "
            "files kept (local; global; meta) | restart: FTI_Init [s] |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in sorted(runs, key=lambda r: (case_label(r).split(" ", 1)[1], r["impl"])):
        s = r["summary"]
        kept = r["files_kept"]
        rows.append(f"| {case_label(r)} | {r['checkpoints']} | {s['first_tenth_s']:.4f} | {s['last_tenth_s']:.4f} | "
                    f"{s['heap_growth_bytes_per_checkpoint']:.1f} | {s['descriptors'][0]:.0f}; "
                    f"{s['descriptors'][1]:.0f} | {kept['local']}; {kept['global']}; {kept['meta']} | "
                    f"{r['restart_init_s']:.3f} |")
    return "\n".join(rows)


def variable_table(runs):
    rows = ["| case | variables | checkpoint, median [s] | per variable [µs] | heap in use [MiB] | "
            "restart: FTI_Init; FTI_Recover [s] |",
            "|---|---:|---:|---:|---:|---:|"]
    for r in sorted(runs, key=lambda r: (r["impl"], r["vars"])):
        median = statistics.median(r["checkpoint_s"])
        rows.append(f"| {case_label(r)} | {r['vars']} | {median:.4f} | {1e6 * median / r['vars']:.2f} | "
                    f"{r['heap_mib'][-1]:.2f} | {r['restart_init_s']:.3f}; {r['recover_s']:.3f} |")
    return "\n".join(rows)


def section(paths, docs):
    """The plots and tables; "" without results."""
    results = load(paths)
    if not results:
        return ""
    long_runs = [r for r in results if r["kind"] == "checkpoints"]
    sweep = [r for r in results if r["kind"] == "variables"]
    parts = []
    if long_runs:
        parts += [checkpoint_plots(long_runs, docs), checkpoint_table(long_runs)]
    if sweep:
        parts += [variable_plots(sweep, docs), variable_table(sweep)]
    return "\n\n".join(parts)
