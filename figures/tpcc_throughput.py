"""Figure: TPC-C throughput against warehouses, one line per variant.

    python figures/tpcc_throughput.py results/tables/tpcc/throughput.csv out.png out.pdf

Points are the median over repeats; error bars span min to max.
Importable: `from figures.tpcc_throughput import plot`.
"""
from __future__ import annotations

import sys

import pandas as pd

if __package__:  # imported as figures.tpcc_throughput
    from . import style
else:  # run as a script: this file's folder is on sys.path
    import style


def plot(table: pd.DataFrame):
    """The figure for a throughput table (the columns tpcc_table.py writes)."""
    fig, ax = style.figure(layout="constrained")  # constrained: room for the legend below the panel
    groups = list(table.sort_values("warehouses").groupby("variant", sort=True))
    warehouses = sorted(table["warehouses"].unique())
    # Nudge variants sideways so their error bars do not hide each other.
    step = 0.03 * (max(warehouses) - min(warehouses) or 1)
    for index, (variant, rows) in enumerate(groups):
        look = style.VARIANT_STYLE.get(variant, {"label": variant})
        spread = [rows["tps_median"] - rows["tps_min"], rows["tps_max"] - rows["tps_median"]]
        x = rows["warehouses"] + (index - (len(groups) - 1) / 2) * step
        ax.errorbar(x, rows["tps_median"], yerr=spread, **look)
    ax.set_xticks(warehouses)
    if len(warehouses) == 1:  # a panel of the nudge alone would push the points to its edges, far from the tick
        ax.set_xlim(warehouses[0] - 0.5, warehouses[0] + 0.5)
    ax.set_xlabel(style.LABELS["warehouses"])
    ax.set_ylabel(style.LABELS["throughput"])
    ax.set_ylim(bottom=0)
    style.thousands(ax.yaxis)
    low, high = table["repeats"].min(), table["repeats"].max()
    n = f"{low}" if low == high else f"{low}-{high}"
    ax.set_title(f"TPC-C New Order + Payment (median; bars: min-max of {n} runs)")
    fig.legend(loc="outside lower center")  # its entries are wider than the panel
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "throughput CSV (results/tables/tpcc/throughput.csv)", argv)


if __name__ == "__main__":
    sys.exit(main())
