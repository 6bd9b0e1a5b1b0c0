"""Shared by the fifo_cache table, claims and figure scripts: the article's
numbers (read from workflows/data/fifo_cache_paper.yaml, their one source)
and the summary of the runs."""

import os

from script_common import (  # noqa: F401 (scripts call common.load_paper, common.run_logged, ...)
    LOAD_COLUMNS,
    load_paper,
    run_logged,
    undisturbed,
    with_disturbed_cells,
)

ARTICLE_FRACTION = 0.1
LOCK_FREE_POLICY = "soqol"
LOCKED_POLICY = "lru"


def cpu_count() -> int:
    """CPUs this process may run on (what the terminals shared)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
