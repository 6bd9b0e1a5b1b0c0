"""Figure captions, shared by the Snakemake report and the paper: one file per
figure, workflows/report/<study>/<name>.rst (the workflow's one figure rule
hands it to the report)."""
from __future__ import annotations

import re
from pathlib import Path


def caption_names(report_dir: Path, study: str) -> list[str]:
    """The figures of `study` that have a caption file of their own."""
    folder = report_dir / study
    return sorted(path.stem for path in folder.glob("*.rst"))


def caption(report_dir: Path, study: str, name: str) -> str | None:
    """The caption of figure `name` of `study` as one line of plain text, or None."""
    own = report_dir / study / f"{name}.rst"
    if not own.is_file():
        return None
    text = own.read_text(encoding="utf-8")
    # reStructuredText inline literals read as plain text in the paper.
    return re.sub(r"\s+", " ", text.replace("``", "")).strip()
