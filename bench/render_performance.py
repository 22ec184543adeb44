#!/usr/bin/python3
"""Renders docs/performance.md from the results of bench/run_bench.py: the
template bench/performance.md.in with the machine, the table of every case,
every target with its ratio, and one plot (PNG) per level.

    /usr/bin/python3 bench/render_performance.py bench-results.json... [--docs docs]

Several result files (say, one run of the bench per size) are merged into
one document; a case measured in more than one file takes the last file's
figures.

Needs matplotlib (Debian: apt-get install -y python3-matplotlib; run it with
the system Python that package belongs to).
"""
import argparse
import json
import os

import figures
import render_compression
import render_long_runs
import render_scaling
import run_bench

HERE = os.path.dirname(os.path.abspath(__file__))


def case_name(r):
    return run_bench.result_name(r)


def gbs(nbytes, seconds):
    return nbytes / 1e9 / seconds if seconds > 0 else 0.0


def cores_busy(r, what, seconds_key, cores):
    """run_bench.cores_share as "used + taken"; "—" in results from before
    the bench measured it."""
    share = run_bench.cores_share(r, what, seconds_key, cores)
    return "—" if share is None else f"{share[0]:.2f} + {share[1]:.2f}"


def machine_text(m):
    return (f"{m.get('cpu', 'unknown CPU')}, {m.get('cores', '?')} cores, {m.get('memory_gib', '?')} GiB, "
            f"Linux {m.get('kernel', '?')}, checkpoints on {m.get('file_system', '?')}"
            + ("; free memory reported to the host (virtio balloon)" if m.get("free_page_reporting") == "yes" else ""))


def other_machine(r, machine):
    """The machine of a row measured on another machine than the document's
    (the first result file's), else None."""
    m = r.get("machine")
    return m if m and m.get("cpu") != machine.get("cpu") else None


