"""E2: where a query's time goes, the model beside the real MariaDB, per distribution:
time acquiring the key cache's mutex and (the real server) reading rows from the data
file, against the server's CPU time per query, at the most threads both ran, segments
off and the most segments.

    python figures/key_cache_mutex_account.py results/tables/key_cache/mutex_account.csv out.png out.pdf

Importable: `from figures.key_cache_mutex_account import plot`.
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

if __package__:
    from . import style
else:
    import style

# Who each bar is: the model (our engine) or the real MariaDB, in the words of every legend.
SOURCES = {"model": style.MODEL.replace(" (", "\n("), "mariadb": style.real("MariaDB")}
PARTS = {
    "wait_us_per_query": {"color": "#D55E00", "label": "acquiring the key cache mutex"},
    "data_file_us_per_query": {"color": "#009E73", "label": "reading rows (data file, performance_schema)"},
}


def plot(account: pd.DataFrame):
    fig, ax = style.figure(figsize=(8.0, 4.2))
    if account.empty:
        ax.text(0.5, 0.5, "no runs", ha="center", transform=ax.transAxes)
        return fig
    points = 10 if 10 in set(account["points"]) else int(account["points"].min())
    table = account[account["points"] == points]
    # The most threads that every source ran.
    threads = min(int(rows["threads"].max()) for _, rows in table.groupby("source"))
    table = table[(table["threads"] == threads)
                  & table["segments"].isin([0, int(table["segments"].max())])].sort_values(
                      ["distribution", "source", "segments"])
    labels = [f"{SOURCES.get(r.source, r.source)}\n{r.distribution}\n"
              f"{'off' if r.segments == 0 else f'{r.segments} seg.'}" for r in table.itertuples()]
    x = np.arange(len(table))
    bottom = np.zeros(len(table))
    for column, look in PARTS.items():
        measured = table[column].to_numpy(dtype=float)
        if not np.isfinite(measured).any():  # no source measured it (the model has no data file): no legend entry
            continue
        values = np.nan_to_num(measured)
        ax.bar(x, values, bottom=bottom, color=look["color"], label=look["label"], width=0.6)
        bottom += values
    ax.plot(x, table["server_cpu_us_per_query"].to_numpy(dtype=float), linestyle="none", marker="_",
            markersize=22, color="#000000", label="server CPU time per query")
    ax.set_xticks(x, labels, fontsize=6)
    ax.set_ylabel("microseconds per query")
    present = " and ".join(SOURCES.get(source, source).replace("\n", " ") for source in SOURCES
                           if source in set(table["source"]))
    ax.set_title(f"Per query at {threads} threads, P = {points}: {present}")
    ax.margins(y=0.25)  # room for the legend above the bars
    ax.legend(fontsize=7, loc="upper right")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/key_cache/mutex_account.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
