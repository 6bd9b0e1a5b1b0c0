"""Helpers for the tests that drive the Snakemake workflow."""
from __future__ import annotations

import re

from dbrepro import studies


def snakemake(python, repo, workdir, *args):
    """Run this repository's Snakefile in `workdir` with this interpreter."""
    return python("-m", "snakemake", "-s", str(repo / "Snakefile"), "--directory", str(workdir), *args)


def profile(repo, name):
    return repo / "config" / f"{name}.yaml"


# The targets of the one dry run per profile: the default target and each one a
# user may name (a study alone, the paper); target_dry_run reads each one's jobs from it.
DRY_RUN_TARGETS = ("all", *studies.names(judged=True), "paper")


def whole_dry_run(dry_run, repo, name):
    """The whole workflow's dry run of profile `name`, shell commands printed, on
    two cores, every named target asked for: the one dry run of that profile that
    every test of the workflow's graph reads (conftest's `dry_run` makes it once
    per session for every worker; target_dry_run takes one target's part of it)."""
    return dry_run(*DRY_RUN_TARGETS, "-n", "-p", "--cores", "2", "--configfile", str(profile(repo, name)))


def job_blocks(output: str) -> list[tuple[str, str]]:
    """Each job of a dry run's listing: (rule, its block: the header line and its indented lines).
    A checkpoint's job (the sequential looks and makeups, workflows/sequential.smk) is a job too."""
    return [(match.group(1), match.group(0))
            for match in re.finditer(r"^(?:local)?(?:rule|checkpoint) (\w+):\n(?:    .*\n?)*", output,
                                     re.MULTILINE)]


def _paths(block: str, field: str) -> list[str]:
    match = re.search(rf"^    {field}: (.*)$", block, re.MULTILINE)
    return [path.strip() for path in match.group(1).split(",")] if match else []


def target_dry_run(dry_run, repo, target: str, name: str):
    """What `snakemake TARGET -n` of profile `name` lists, read from the profile's one
    dry run (whole_dry_run): the target's job and every job it needs, found through
    the jobs' inputs and outputs, then Snakemake's job-count table for them (read by
    job_count). The same jobs, with the same blocks, as a dry run of that target alone."""
    assert target in DRY_RUN_TARGETS, target
    whole = whole_dry_run(dry_run, repo, name)
    if whole.returncode != 0:
        return whole
    jobs = job_blocks(whole.output)
    producer = {path: index for index, (_, block) in enumerate(jobs) for path in _paths(block, "output")}
    wanted = [index for index, (rule, _) in enumerate(jobs) if rule == target]
    assert len(wanted) == 1, f"no job of rule {target} in the dry run"
    seen = set(wanted)
    while wanted:
        for path in _paths(jobs[wanted.pop()][1], "input"):
            index = producer.get(path)
            if index is not None and index not in seen:
                seen.add(index)
                wanted.append(index)
    counts: dict[str, int] = {}
    for index in seen:
        counts[jobs[index][0]] = counts.get(jobs[index][0], 0) + 1
    listing = "".join(jobs[index][1] + "\n" for index in sorted(seen))
    table = "".join(f"{rule}    {count}\n" for rule, count in sorted(counts.items()))
    return type(whole)(whole.returncode, f"{listing}Job stats:\njob    count\n{table}total    {len(seen)}\n")


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
                 "within_ci_low", "within_ci_high", "between_run_sd", "between_run_source", "looks",
                 "alpha_per_look", "interval_kind"]


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
