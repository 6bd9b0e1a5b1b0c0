"""Figure 8 of the looking glass: New Order's share of instructions and of
cycles per component group, ours beside the paper's.

    python figures/looking_glass_cycles.py results/tables/looking_glass/components.csv out.png out.pdf

Two panels on one percent scale: per component group (what its removal steps
take off the full stack; "remaining" is what is left after the last removal),
the share of step-0 instructions beside the share of step-0 cycles. Where our
counts came from callgrind, our cycles are its cache/branch-simulation
estimate, and the figure says so.
Importable: `from figures.looking_glass_cycles import plot`.
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

if __package__:  # imported as figures.looking_glass_cycles
    from . import style
else:  # run as a script: this file's folder is on sys.path
    import style

COMPONENTS = ["btree_keys", "logging", "locking", "latching", "buffer_manager", "remaining"]
COMPONENT_LABELS = {
    "btree_keys": "B-tree\nkeys", "logging": "logging", "locking": "locking", "latching": "latching",
    "buffer_manager": "buffer\nmanager", "remaining": "remaining",
}
INSTRUCTIONS = {"color": "#0072B2"}
CYCLES = {"color": "#E69F00"}


def _bars(ax, instructions, cycles, cycles_label: str) -> None:
    x = np.arange(len(COMPONENTS))
    width = 0.38
    ax.bar(x - width / 2, instructions, width, label="instructions", **INSTRUCTIONS)
    ax.bar(x + width / 2, cycles, width, label=cycles_label, **CYCLES)
    for offset, values in ((-width / 2, instructions), (width / 2, cycles)):
        for xi, value in zip(x + offset, values):
            if not np.isnan(value):
                ax.annotate(f"{value:.0f}", (xi, max(value, 0)), xytext=(0, 2), textcoords="offset points",
                            ha="center", fontsize=7)
    ax.set_xticks(x, [COMPONENT_LABELS[c] for c in COMPONENTS], fontsize=8)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.legend(loc="upper left")


def plot(components: pd.DataFrame):
    table = components[components["txn_type"] == "new_order"].set_index("component").reindex(COMPONENTS)
    estimated = "estimated" in str(table["cycles_source"].iloc[0])
    backend = str(table["backend"].iloc[0])

    fig, (mine, theirs) = style.figure(ncols=2, figsize=(10.5, 3.8), sharey=True)
    _bars(mine, table["instructions_share_pct"], table["cycles_share_pct"],
          "cycles (estimated by callgrind)" if estimated else "cycles")
    _bars(theirs, table["theirs_instructions_share_pct"], table["theirs_cycles_share_pct"], "cycles")
    mine.set_title(style.model(backend))
    theirs.set_title(style.original("Shore, Figure 8"))
    mine.set_ylabel("share of the full stack (%)")
    top = np.nanmax(table[["instructions_share_pct", "cycles_share_pct", "theirs_instructions_share_pct",
                           "theirs_cycles_share_pct"]].to_numpy())
    mine.set_ylim(top=top * 1.25)
    fig.suptitle("New Order: share of instructions and of cycles per component group")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/looking_glass/components.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
