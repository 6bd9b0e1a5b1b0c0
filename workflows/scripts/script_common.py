"""Shared by every study's workflow scripts: logging a script's errors, the
record of one claim of a claims table, and writing that table."""
from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

CLAIM_COLUMNS = ["claim", "ours", "theirs", "reproduced"]


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


def claims_frame(found: list[Claim]):
    """claims.csv's table: reproduced as yes/no."""
    import pandas as pd

    return pd.DataFrame(
        [{"claim": c.claim, "ours": c.ours, "theirs": c.theirs, "reproduced": "yes" if c.reproduced else "no"}
         for c in found],
        columns=CLAIM_COLUMNS,
    )


def claims_markdown(found: list[Claim], title: str, preamble: str = "") -> str:
    """claims.md: the table, each claim's criterion, and why the missed ones differ."""
    lines = [f"# {title}", ""]
    if preamble:
        lines += [preamble, ""]
    lines += ["| claim | ours | theirs | reproduced |", "|---|---|---|---|"]
    lines += [f"| {c.claim} | {c.ours} | {c.theirs} | {'yes' if c.reproduced else 'no'} |" for c in found]
    lines += ["", "## Criteria", ""]
    lines += [f"- **{c.claim}**: {c.criterion}." for c in found]
    missed = [c for c in found if not c.reproduced]
    if missed:
        lines += ["", "## Not reproduced", ""]
        lines += [f"- **{c.claim}**: {c.why}." for c in missed]
    return "\n".join(lines) + "\n"


def write_claims(found: list[Claim], csv_path, md_path, title: str, preamble: str = ""):
    """Writes claims.csv and claims.md; returns the table."""
    table = claims_frame(found)
    table.to_csv(csv_path, index=False)
    Path(md_path).write_text(claims_markdown(found, title, preamble), encoding="utf-8")
    return table
