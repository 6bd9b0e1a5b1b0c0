"""E5: the trace simulator's hit ratio of each replacement policy in the table
(the workflow replays every policy the engine has) against the
number of warehouses, at cache sizes that are fractions of the *database's*
pages (one panel each), from page reference strings recorded at every
warehouse count we ran, beside SoQoL's 97% at 10% and 250 warehouses. Each
point is a replayed trace (measured, after the trace's warm-up); nothing is
fitted or extrapolated toward 250.

    python figures/fifo_cache_trace_hit_ratio.py results/tables/fifo_cache/hit_curve.csv workflows/data/fifo_cache_paper.yaml out.png out.pdf
"""
from __future__ import annotations

import sys

if __package__:
    from .fifo_cache_hit_ratio import figure_main, plot as plot_by_warehouses
else:
    from fifo_cache_hit_ratio import figure_main, plot as plot_by_warehouses

FRACTION_OF = "database pages"  # the pool's meaning of "10%", the article's


def plot(table, paper):
    rows = table[table["fraction_of"] == FRACTION_OF]
    policies = rows["cache_policy"].nunique()
    return plot_by_warehouses(rows, paper, title=f"Trace-driven hit ratio of {policies} policies as warehouses grow\n"
                                                 "(cache = % of the database's pages; recorded traces, no fit)",
                              panel="cache", full_column="cache_full_at_start")


def main(argv=None) -> int:
    return figure_main(plot, __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
