"""E3: traffic on the wire at each ladder step - bytes and messages in both
directions, summed over the users (medians of the repeats).

    python figures/openedge_traffic.py results/tables/openedge/traffic.csv out.png out.pdf

Importable: `from figures.openedge_traffic import plot`.
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

if __package__:
    from . import style
else:
    import style


def plot(traffic: pd.DataFrame):
    traffic = traffic.sort_values("step")
    x = np.arange(len(traffic))
    fig, (left, right) = style.figure(ncols=2, figsize=(9.0, 3.6))
    for ax, column, scale, unit, color in ((left, "bytes_on_wire", 1e6, "MB", "#0072B2"),
                                           (right, "messages_on_wire", 1e3, "thousands", "#CC79A7")):
        bars = ax.bar(x, traffic[column] / scale, color=color)
        ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=2)
        ax.set_xticks(x, traffic["name"])
        ax.set_ylabel(f"{column.replace('_on_wire', '')} on the wire ({unit})")
    left.set_title("bytes, both directions")
    right.set_title("messages, both directions")
    fig.suptitle(f"E3, {style.MODEL}: network traffic per ladder step")
    fig.tight_layout()
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/openedge/traffic.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
