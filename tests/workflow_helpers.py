"""Helpers for the tests that drive the Snakemake workflow."""
from __future__ import annotations

import re


def snakemake(python, repo, workdir, *args):
    """Run this repository's Snakefile in `workdir` with this interpreter."""
    return python("-m", "snakemake", "-s", str(repo / "Snakefile"), "--directory", str(workdir), *args)


def profile(repo, name):
    return repo / "config" / "profiles" / f"{name}.yaml"


def job_count(output: str, rule: str) -> int:
    """Jobs of `rule` in a dry run's summary table (0 if none)."""
    match = re.search(rf"^{rule}\s+(\d+)$", output, re.MULTILINE)
    return int(match.group(1)) if match else 0
