"""Throughput with 32 and 64 key-cache segments relative to segments off, per
thread count, a panel per P we ran, ours beside the article's pitbull and perro
(the whole index cached, as in the article).

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
    relative = style.article_distribution(relative)  # the article's draw; the other is in the tables
    if "index_fraction" in relative.columns:  # the article's cache size (the whole index fits)
        relative = relative[relative["index_fraction"] == 1.0]
    ours = relative[relative["source"] == "ours"]
    all_points = sorted(int(p) for p in ours["points"].unique())  # a panel per P we ran
    thread_columns = [c for c in relative.columns if c.isdigit()]
    fig, axes = style.figure(ncols=len(all_points), figsize=(6.0 * len(all_points), 4.2), squeeze=False,
                             sharey=True)
    for ax, points in zip(axes[0], all_points):
        table = relative[(relative["points"] == points) & (relative["segments"].isin(SEGMENT_ALPHA))]
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
        ax.set_title(f"select_random_points P = {points}")
    axes[0][0].set_ylabel("throughput vs segments off (%)")
    axes[0][0].legend(fontsize=7, loc="upper left")
    fig.suptitle("Segmented key cache, the whole index cached")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/key_cache/relative.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
