"""Throughput with 32 and 64 key-cache segments relative to segments off, per
thread count (P = 10 where run), ours beside the article's pitbull and perro.

    python figures/key_cache_relative.py results/tables/key_cache/relative.csv out.png out.pdf

Importable: `from figures.key_cache_relative import plot`.
"""
from __future__ import annotations

import sys

import pandas as pd

if __package__:
    from . import style
else:
    import style

SOURCES = {
    "ours": {"color": "#0072B2", "marker": "o"},
    "pitbull": {"color": "#D55E00", "marker": "s", "linestyle": "--"},
    "perro": {"color": "#009E73", "marker": "^", "linestyle": ":"},
}
SEGMENT_ALPHA = {32: 0.55, 64: 1.0}


def plot(relative: pd.DataFrame):
    if "index_fraction" in relative.columns:  # the article's cache size (the whole index fits)
        relative = relative[relative["index_fraction"] == 1.0]
    ours = relative[relative["source"] == "ours"]
    points = 10 if 10 in set(ours["points"]) else int(ours["points"].min())
    table = relative[(relative["points"] == points) & (relative["segments"].isin(SEGMENT_ALPHA))]
    thread_columns = [c for c in relative.columns if c.isdigit()]
    fig, ax = style.figure(figsize=(7.0, 4.2))
    for _, row in table.iterrows():
        values = pd.Series({int(c): row[c] for c in thread_columns}, dtype=float).dropna()
        if values.empty:
            continue
        segments = int(row["segments"])
        ax.plot(values.index, values.to_numpy(), alpha=SEGMENT_ALPHA[segments],
                label=f"{row['source']}, {segments} segments", **SOURCES.get(row["source"], {}))
    ax.axhline(0, color="#888888", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ticks = sorted(int(c) for c in thread_columns)
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.set_xlabel(style.LABELS["threads"])
    ax.set_ylabel("throughput vs segments off (%)")
    ax.set_title(f"Segmented key cache, select_random_points P = {points}")
    ax.legend(fontsize=7, loc="upper left")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/key_cache/relative.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
