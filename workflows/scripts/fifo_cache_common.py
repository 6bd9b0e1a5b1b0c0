"""Shared by the fifo_cache table, claims and figure scripts: the article's
numbers (read from workflows/data/fifo_cache_paper.yaml, their one source)
and the summary of the runs."""

import os
from typing import Any

import yaml
from script_common import run_logged  # noqa: F401 (scripts call common.run_logged)

ARTICLE_FRACTION = 0.1
LOCK_FREE_POLICY = "soqol"
LOCKED_POLICY = "lru"


def load_paper(path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as file:
        return yaml.safe_load(file)


def cpu_count() -> int:
    """CPUs this process may run on (what the terminals shared)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
