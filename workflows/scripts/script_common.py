"""Shared by every study's workflow scripts: logging a script's errors, reading
the original study's numbers. (Claims: the dbrepro.verdicts package.)"""
from __future__ import annotations

import sys
import traceback
from typing import Any

from dbrepro import yaml_text



def run_logged(log_path, main, *args):
    """Run main(*args) with stderr in `log_path`; a failure's traceback goes there
    too (and, re-raised, to Snakemake's own output), not into a closed file."""
    with open(log_path, "w", encoding="utf-8") as log:
        sys.stderr = log
        try:
            return main(*args)
        except BaseException:
            traceback.print_exc(file=log)
            raise
        finally:
            sys.stderr = sys.__stderr__


def load_paper(path) -> dict[str, Any]:
    """The original study's numbers: workflows/data/<study>_paper.yaml, the one
    place they are written down."""
    with open(path, encoding="utf-8") as file:
        return yaml_text.safe_load(file)


# ---------------------------------------------------------------------------
# Foreign load (dbrepro.host_load): a disturbed cell stays in every per-cell
# table (its `disturbed` column true) and is left out of every aggregate; an
# aggregate's row counts the cells it left out in `disturbed_cells`.

LOAD_COLUMNS = ["foreign_cores", "steal_cores", "attempts", "disturbed"]


def with_load_columns(frame):
    """The frame with the four foreign-load columns (rows from records before
    the meter: unmeasured, one attempt, not disturbed)."""
    defaults = {"foreign_cores": float("nan"), "steal_cores": float("nan"), "attempts": 1, "disturbed": False}
    frame = frame.assign(**{name: value for name, value in defaults.items() if name not in frame.columns})
    return frame.assign(disturbed=frame["disturbed"].fillna(False).astype(bool),
                        attempts=frame["attempts"].fillna(1).astype(int))


def undisturbed(frame, keys=None):
    """The rows of cells not disturbed by foreign load. A group of `keys` whose every cell was
    disturbed keeps them all, so that a table and its figure still show what was measured
    (its disturbed_cells says every one was); the claims leave disturbed cells out of every
    interval on their own (dbrepro.verdicts.by_repeat)."""
    frame = with_load_columns(frame)
    if keys is None or frame.empty:
        return frame[~frame["disturbed"]] if not frame["disturbed"].all() else frame
    all_disturbed = frame.groupby(keys, sort=False)["disturbed"].transform("all")
    return frame[~frame["disturbed"] | all_disturbed]


def with_disturbed_cells(table, cells, keys):
    """`table` (one row per group of `keys`, aggregated over undisturbed(cells))
    with every group of `cells` present (one that lost every cell: its
    aggregates empty) and three columns: disturbed_cells (left out of the
    row), reruns (attempts beyond the first, over the group's cells) and
    foreign_cores_max (the most any of them saw)."""
    cells = with_load_columns(cells)
    grouped = cells.groupby(keys, sort=True)
    counts = grouped.agg(disturbed_cells=("disturbed", "sum"), reruns=("attempts", lambda a: int((a - 1).sum())),
                         foreign_cores_max=("foreign_cores", "max")).reset_index()
    counts["disturbed_cells"] = counts["disturbed_cells"].astype(int)
    return counts[keys].merge(table, on=keys, how="left").merge(counts, on=keys, how="left")
