"""E5: New Orders per minute of each replacement policy relative to LRU's, per
pool size (% of the database), median over the repeats with min-max bars,
beside SoQoL's 8.7x (356,733 vs 40,774 NOPM at 10% memory).

    python figures/fifo_cache_nopm.py results/tables/fifo_cache/throughput.csv workflows/data/fifo_cache_paper.yaml out.png out.pdf
"""
from __future__ import annotations

import sys

import pandas as pd

if __package__:
    from . import style
    from .fifo_cache_hit_ratio import POLICY_STYLE, figure_main
else:
    import style
    from fifo_cache_hit_ratio import POLICY_STYLE, figure_main


def plot(table: pd.DataFrame, paper: dict):
    terminals = sorted(table["terminals"].unique())
    fig, axes = style.figure(ncols=len(terminals), figsize=(4.2 * len(terminals) + 1.5, 4.2), squeeze=False)
    for ax, count in zip(axes[0], terminals):
        rows = table[table["terminals"] == count]
        lru = rows[rows["cache_policy"] == "lru"].set_index("fraction")["nopm_median"]
        for policy, group in rows.groupby("cache_policy"):
            group = group.sort_values("fraction")
            base = group["fraction"].map(lru)
            ratio = group["nopm_median"] / base
            errors = [ratio - group["nopm_min"] / base, group["nopm_max"] / base - ratio]
            ax.errorbar(group["fraction"] * 100, ratio, yerr=errors, capsize=2, label=policy,
                        **POLICY_STYLE.get(policy, {}))
        theirs = paper["after"]["nopm"] / paper["before"]["nopm"]
        ax.plot([paper["setup"]["memory_fraction"] * 100], [theirs], linestyle="none", marker="*", markersize=14,
                color="black", label=f"SoQoL after / before ({theirs:.1f}x)")
        ax.axhline(1.0, color="#888888", linewidth=0.8)
        ax.set_xscale("log")
        ticks = sorted(rows["fraction"].unique() * 100)
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.set_ylim(bottom=0)
        ax.set_xlabel("buffer pool size (% of the database)")
        ax.set_ylabel("NOPM relative to LRU (x)")
        ax.set_title(f"{count} terminal{'s' if count > 1 else ''}")
    axes[0][-1].legend(fontsize=7, loc="upper right")
    fig.suptitle("TPC-C New Orders per minute per replacement policy, relative to LRU")
    return fig


def main(argv=None) -> int:
    return figure_main(plot, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
