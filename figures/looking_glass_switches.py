"""Figure 7 of the looking glass: New Order instructions removed by each of the
11 switches, ours beside the paper's.

    python figures/looking_glass_switches.py results/tables/looking_glass/switches.csv out.png out.pdf

Three panels sharing the rows (switch 1 on top): the share of the step-0 total
each switch removes, ours and the paper's side by side; then the absolute
numbers, ours and the paper's, each on its own scale (the paper's Shore ran
~10x our instructions). A negative bar is a switch that adds instructions.
The paper's switch 11 ("optimal") is its last removal row minus the optimal
kernel (Figure 6), like ours.
Importable: `from figures.looking_glass_switches import plot`.
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

if __package__:  # imported as figures.looking_glass_switches
    from . import style
else:  # run as a script: this file's folder is on sys.path
    import style

OURS = {"color": "#0072B2", "label": style.MODEL}
THEIRS = {"color": "#D55E00", "label": style.original("Shore, Figure 7")}


def _annotate(ax, values, positions, fmt: str) -> None:
    for value, y in zip(values, positions):
        if np.isnan(value):
            ax.annotate("n/a", (0, y), xytext=(3, 0), textcoords="offset points", va="center", fontsize=7)
            continue
        ax.annotate(format(value, fmt), (value, y), xytext=(3 if value >= 0 else -3, 0), textcoords="offset points",
                    va="center", ha="left" if value >= 0 else "right", fontsize=7)


def plot(switches: pd.DataFrame):
    table = switches.sort_values("step")
    positions = np.arange(len(table))[::-1]  # switch 1 on top
    labels = [f"{step}. {label}" for step, label in zip(table["step"], table["label"])]

    fig, (share, mine, theirs) = style.figure(
        ncols=3, figsize=(11.0, 4.0), sharey=True, gridspec_kw={"width_ratios": [1.3, 1, 1]}
    )
    height = 0.38
    share.barh(positions + height / 2, table["new_order_removed_pct"], height=height, **OURS)
    share.barh(positions - height / 2, table["theirs_new_order_removed_pct"], height=height, **THEIRS)
    _annotate(share, table["new_order_removed_pct"], positions + height / 2, ".1f")
    _annotate(share, table["theirs_new_order_removed_pct"], positions - height / 2, ".1f")
    share.set_xlabel("removed (% of step-0 instructions)")
    share.set_title("(a) share of the full stack's instructions")

    mine.barh(positions, table["new_order_removed"] / 1000, height=0.6, color=OURS["color"])
    _annotate(mine, table["new_order_removed"] / 1000, positions, ",.1f")
    mine.set_xlabel("removed (thousand instructions)")
    mine.set_title(f"(b) {style.MODEL}, per New Order")
    theirs.barh(positions, table["theirs_new_order_removed"] / 1000, height=0.6, color=THEIRS["color"])
    _annotate(theirs, table["theirs_new_order_removed"] / 1000, positions, ",.0f")
    theirs.set_xlabel("removed (thousand instructions)")
    theirs.set_title(f"(c) {style.ORIGINAL}, per New Order")

    share.set_yticks(positions, labels)
    for ax in (share, mine, theirs):
        ax.axvline(0, color="black", linewidth=0.8)
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.grid(axis="y", visible=False)
        low, high = ax.get_xlim()
        # Room for the numbers beside the bars, negative ones included.
        span = high - min(low, 0)
        ax.set_xlim(min(low, 0) - (0.12 * span if low < 0 else 0), high + 0.1 * span)
        if ax is not share:
            style.thousands(ax.xaxis)
    fig.legend(*share.get_legend_handles_labels(), loc="lower center", ncol=2, bbox_to_anchor=(0.5, -0.08))
    fig.suptitle("New Order: instructions removed by each switch (applied top to bottom, cumulatively)")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/looking_glass/switches.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
