"""Shared by the openedge table and claim scripts: the article's numbers and
the ladder's step order.

The article's numbers are read from workflows/data/openedge_paper.yaml (the
one place they are written down); nothing here repeats them.
"""
from typing import Any

from script_common import (  # noqa: F401 (scripts call common.load_paper, common.run_logged, ...)
    LOAD_COLUMNS,
    load_paper,
    run_logged,
    undisturbed,
    with_disturbed_cells,
    with_load_columns,
)

STEPS = ("baseline", "bht", "mtdbs", "ssj")



def paper_step_change(paper: dict[str, Any], name: str) -> float | None:
    """The article's change in time from the step before to `name`, in % (negative: less time)."""
    reduction = paper["time_reduction_percent"].get(name)
    return None if reduction is None else -float(reduction)


def pct_change(new: float, old: float) -> float:
    return 100.0 * (new - old) / old
