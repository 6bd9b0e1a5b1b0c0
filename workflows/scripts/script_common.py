"""Shared by every study's workflow scripts: logging a script's errors, and the
record of one claim of a claims table."""
from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass


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


@dataclass
class Claim:
    """One row of a study's claims table (claims.csv: claim, ours, theirs, reproduced)."""

    claim: str
    ours: str
    theirs: str
    reproduced: bool
    criterion: str
    why: str = ""  # filled when not reproduced
