"""The model's key cache size swept (points drawn as the article's): the gain of the most segments over segments off
per thread count, one line per cache size (the key buffer as a share of the
index; 1 the article's), and the share of the threads' time spent waiting for
segment mutexes, off and with those segments.

    python figures/key_cache_cache_size.py results/tables/key_cache/cache_sizes.csv out.png out.pdf

Importable: `from figures.key_cache_cache_size import plot`.
"""
from __future__ import annotations

import sys

import pandas as pd

if __package__:
    from . import style
else:
    import style

COLORS = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00"]


def plot(table: pd.DataFrame):
    table = style.article_distribution(table)  # the article's draw; the other is in the tables
    fig, (gain_ax, wait_ax) = style.figure(ncols=2, figsize=(10.0, 4.0))
    if table.empty:
        gain_ax.text(0.5, 0.5, "one cache size run: nothing swept", ha="center", transform=gain_ax.transAxes)
        return fig
    points = 10 if 10 in set(table["points"]) else int(table["points"].min())
    table = table[table["points"] == points]
    most = int(table["segments"].max())
    fractions = sorted(table["index_fraction"].unique(), reverse=True)
    for color, fraction in zip(COLORS, fractions):
        at = table[table["index_fraction"] == fraction]
        on = at[at["segments"] == most].sort_values("threads")
        off = at[at["segments"] == 0].sort_values("threads")
        label = f"cache = {fraction:g} x index"
        gain_ax.plot(on["threads"], on["gain_percent"], color=color, marker="o", label=label)
        if "wait_share" in at.columns:
            wait_ax.plot(off["threads"], 100 * off["wait_share"], color=color, marker="s", linestyle="--",
                         label=f"{label}, off")
            wait_ax.plot(on["threads"], 100 * on["wait_share"], color=color, marker="o",
                         label=f"{label}, {most} segments")
    ticks = sorted(int(t) for t in table["threads"].unique())
    for ax in (gain_ax, wait_ax):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.set_xlabel(style.LABELS["threads"])
        ax.legend(fontsize=7)
    gain_ax.axhline(0, color="#888888", linewidth=0.8)
    gain_ax.set_ylabel(f"throughput, {most} segments vs off (%)")
    wait_ax.set_ylabel("threads' time waiting for segment mutexes (%)")
    fig.suptitle(f"{style.MODEL}: key cache size swept, select_random_points P = {points}, "
                 f"{style.distribution_title(style.ARTICLE_DISTRIBUTION)}")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/key_cache/cache_sizes.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