def table(results, cores, machine):
    rows = ["| case | ranks | MiB/rank | files | checkpoint [s] | GB/s | raw write+fsync [s] | ratio | "
            "recovery cold [s] | raw read+CRC cold [s] | ratio | recovery warm [s] | written / protected | "
            "peak RSS beyond data [MiB] | cores used + taken by the host: checkpoint; recovery cold |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        p = r["protected_bytes"]
        busy = (f"{cores_busy(r, 'checkpoint', 'checkpoint_s', cores)}; "
                f"{cores_busy(r, 'recover_cold', 'recover_cold_s', cores)}")
        mark = " †" if other_machine(r, machine) else ""
        rows.append(
            f"| {case_name(r)}{mark} | {r['ranks']} | {r['mib']} | {int(r['files'])} | {r['checkpoint_s']:.3f} | "
            f"{gbs(p, r['checkpoint_s']):.2f} | {r['raw_write_s']:.3f} | {run_bench.checkpoint_ratio(r):.2f} | "
            f"{r['recover_cold_s']:.3f} | {r['raw_read_cold_s']:.3f} | "
            f"{run_bench.recover_ratio(r):.2f} | {r['recover_warm_s']:.3f} | "
            f"{r['bytes_written'] / p:.2f} | {r['rss_extra_bytes'] / 2**20:.1f} | {busy} |")
    others = {machine_text(m) for m in (other_machine(r, machine) for r in results) if m}
    for text in sorted(others):
        rows.append(f"\n† Measured on another machine, with its yardsticks in the same launches: {text}.")
    return "\n".join(rows)


def limits(results, machine):
    rows = ["| ranks | MiB/rank | memcpy GB/s | MD5 GB/s (all ranks) | MPI ring GB/s | ISA-L encode GB/s (raw) | "
            "through mlckpt |", "|---:|---:|---:|---:|---:|---:|---:|"]
    seen = set()
    for r in results:
        key = (r["ranks"], r["mib"])
        if key in seen and r["level"] != 3:
            continue
        seen.add(key)
        p = r["protected_bytes"]
        isal = lib = "—"
        if "isal_raw_s" in r:
            k = r.get("group_size", 4)
            isal = f"{gbs(p * k, r['isal_raw_s']):.2f}"
            lib = f"{gbs(p * k, r['isal_library_s']):.2f}"
        mark = " †" if other_machine(r, machine) else ""
        rows.append(f"| {r['ranks']}{mark} | {r['mib']} | {gbs(p, r['memcpy_s']):.2f} | {gbs(p, r['md5_s']):.2f} | "
                    f"{gbs(p, r['mpi_ring_s']):.2f} | {isal} | {lib} |")
    return "\n".join(rows)


def targets(report):
    rows = ["| | case | target | value |", "|---|---|---|---:|"]
    elsewhere = {case_key(r) for r in report["results"] if other_machine(r, report["machine"])}
    for t in report["targets"]:
        verdict = "info" if t["met"] is None else "met" if t["met"] else "**missed**"
        mark = " †" if t["case"] in elsewhere else ""
        rows.append(f"| {verdict} | {t['case']}{mark} | {t['target']} | {t['value']:.2f} |")
    return "\n".join(rows)


def plots(results, docs):
    plt = figures.pyplot()
    lines = []
    # One plot per level, and one per level and mode of the background work.
    for level, mode in sorted({(r["level"], r.get("mode", "")) for r in results}):
        cases = [r for r in results if r["level"] == level and r.get("mode", "") == mode]
        labels = [f"{run_bench.IO_NAMES[r['io']]}\n{r['ranks']}x{r['mib']} MiB" for r in cases]
        x = range(len(cases))
        fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(cases)), 4))
        width = 0.2
        single = level == run_bench.SINGLE_FILE  # its raw figures are the shared file's, through MPI-IO
        series = [("checkpoint", [gbs(r["protected_bytes"], r["checkpoint_s"]) for r in cases]),
                  ("raw shared-file write (MPI-IO)+sync" if single else "raw write+fsync",
                   [gbs(r["protected_bytes"], r["raw_write_s"]) for r in cases]),
                  ("recovery (cold)", [gbs(r["protected_bytes"], r["recover_cold_s"]) for r in cases]),
                  ("raw shared-file read (MPI-IO)+CRC (cold)" if single else "raw read+CRC (cold)",
                   [gbs(r["protected_bytes"], r["raw_read_cold_s"]) for r in cases])]
        for i, (name, values) in enumerate(series):
            ax.bar([v + (i - 1.5) * width for v in x], values, width, label=name)
        ax.set_xticks(list(x))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_ylabel("GB/s of protected data")
        title = {8: "L4 differential", run_bench.SINGLE_FILE: "L4 HDF5 single file"}.get(level, f"L{level}")
        title += f" {mode}" if mode else ""
        ax.set_title(f"{title}: mlckpt beside the machine's limits")
        ax.legend(fontsize=8)
        lines.append(figures.save(fig, docs, f"level{level}{'-' + mode if mode else ''}.png", title, 90))
    return "\n\n".join(lines)


def case_key(r):
    return f"{case_name(r)}, {r['ranks']} ranks x {r['mib']} MiB"


