"""Figure captions, shared by the Snakemake report and the paper: one file per
figure, workflows/report/<study>/<name>.rst, or for a rule with a {name}
wildcard one Jinja template, workflows/report/<study>/figure.rst, rendered
with `snakemake.wildcards.name` as Snakemake's report renders it."""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import jinja2

TEMPLATE = "figure.rst"


def caption_names(report_dir: Path, study: str) -> list[str]:
    """The figures of `study` that have a caption file of their own."""
    folder = report_dir / study
    return sorted(path.stem for path in folder.glob("*.rst") if path.name != TEMPLATE)


def caption(report_dir: Path, study: str, name: str) -> str | None:
    """The caption of figure `name` of `study` as one line of plain text, or None."""
    own = report_dir / study / f"{name}.rst"
    template = report_dir / study / TEMPLATE
    if own.is_file():
        text = own.read_text(encoding="utf-8")
    elif template.is_file():
        snakemake = SimpleNamespace(wildcards=SimpleNamespace(name=name))
        text = jinja2.Template(template.read_text(encoding="utf-8")).render(snakemake=snakemake)
    else:
        return None
    # reStructuredText inline literals read as plain text in the paper.
    return re.sub(r"\s+", " ", text.replace("``", "")).strip()
