"""Shared by every study's workflow scripts: logging a script's errors.
(Claims: workflows/scripts/claims_common.py.)"""
from __future__ import annotations

import sys
import traceback


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
