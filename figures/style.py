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

# Every legend names who a number is from in the same words: the model (our
# engine's reproduction), the real system (the same workload on the product
# itself, e.g. MariaDB) and the original (the article's published numbers).
MODEL = "model (our engine)"
ORIGINAL = "original (article)"


def real(system: str) -> str:
    """The legend's name of a real system run beside the model, e.g. real("MariaDB 10.11")."""
    return f"real {system}"


def original(what: str = "") -> str:
    """The legend's name of the article's numbers, optionally saying which (a machine, a figure)."""
    return f"original: {what} (article)" if what else ORIGINAL


def model_policy(policy: str) -> str:
    """The legend's name of one replacement policy of our engine (E5)."""
    return f"{MODEL}: {policy}"


def model(what: str = "") -> str:
    """The legend's name of our engine's numbers, optionally saying which (a measure, a setting)."""
    return f"{MODEL}, {what}" if what else MODEL


# A fixed colour and marker per TPC-C input variant, the same in every figure.
# Both are our runs: the variant is which inputs the transactions drew.
VARIANT_STYLE = {
    "paper": {"color": "#0072B2", "marker": "o", "label": model("the paper's inputs (Harizopoulos et al. 2008)")},
    "spec": {"color": "#D55E00", "marker": "s", "label": model("the TPC-C specification's inputs")},
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
# E2's two draws of a query's points, as a figure's panels name them.
DISTRIBUTION_TITLES = {
    "special": "points drawn as the article's (special)",
    "uniform": "points drawn uniformly",
}
# E2's article ran on two machines; its legend says which is which.
ARTICLE_MACHINES = {
    "pitbull": "pitbull, 2 x 6-core Xeon, 24 hardware threads",
    "perro": "perro, 4 cores",
}


def article_distribution(table):
    """E2's rows whose points were drawn as the article's were (all rows of a table without the axis)."""
    if "distribution" not in table.columns:
        return table
    return table[table["distribution"] == ARTICLE_DISTRIBUTION].reset_index(drop=True)


def distributions(table) -> list:
    """E2's draws in a table, the article's first (one unnamed draw for a table without the axis)."""
    if "distribution" not in table.columns:
        return [None]
    drawn = sorted(table["distribution"].dropna().unique(), key=lambda d: (d != ARTICLE_DISTRIBUTION, d))
    return drawn or [None]


def distribution_rows(table, distribution):
    """The rows of one draw (all rows for None)."""
    if distribution is None:
        return table
    return table[table["distribution"] == distribution]


def distribution_title(distribution) -> str:
    if distribution is None:
        return "points drawn as the article's"
    return DISTRIBUTION_TITLES.get(distribution, f"points drawn {distribution}")


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


def table_and_paper_main(plot, doc: str, table_help: str, paper_help: str, argv=None) -> int:
    """The command line of a figure drawn from one CSV table beside the article's
    numbers (a YAML file of workflows/data/): TABLE PAPER OUTPUT..."""
    import argparse

    import pandas as pd
    import yaml

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("table", help=table_help)
    parser.add_argument("paper", help=paper_help)
    parser.add_argument("outputs", nargs="+", help="figure files to write; format from the suffix (.png, .pdf)")
    args = parser.parse_args(argv)
    with open(args.paper, encoding="utf-8") as file:
        paper = yaml.safe_load(file)
    save(plot(pd.read_csv(args.table), paper), args.outputs)
    return 0
