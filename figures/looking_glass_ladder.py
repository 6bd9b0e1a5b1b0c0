"""Throughput along the looking glass's removal ladder, ours beside the paper's.

    python figures/looking_glass_ladder.py results/tables/looking_glass/ladder.csv out.png out.pdf

Median throughput of the 50/50 New Order / Payment mix per ladder step (bars:
min to max over the repeats), on a log scale, per wall-clock second and per
CPU-second (the engine's own speed, robust to a shared machine; where a
step waits for its log flush, wall time is the one that shows it); the paper's four numbers
(Shore flushing its log, Shore in memory without the flush, after all
removals, the optimal kernel) at the steps they correspond to.
Importable: `from figures.looking_glass_ladder import plot`.
"""
from __future__ import annotations

import math
import sys

import pandas as pd
from matplotlib.ticker import FuncFormatter

if __package__:  # imported as figures.looking_glass_ladder
    from . import style
else:  # run as a script: this file's folder is on sys.path
    import style

OURS = {"color": "#0072B2", "marker": "o", "label": style.model("per wall-clock second (median; bars: min-max)")}
OURS_CPU = {"color": "#009E73", "marker": "^", "linestyle": "--",
            "label": style.model("per CPU-second (median; bars: min-max)")}
THEIRS = {"color": "#D55E00", "marker": "s", "linestyle": "none", "markersize": 7,
          "label": style.original("Shore, section 4")}
# The paper's points sit a little to the right so they do not hide ours.
NUDGE = 0.18


def _tps(value, _position=None) -> str:
    return f"{value:,.0f}"


def plot(ladder: pd.DataFrame):
    table = ladder.sort_values("step")
    fig, ax = style.figure(figsize=(7.5, 4.2))
    spread = [table["tps_median"] - table["tps_min"], table["tps_max"] - table["tps_median"]]
    ax.errorbar(table["step"], table["tps_median"], yerr=spread, **OURS)
    has_cpu = "cpu_tps_median" in table.columns
    if has_cpu:
        cpu_spread = [table["cpu_tps_median"] - table["cpu_tps_min"], table["cpu_tps_max"] - table["cpu_tps_median"]]
        ax.errorbar(table["step"], table["cpu_tps_median"], yerr=cpu_spread, **OURS_CPU)
    theirs = table.dropna(subset=["theirs_tps"])
    ax.plot(theirs["step"] + NUDGE, theirs["theirs_tps"], **THEIRS)
    for row in theirs.itertuples(index=False):
        ax.annotate(f"{row.theirs_tps:,.0f}", (row.step + NUDGE, row.theirs_tps), xytext=(6, -3),
                    textcoords="offset points", fontsize=7, color=THEIRS["color"])
    ax.set_yscale("log")
    # Whole decades, so that every end of the axis has a labelled tick.
    series = [table["tps_min"], table["tps_max"], theirs["theirs_tps"]]
    if has_cpu:
        series += [table["cpu_tps_min"], table["cpu_tps_max"]]
    values = pd.concat(series).dropna()
    values = values[values > 0]
    if len(values):
        ax.set_ylim(10 ** math.floor(math.log10(values.min())), 10 ** math.ceil(math.log10(values.max())))
    ax.yaxis.set_major_formatter(FuncFormatter(_tps))
    ax.set_ylabel("throughput (transactions/s, log scale)")
    ax.set_xticks(table["step"], [f"{step}: {label}" for step, label in zip(table["step"], table["label"])],
                  rotation=40, ha="right", fontsize=8)
    ax.set_xlabel("ladder step (each removes one more component; 11 = optimal kernel)")
    ax.grid(axis="y", which="both", color="#eeeeee", linewidth=0.5)
    low, high = table["n"].min(), table["n"].max()
    n = f"{low}" if low == high else f"{low}-{high}"
    warehouses = int(table["warehouses"].iloc[0])
    ax.set_title(f"TPC-C New Order + Payment 50/50, {warehouses} warehouse(s), one core ({n} runs per step)")
    ax.legend(loc="upper left")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/looking_glass/ladder.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
