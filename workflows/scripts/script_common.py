"""Shared by every study's workflow scripts: logging a script's errors, reading
the original study's numbers. (Claims: workflows/scripts/claims_common.py.)"""
from __future__ import annotations

import sys
import traceback
from typing import Any

import yaml


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
        return yaml.safe_load(file)
