"""E5: page-cache hit ratio of each replacement policy against the pool size
(% of the database), TPC-C on the disk-backed pool, beside SoQoL's 97% at 10%.

    python figures/fifo_cache_hit_ratio.py results/tables/fifo_cache/throughput.csv workflows/data/fifo_cache_paper.yaml out.png out.pdf
"""
from __future__ import annotations

import sys

import pandas as pd
import yaml

if __package__:
    from . import style
else:
    import style

POLICY_STYLE = {
    "lru": {"color": "#D55E00", "marker": "s"},
    "fifo": {"color": "#999999", "marker": "v"},
    "clock": {"color": "#E69F00", "marker": "^"},
    "sieve": {"color": "#56B4E9", "marker": "D"},
    "s3fifo": {"color": "#009E73", "marker": "P"},
    "2q": {"color": "#CC79A7", "marker": "X"},
    "soqol": {"color": "#0072B2", "marker": "o", "linewidth": 2.0},
}


def single_terminal_count(table: pd.DataFrame) -> int:
    return int(table["terminals"].min())


def plot(table: pd.DataFrame, paper: dict):
    terminals = single_terminal_count(table)
    rows = table[table["terminals"] == terminals]
    fig, ax = style.figure(figsize=(7.0, 4.2))
    for policy, group in rows.groupby("cache_policy"):
        group = group.sort_values("fraction")
        ax.plot(group["fraction"] * 100, group["hit_ratio"] * 100, label=policy, **POLICY_STYLE.get(policy, {}))
    fraction = paper["setup"]["memory_fraction"] * 100
    ax.plot([fraction], [paper["after"]["hit_ratio"] * 100], linestyle="none", marker="*", markersize=14,
            color="black", label=f"SoQoL article ({paper['setup']['warehouses']} warehouses)")
    ax.set_xscale("log")
    ticks = sorted(rows["fraction"].unique() * 100)
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.set_xlabel("buffer pool size (% of the database)")
    ax.set_ylabel("page-cache hit ratio (%)")
    ax.set_title(f"TPC-C hit ratio per replacement policy ({terminals} terminal{'s' if terminals > 1 else ''})")
    ax.legend(fontsize=7, loc="lower right")
    return fig


def figure_main(plot, doc: str, argv=None) -> int:
    """The command line of an E5 figure: TABLE PAPER_YAML OUTPUT..."""
    import argparse

    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("table", help="results/tables/fifo_cache/throughput.csv")
    parser.add_argument("paper", help="workflows/data/fifo_cache_paper.yaml")
    parser.add_argument("outputs", nargs="+", help="figure files to write; format from the suffix (.png, .pdf)")
    args = parser.parse_args(argv)
    with open(args.paper, encoding="utf-8") as file:
        paper = yaml.safe_load(file)
    style.save(plot(pd.read_csv(args.table), paper), args.outputs)
    return 0


def main(argv=None) -> int:
    return figure_main(plot, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
