"""E5: page-cache hit ratio of each replacement policy against the number of
warehouses, one panel per pool size (% of the database's pages), TPC-C on the
disk-backed pool with one terminal, beside SoQoL's 97% at 10% and 250 warehouses.

    python figures/fifo_cache_hit_ratio.py results/tables/fifo_cache/scale.csv workflows/data/fifo_cache_paper.yaml out.png out.pdf
"""
from __future__ import annotations

import sys

import pandas as pd

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


def plot(table: pd.DataFrame, paper: dict,
         title: str = "TPC-C hit ratio per replacement policy\nas warehouses grow (one terminal)",
         panel: str = "pool", full_column: str = "pool_full_at_start"):
    fractions = sorted(table["fraction"].unique())
    # Constrained: the suptitle's lines get their own room above the panels' titles.
    fig, axes = style.figure(ncols=len(fractions), figsize=(3.6 * len(fractions) + 1.2, 4.2), squeeze=False,
                             sharey=True, layout="constrained")
    theirs_fraction = paper["setup"]["memory_fraction"]
    theirs_warehouses = paper["setup"]["warehouses"]
    for ax, fraction in zip(axes[0], fractions):
        rows = table[table["fraction"] == fraction]
        for policy, group in rows.groupby("cache_policy"):
            group = group.sort_values("warehouses")
            look = POLICY_STYLE.get(policy, {})
            ax.plot(group["warehouses"], group["hit_ratio"] * 100, label=style.model_policy(policy), **look)
            open_ = group[~group[full_column].astype(bool)] if full_column in group else group.iloc[:0]
            if len(open_):  # hollow: the warm-up had not filled the cache, its fill is counted
                ax.plot(open_["warehouses"], open_["hit_ratio"] * 100, linestyle="none", marker="o",
                        markerfacecolor="white", markeredgecolor="black", markersize=9, zorder=3,
                        label="not full when counting began")
            # The pool's first fill left out, where the warm-up did not fill the pool.
            if ("hit_ratio_after_fill" in group and group["hit_ratio_after_fill"].notna().any()
                    and not group.get("pool_full_at_start", pd.Series([False])).all()):
                ax.plot(group["warehouses"], group["hit_ratio_after_fill"] * 100, linestyle=":", alpha=0.7,
                        label=f"{style.model_policy(policy)}, first fill left out",
                        **{k: v for k, v in look.items() if k != "linewidth"})
        if abs(fraction - theirs_fraction) < 1e-9:
            ax.plot([theirs_warehouses], [paper["after"]["hit_ratio"] * 100], linestyle="none", marker="*",
                    markersize=14, color="black", label=style.original(f"SoQoL, {theirs_warehouses} warehouses"))
        ax.set_xscale("log")
        ticks = sorted({*rows["warehouses"].unique(), theirs_warehouses})
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.set_xlabel("TPC-C warehouses")
        ax.set_title(f"{panel} = {fraction:.0%} of the database's pages")
    axes[0][0].set_ylabel("page-cache hit ratio (%)")
    labelled = {}
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            labelled.setdefault(label, handle)
    axes[0][-1].legend(labelled.values(), labelled.keys(), fontsize=7, loc="lower right")
    fig.suptitle(title)
    return fig


def figure_main(plot, doc: str, argv=None) -> int:
    """The command line of an E5 figure: TABLE PAPER_YAML OUTPUT..."""
    table = "results/tables/fifo_cache/scale.csv, hit_curve.csv or throughput.csv"
    return style.table_and_paper_main(plot, doc, table, "workflows/data/fifo_cache_paper.yaml", argv)


def main(argv=None) -> int:
    return figure_main(plot, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
