"""The figures of the rendered docs: matplotlib, loaded without a display,
and each figure saved under docs/performance/ with the Markdown line that
shows it."""
import os
import sys


def pyplot():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("rendering the docs needs matplotlib: apt-get install -y python3-matplotlib, "
                 "then run the script with /usr/bin/python3")
    return plt


def save(fig, docs, name, alt, dpi):
    """Writes `fig` to docs/performance/`name`; the line that shows it."""
    out_dir = os.path.join(docs, "performance")
    os.makedirs(out_dir, exist_ok=True)
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, name), dpi=dpi)
    pyplot().close(fig)
    return f"![{alt}](performance/{name})"



def styles(labels):
    """Line colour and style of each series labelled "<impl> <case>": one
    colour per case, the same for mlckpt and FTI (up to 20 cases), FTI
    dashed."""
    cmap = pyplot().get_cmap("tab20").colors
    palette = cmap[::2] + cmap[1::2]
    cases = sorted({label.partition(" ")[2] for label in labels})
    return {label: {"color": palette[cases.index(label.partition(" ")[2]) % len(palette)],
                    "linestyle": "--" if label.startswith("fti ") else "-"} for label in labels}