def time_to_solution(tts):
    rows = ["| checkpoints at L4 POSIX | MPI thread level | ranks | MiB/rank | iterations | checkpoints | "
            "blocking per checkpoint [s] | time [s] | without checkpoints [s] | ratio |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for t in tts:
        rows.append(f"| {t['mode']} | MPI_THREAD_{t['thread'].upper()} | {t['ranks']} | {t['mib']} | "
                    f"{t['iterations']} | {t['checkpoints']} | {t['median_blocking_s']:.3f} | {t['seconds']:.2f} | "
                    f"{t['none_s']:.2f} | {t['vs_none']:.3f} |")
    return "\n".join(rows) if tts else "(not measured)"


def restart_integrity(results):
    """Cold restarts with the integrity settled at FTI_Init (verify_at_init
    = 1) and with the data checked once while read (0), beside the raw
    read + CRC-32 of the same bytes in the same launches."""
    rows = ["| case | ranks | MiB/rank | raw read+CRC cold [s] | restart, verify_at_init = 1 [s] | of which FTI_Init "
            "[s] | ratio | restart, verify_at_init = 0 [s] | of which FTI_Init [s] | ratio | cost of 1 over 0 |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in results:
        if "recover_cold_single_read_s" not in r:
            continue
        rows.append(f"| {case_name(r)} | {r['ranks']} | {r['mib']} | {r['raw_read_cold_s']:.3f} | "
                    f"{r['recover_cold_s']:.3f} | {r['init_cold_s']:.3f} | {run_bench.recover_ratio(r):.2f} | "
                    f"{r['recover_cold_single_read_s']:.3f} | {r['init_cold_single_read_s']:.3f} | "
                    f"{r['recover_single_read_vs_raw']:.2f} | "
                    f"{r['recover_cold_s'] / r['recover_cold_single_read_s']:.2f} |")
    return "\n".join(rows) if len(rows) > 2 else "(not measured)"


def merge(reports):
    """One report from several: cases ordered by size, then ranks, in the
    order the bench ran them; later files replace a case's figures."""
    by_case, order = {}, []
    by_tts = {}
    for report in reports:
        for t in report.get("time_to_solution", []):
            key = run_bench.tts_name(t)
            by_tts[key] = (t, [x for x in report["targets"] if x["case"] == key])
        for r in report["results"]:
            r = dict(r, machine=report["machine"])
            key = case_key(r)
            if key not in by_case:
                order.append(key)
            by_case[key] = (r, [t for t in report["targets"] if t["case"] == key])
    order.sort(key=lambda key: (by_case[key][0]["mib"], by_case[key][0]["ranks"]))
    return {"machine": reports[0]["machine"], "runs": min(report["runs"] for report in reports),
            "results": [by_case[key][0] for key in order],
            "time_to_solution": [t for t, _ in by_tts.values()],
            "targets": [t for key in order for t in by_case[key][1]] + [x for _, xs in by_tts.values() for x in xs]}


def integrity_results(paths):
    results = []
    for path in paths:
        with open(path) as f:
            results += json.load(f)["results"]
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results", nargs="+")
    p.add_argument("--docs", default=os.path.join(HERE, "..", "docs"))
    p.add_argument("--restart-integrity", action="append", default=[], metavar="RESULTS",
                   help="results (run_bench.py at this version) for the table of the restart's integrity "
                        "check only, kept out of the main table")
    p.add_argument("--scaling", action="append", default=[], metavar="RESULTS",
                   help="results of run_bench.py --scaling, for the scaling section")
    p.add_argument("--long-runs", action="append", default=[], metavar="RESULTS",
                   help="results of run_bench.py --long-runs, for the section on long runs")
    p.add_argument("--compression", action="append", default=[], metavar="RESULTS",
                   help="results of run_bench.py --compression, for the section on compression")
    args = p.parse_args()
    reports = []
    for path in args.results:
        with open(path) as f:
            reports.append(json.load(f))
    report = merge(reports)
    results = report["results"]
    m = report["machine"]
    machine = machine_text(m) + f"; medians of {report['runs']} runs"
    with open(os.path.join(HERE, "performance.md.in")) as f:
        text = f.read()
    for key, value in (("MACHINE", machine), ("TABLE", table(results, m.get("cores"), m)), ("LIMITS", limits(results, m)),
                       ("TARGETS", targets(report)), ("PLOTS", plots(results, args.docs)),
                       ("TIME_TO_SOLUTION", time_to_solution(report["time_to_solution"])),
                       ("RESTART_INTEGRITY", restart_integrity(integrity_results(args.restart_integrity))),
                       ("SCALING", render_scaling.section(args.scaling, args.docs)),
                       ("LONG_RUNS", render_long_runs.section(args.long_runs, args.docs)),
                       ("COMPRESSION", render_compression.section(args.compression))):
        text = text.replace("{{" + key + "}}", value)
    with open(os.path.join(args.docs, "performance.md"), "w") as f:
        f.write(text)
    print(f"render_performance: wrote {os.path.join(args.docs, 'performance.md')}")


if __name__ == "__main__":
    main()
