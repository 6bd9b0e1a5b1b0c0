"""Throughput with 32 and 64 key-cache segments relative to segments off, per
thread count: a panel per draw of the points (the article's, special, and
uniform, each where we ran it) and per P we ran, the model beside the
original's two machines, pitbull and perro (the article's numbers, its draw,
in every panel), the whole index cached, as in the article.

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
    "ours": {"color": "#0072B2", "marker": "o", "label": style.MODEL},
    "pitbull": {"color": "#D55E00", "marker": "s", "linestyle": "--",
                "label": style.original(style.ARTICLE_MACHINES["pitbull"])},
    "perro": {"color": "#009E73", "marker": "^", "linestyle": ":",
              "label": style.original(style.ARTICLE_MACHINES["perro"])},
}
SEGMENT_ALPHA = {32: 0.55, 64: 1.0}


def plot(relative: pd.DataFrame):
    if "index_fraction" in relative.columns:  # the article's cache size (the whole index fits)
        relative = relative[relative["index_fraction"] == 1.0]
    ours = relative[relative["source"] == "ours"]
    theirs = relative[relative["source"] != "ours"]  # the article's: its draw, drawn in every panel
    draws = style.distributions(ours)
    all_points = sorted(int(p) for p in ours["points"].unique())  # a panel per P we ran
    thread_columns = [c for c in relative.columns if c.isdigit()]
    fig, axes = style.figure(nrows=len(draws), ncols=len(all_points), squeeze=False, sharey=True,
                             layout="constrained", figsize=(6.4 * len(all_points), 3.6 * len(draws) + 1.2))
    for r, draw in enumerate(draws):
        for ax, points in zip(axes[r], all_points):
            table = pd.concat([style.distribution_rows(ours, draw), theirs])
            table = table[(table["points"] == points) & (table["segments"].isin(SEGMENT_ALPHA))]
            for _, row in table.iterrows():
                values = pd.Series({int(c): row[c] for c in thread_columns}, dtype=float).dropna()
                if values.empty:
                    continue
                segments = int(row["segments"])
                look = SOURCES.get(row["source"], {"label": row["source"]})
                ax.plot(values.index, values.to_numpy(), alpha=SEGMENT_ALPHA[segments],
                        **{**look, "label": f"{look['label']}, {segments} segments"})
            ax.axhline(0, color="#888888", linewidth=0.8)
            ax.set_xscale("log", base=2)
            ticks = sorted(int(c) for c in thread_columns)
            ax.set_xticks(ticks, [str(t) for t in ticks])
            ax.set_xlabel(style.LABELS["threads"])
            ax.set_title(f"select_random_points P = {points}; model: {style.distribution_title(draw)}")
            ax.set_ylabel("throughput vs segments off (%)")
    # One legend for every panel (the same sources in each), below them, clear of the lines.
    labelled = {}
    for ax in axes.ravel():
        for handle, label in zip(*ax.get_legend_handles_labels()):
            labelled.setdefault(label, handle)
    fig.legend(labelled.values(), labelled.keys(), fontsize=7, loc="outside lower center", ncol=2)
    fig.suptitle("Segmented key cache, the whole index cached (the original's numbers: its own draw, special)")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/key_cache/relative.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
