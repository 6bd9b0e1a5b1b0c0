"""The one style of every dbrepro figure, and how figures are saved.

    from figures import style          # or `import style` from figures/
    style.use()
    fig, ax = style.figure()
    ...
    style.save(fig, ["out.png", "out.pdf"])
"""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; no display needed (CI, Snakemake jobs)

import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
from matplotlib.ticker import StrMethodFormatter  # noqa: E402

STYLE_FILE = Path(__file__).with_name("dbrepro.mplstyle")

# Axis labels name the quantity and its unit; shared so figures agree.
LABELS = {
    "throughput": "throughput (transactions/s)",
    "warehouses": "warehouses (TPC-C scale factor)",
    "latency_us": "mean latency (µs per transaction)",
    "instructions": "instructions per transaction (thousands)",
    "threads": "concurrent clients (threads)",
    "seconds": "time (s)",
}

# A fixed colour and marker per variant, the same in every figure.
VARIANT_STYLE = {
    "paper": {"color": "#0072B2", "marker": "o", "label": "paper (Harizopoulos et al. 2008 inputs)"},
    "spec": {"color": "#D55E00", "marker": "s", "label": "spec (TPC-C inputs)"},
}

# Without these, the same data gives different PDF/PNG bytes on every run.
_DETERMINISTIC_METADATA = {
    "pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None},
    "png": {"Software": None},
}


def use() -> None:
    plt.style.use(STYLE_FILE)


def figure(**kwargs):
    """A figure and axes in the house style."""
    use()
    return plt.subplots(**kwargs)


def thousands(axis) -> None:
    """Tick labels like 12,500 rather than 12500 or 1.25e4."""
    axis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))


def save(fig, paths) -> list[Path]:
    """Save `fig` to every path (format from the suffix) and close it."""
    written = []
    for path in map(Path, paths):
        path.parent.mkdir(parents=True, exist_ok=True)
        metadata = _DETERMINISTIC_METADATA.get(path.suffix.lstrip(".").lower())
        fig.savefig(path, metadata=metadata)
        written.append(path)
    plt.close(fig)
    return written


ARTICLE_DISTRIBUTION = "special"  # E2: how the article's sysbench drew its points


def article_distribution(table):
    """E2's rows whose points were drawn as the article's were (all rows of a table without the axis)."""
    if "distribution" not in table.columns:
        return table
    return table[table["distribution"] == ARTICLE_DISTRIBUTION].reset_index(drop=True)


def table_figure_main(plot, doc: str, table_help: str, argv=None) -> int:
    """The command line of a figure drawn from one CSV table: TABLE OUTPUT..."""
    import argparse

    import pandas as pd

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("table", help=table_help)
    parser.add_argument("outputs", nargs="+", help="figure files to write; format from the suffix (.png, .pdf)")
    args = parser.parse_args(argv)
    save(plot(pd.read_csv(args.table)), args.outputs)
    return 0
