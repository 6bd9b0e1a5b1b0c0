"""Heatmap of the gain of each key_cache_segments value over segments off, per
thread count, for each P, with the whole index in the cache (the article's).

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
    off = throughput[throughput["segments"] == 0].set_index(["threads", "points"])["qps_median"]
    on = throughput[throughput["segments"] != 0].copy()
    base = on.set_index(["threads", "points"]).index.map(off).to_numpy()
    on["percent"] = (on["qps_median"].to_numpy() / base - 1.0) * 100.0
    return on


def plot(throughput: pd.DataFrame):
    throughput = style.article_distribution(throughput)  # the article's draw; the other is in the tables
    if "index_fraction" in throughput.columns:  # the article's cache size (the whole index); cache_size.png: the rest
        throughput = throughput[throughput["index_fraction"] == 1.0]
    table = gains(throughput)
    all_points = sorted(table["points"].unique())
    fig, axes = style.figure(ncols=len(all_points), figsize=(3.6 * len(all_points) + 1.0, 3.8), squeeze=False)
    limit = max(5.0, float(np.nanmax(np.abs(table["percent"].to_numpy()))))
    image = None
    for ax, points in zip(axes[0], all_points):
        grid = table[table["points"] == points].pivot(index="segments", columns="threads", values="percent")
        image = ax.imshow(grid.to_numpy(), cmap="RdBu", vmin=-limit, vmax=limit, aspect="auto", origin="lower")
        ax.set_xticks(range(len(grid.columns)), [str(t) for t in grid.columns])
        ax.set_yticks(range(len(grid.index)), [str(s) for s in grid.index])
        for (row, col), value in np.ndenumerate(grid.to_numpy()):
            if not np.isnan(value):
                ax.text(col, row, f"{value:+.0f}", ha="center", va="center", fontsize=7)
        ax.set_xlabel(style.LABELS["threads"])
        ax.set_title(f"P = {points}")
    axes[0][0].set_ylabel("key_cache_segments")
    fig.colorbar(image, ax=axes[0].tolist(), label="throughput vs segments off (%)")
    fig.suptitle(f"select_random_points, {int(throughput['rows'].iloc[0]):,} rows, "
                 f"{int(throughput['cpu_count'].iloc[0])} hardware threads")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/key_cache/throughput.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
