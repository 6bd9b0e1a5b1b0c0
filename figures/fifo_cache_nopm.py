"""E5: New Orders per minute of each replacement policy against the number of
terminals at the article's pool size (10% of the database), median over the
interleaved repeats with its 95% bootstrap CI, beside SoQoL's 356,733 and
40,774 NOPM (after and before, 1,024 clients); and the share of the
terminals' time that hits waited for the policy's lock (LRU, 2Q; none in the
FIFO family), beside the share the lock would need to explain the article's
8.7x by itself.

    python figures/fifo_cache_nopm.py results/tables/fifo_cache/throughput.csv workflows/data/fifo_cache_paper.yaml out.png out.pdf
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

if __package__:
    from . import style
    from .fifo_cache_hit_ratio import POLICY_STYLE, figure_main
else:
    import style
    from fifo_cache_hit_ratio import POLICY_STYLE, figure_main


def at_article_fraction(table: pd.DataFrame, paper: dict) -> pd.DataFrame:
    wanted = paper["setup"]["memory_fraction"]
    fraction = min(table["fraction"].unique(), key=lambda f: abs(f - wanted))
    return table[table["fraction"] == fraction]


def plot(table: pd.DataFrame, paper: dict):
    rows = at_article_fraction(table, paper)
    fraction = float(rows["fraction"].iloc[0])
    fig, (nopm, waits) = style.figure(ncols=2, figsize=(11.0, 4.4))
    clients = paper["setup"]["clients"]
    for policy, group in rows.groupby("cache_policy"):
        group = group.sort_values("terminals")
        low = group["nopm_ci_low"].fillna(group["nopm_min"])
        high = group["nopm_ci_high"].fillna(group["nopm_max"])
        errors = [np.maximum(group["nopm_median"] - low, 0), np.maximum(high - group["nopm_median"], 0)]
        nopm.errorbar(group["terminals"], group["nopm_median"], yerr=errors, capsize=2,
                      label=style.model_policy(policy), **POLICY_STYLE.get(policy, {}))
        waits.plot(group["terminals"], group["hit_lock_wait_pct"], label=style.model_policy(policy),
                   **POLICY_STYLE.get(policy, {}))
    for key, marker, label in (("after", "*", "SoQoL after"), ("before", "X", "SoQoL before")):
        nopm.plot([clients], [paper[key]["nopm"]], linestyle="none", marker=marker, markersize=12, color="black",
                  label=style.original(f"{label}, {paper[key]['nopm']:,} NOPM"))
    ticks = sorted({*rows["terminals"].unique(), clients})
    for ax in (nopm, waits):
        ax.set_xscale("log")
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.set_xlabel("terminals (clients)")
    nopm.set_yscale("log")
    nopm.set_ylabel("New Orders per minute (NOPM)")
    nopm.set_title(f"NOPM at {fraction:.0%} of the database (median, 95% CI)")
    nopm.legend(fontsize=7, loc="lower right")
    needed = 100.0 * (1.0 - paper["before"]["nopm"] / paper["after"]["nopm"])
    waits.axhline(needed, color="black", linestyle="--", linewidth=1.0,
                  label=f"needed for the lock alone to give {paper['after']['nopm'] / paper['before']['nopm']:.1f}x")
    # Waits are orders of magnitude below the line; zero (the FIFO family) stays on the axis.
    waits.set_yscale("symlog", linthresh=1e-4)
    waits.set_ylim(bottom=0, top=200)
    waits.set_ylabel("hits waiting for the policy's lock (% of terminal time)")
    waits.set_title("lock waits on the hit path (median; FIFO family: none)")
    waits.legend(fontsize=7, loc="center right")
    fig.suptitle("TPC-C on the disk-backed pool as terminals grow")
    return fig


def main(argv=None) -> int:
    return figure_main(plot, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
