"""Heatmap of the model's gain of each key_cache_segments value over segments
off, per thread count: a panel per draw of the points (the article's, special,
and uniform, each where we ran it) and per P, with the whole index in the
cache (the article's).

    python figures/key_cache_heatmap.py results/tables/key_cache/throughput.csv out.png out.pdf

Cell: (median queries/s with N segments / with segments off - 1) in percent.
Importable: `from figures.key_cache_heatmap import plot`.
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

if __package__:
    from . import style
else:
    import style


def gains(throughput: pd.DataFrame) -> pd.DataFrame:
    keys = ["threads", "points", *(["distribution"] if "distribution" in throughput.columns else [])]
    off = throughput[throughput["segments"] == 0].set_index(keys)["qps_median"]
    on = throughput[throughput["segments"] != 0].copy()
    base = on.set_index(keys).index.map(off).to_numpy(dtype=float)
    on["percent"] = (on["qps_median"].to_numpy() / base - 1.0) * 100.0
    return on


def plot(throughput: pd.DataFrame):
    if "index_fraction" in throughput.columns:  # the article's cache size (the whole index); cache_size.png: the rest
        throughput = throughput[throughput["index_fraction"] == 1.0]
    table = gains(throughput)
    draws = style.distributions(table)
    all_points = sorted(table["points"].unique())
    fig, axes = style.figure(nrows=len(draws), ncols=len(all_points), squeeze=False, layout="constrained",
                             figsize=(3.6 * len(all_points) + 1.6, 3.0 * len(draws) + 0.6))
    limit = max(5.0, float(np.nanmax(np.abs(table["percent"].to_numpy()))))
    image = None
    for r, draw in enumerate(draws):
        for ax, points in zip(axes[r], all_points):
            rows = style.distribution_rows(table, draw)
            grid = rows[rows["points"] == points].pivot(index="segments", columns="threads", values="percent")
            image = ax.imshow(grid.to_numpy(), cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto", origin="lower")
            ax.grid(False)  # the style's gridlines would cross the cells' labels
            ax.set_xticks(range(len(grid.columns)), [str(t) for t in grid.columns])
            ax.set_yticks(range(len(grid.index)), [str(s) for s in grid.index])
            for (row, col), value in np.ndenumerate(grid.to_numpy()):
                if not np.isnan(value):
                    ax.text(col, row, f"{value:+.0f}", ha="center", va="center", fontsize=7)
            ax.set_xlabel(style.LABELS["threads"])
            ax.set_ylabel("key_cache_segments")
            ax.set_title(f"P = {points}, {style.distribution_title(draw)}", fontsize=9)
    fig.colorbar(image, ax=axes.ravel().tolist(), label="throughput vs segments off (%)")
    fig.suptitle(f"{style.MODEL}: select_random_points, {int(throughput['rows'].iloc[0]):,} rows, "
                 f"{int(throughput['cpu_count'].iloc[0])} hardware threads")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/key_cache/throughput.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
