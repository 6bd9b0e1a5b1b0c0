"""Helpers for the tests that drive the Snakemake workflow."""
from __future__ import annotations

import re


def snakemake(python, repo, workdir, *args):
    """Run this repository's Snakefile in `workdir` with this interpreter."""
    return python("-m", "snakemake", "-s", str(repo / "Snakefile"), "--directory", str(workdir), *args)


def profile(repo, name):
    return repo / "config" / f"{name}.yaml"


def whole_dry_run(dry_run, repo, name):
    """The whole workflow's dry run of profile `name`, shell commands printed, on
    two cores: the one that every test of the whole workflow reads (conftest's
    `dry_run` makes it once per session)."""
    return dry_run("-n", "-p", "--cores", "2", "--configfile", str(profile(repo, name)))


def job_count(output: str, rule: str) -> int:
    """Jobs of `rule` in a dry run's summary table (0 if none)."""
    match = re.search(rf"^{rule}\s+(\d+)$", output, re.MULTILINE)
    return int(match.group(1)) if match else 0


def waits_for(output: str, block: str, runs: str) -> set[str]:
    """The timed runs (paths matching the regex `runs`) that the job of a dry
    run's `block` waits for: its own inputs, or, where it waits on a repeat
    barrier (rule repeat_done), the barrier's."""
    inputs = block.split("output:")[0]
    waited = set(re.findall(runs, inputs))
    for barrier in re.findall(r"results/tmp/\S+/repeats/\S+/rep\d+\.done", inputs):
        barrier_jobs = [job for job in re.findall(r"rule repeat_done:\n((?:    .*\n)+)", output)
                        if barrier in job.split("output:")[1].splitlines()[0]]
        assert len(barrier_jobs) == 1, barrier
        waited |= set(re.findall(runs, barrier_jobs[0].split("output:")[0]))
    return waited


CLAIM_COLUMNS = ["study", "id", "role", "claim", "setting", "setting_note", "ours", "theirs", "reproduced", "effect",
                 "ci_low", "ci_high", "repeats", "pairing", "cells_dropped", "criterion", "mechanism", "reason",
                 "within_ci_low", "within_ci_high", "between_run_sd", "looks", "alpha_per_look"]


def check_claims_table(path, study, claims=None):
    """A study's claims.csv from a workflow run: the evaluator's columns, the outcomes (or not judged),
    a mechanism and criterion per claim, one row per claim of its yaml
    (E4: one per scheduler). Returns the table."""
    from pathlib import Path

    import pandas as pd
    import yaml

    table = pd.read_csv(path)
    assert list(table.columns) == CLAIM_COLUMNS, list(table.columns)
    assert set(table["reproduced"]) <= {"yes", "no", "inconclusive", "not judged"}, set(table["reproduced"])
    assert table["mechanism"].notna().all() and table["criterion"].notna().all()
    criteria = yaml.safe_load((Path(__file__).resolve().parents[1] / "workflows" / "claims" / f"{study}.yaml").read_text())
    texts = {c["text"] for c in criteria["claims"]}
    assert all(any(claim.endswith(text) for text in texts) for claim in table["claim"]), table["claim"].tolist()
    if claims is not None:
        assert len(table) == claims, table
    timed = table[table["ci_low"].notna()]
    assert (timed["ci_low"] <= timed["ci_high"]).all()
    # Each finding judged once, findings first; findings.csv and checks.csv beside, split by role.
    findings = table[table["role"] == "finding"]
    assert findings["id"].is_unique and set(table["role"]) <= {"finding", "check"}
    assert list(table["role"]) == sorted(table["role"], key=lambda role: role != "finding")
    assert len(pd.read_csv(Path(path).parent / "findings.csv")) == len(findings)
    assert set(table["setting"]) <= {"original", "scaled"}
    return table
