"""The workflow's side of sequential repeats (issue 40, item 6; workflows/sequential.smk): the
checkpoints are in quick's graph and not in smoke's, a repeat with a disturbed cell gets a
makeup, and extra repeats are asked for only where a look extends a grid. The looks' records
are written by hand here (a fake interim result), the planned runs' records are empty files:
Snakemake's dry run shows which jobs the checkpoints' records ask for."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
import yaml

from workflow_helpers import job_count, profile, snakemake, whole_dry_run

from dbrepro import duet
from dbrepro import studies

REPO = Path(__file__).resolve().parents[1]


def test_the_checkpoints_are_in_quicks_graph_and_not_in_smokes(dry_run, repo):
    quick = whole_dry_run(dry_run, repo, "quick")
    assert quick.returncode == 0, quick.output[-3000:]
    # One makeup checkpoint per timed grid that a study's claims read (E1's ladder, E2's model
    # and real server, E3's ladder, E4's runs, E5's runs), and the first look waiting on them.
    assert job_count(quick.output, "sequential_makeups") == 6
    assert job_count(quick.output, "sequential_look") >= 1
    smoke = whole_dry_run(dry_run, repo, "smoke")
    assert smoke.returncode == 0, smoke.output[-3000:]
    assert job_count(smoke.output, "sequential_makeups") == 0
    assert job_count(smoke.output, "sequential_look") == 0


def fifo_cache_cells():
    """quick's E5 timed grid: the one-terminal duets and the cells run alone, as the workflow names them."""
    fc = yaml.safe_load(profile(REPO, "quick").read_text())["fifo_cache"]
    percents = [f"{fraction * 100:g}" for fraction in fc["fractions"]]
    duets = [pair for percent in percents for pair in duet.pairs(f"{p}_p{percent}_t1" for p in fc["policies"])
             if len(pair) == 2]
    alone = [f"{p}_p{percent}_t{t}" for p in fc["policies"] for percent in percents for t in fc["terminals"] if t != 1]
    return fc, duets, alone


def planned_fifo_cache(workdir: Path, repeats, disturbed_repeat=None) -> None:
    """Empty records (and their settings, barriers and the scale sweep's) for E5's planned repeats."""
    fc, duets, alone = fifo_cache_cells()
    files = {}
    for rep in repeats:
        for a, b in duets:
            for cell in (a, b):
                files[f"results/raw/fifo_cache/rep{rep}/duet_{a}+{b}/{cell}.json"] = {}
        for cell in alone:
            files[f"results/raw/fifo_cache/rep{rep}/{cell}.json"] = (
                {"cells": [{"disturbed": True}]} if rep == disturbed_repeat else {})
        for cell in [c for pair in duets for c in pair] + alone:
            files[f"results/settings/fifo_cache/rep{rep}_{cell}.json"] = {}
        files[f"results/tmp/fifo_cache/repeats/policy-percent-terminals/rep{rep}.done"] = None
    for seed in fc["scale_seeds"]:
        for warehouses in fc["scale_warehouses"]:
            files[f"results/settings/fifo_cache/scale_seed{seed}_w{warehouses}.json"] = {}
            for policy in fc["scale_policies"]:
                for fraction in fc["scale_fractions"]:
                    files[f"results/raw/fifo_cache/scale/seed{seed}/{policy}_w{warehouses}_p{fraction * 100:g}.json"] = {}
    stamp = time.time() - 100  # older than what the checkpoints write next, newer than the repository's files
    for name, content in files.items():
        path = workdir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("" if content is None else json.dumps(content))
        os.utime(path, (stamp, stamp))


def write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


def look_record(extend: dict) -> dict:
    return {"look": 1, "looks": 2, "decided": {}, "open": ["nopm_speedup"] if extend else [], "extend": extend,
            "extended_total": extend, "skipped": {}, "spent_seconds": 0.0}


def fifo_cache_dry_run(python, workdir: Path, target="results/tables/fifo_cache/throughput.csv"):
    done = snakemake(python, REPO, workdir, target, "-n", "--cores", "2", "--rerun-triggers", "mtime",
                     "--configfile", str(profile(REPO, "quick")))
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return done.stdout + done.stderr


@pytest.mark.parametrize("extend, new_repeats", [({"runs": 2}, 2), ({}, 0), ({"some_other_grid": 2}, 0)])
def test_extra_repeats_only_where_the_look_extends_the_grid(python, tmp_path, extend, new_repeats):
    """A look that extends E5's grid (its finding still open) asks for repeats_per_look more
    repeats of it (6 and 7, after quick's 5); one that extends nothing, or another grid, none."""
    planned_fifo_cache(tmp_path, range(1, 6))
    write_json(tmp_path / "results/tmp/fifo_cache/makeups/runs.json", {"disturbed_repeats": [], "makeups": 0})
    write_json(tmp_path / "results/tmp/fifo_cache/looks/look1.json", look_record(extend))
    output = fifo_cache_dry_run(python, tmp_path)
    _, duets, alone = fifo_cache_cells()
    assert job_count(output, "fifo_cache_duet") == new_repeats * len(duets)
    assert job_count(output, "fifo_cache_run") == new_repeats * len(alone)
    assert job_count(output, "sequential_look") == 0 and job_count(output, "sequential_makeups") == 0
    for rep in range(6, 6 + new_repeats):
        assert f"results/raw/fifo_cache/rep{rep}/" in output
    assert f"results/raw/fifo_cache/rep{6 + new_repeats}/" not in output


def test_a_repeat_with_a_disturbed_cell_gets_a_makeup_run(python, tmp_path):
    """Repeat 3 holds a cell still disturbed after its reruns: the makeup checkpoint says so, and
    the grid runs a sixth repeat, before the first look (which reads it)."""
    planned_fifo_cache(tmp_path, range(1, 6), disturbed_repeat=3)
    makeups = "results/tmp/fifo_cache/makeups/runs.json"
    done = snakemake(python, REPO, tmp_path, makeups, "--cores", "1", "--rerun-triggers", "mtime",
                     "--configfile", str(profile(REPO, "quick")))
    assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    record = json.loads((tmp_path / makeups).read_text())
    assert record["disturbed_repeats"] == [3] and record["makeups"] == 1
    output = fifo_cache_dry_run(python, tmp_path)
    _, duets, alone = fifo_cache_cells()
    assert job_count(output, "fifo_cache_duet") == len(duets)
    assert job_count(output, "fifo_cache_run") == len(alone)
    assert "results/raw/fifo_cache/rep6/" in output and "results/raw/fifo_cache/rep7/" not in output
    assert job_count(output, "sequential_look") == 1  # the look waits for the makeup


def look_inputs(results: Path, study: str) -> dict:
    """What workflows/sequential.smk hands a look of `study`, from a finished run's folder."""
    raw, tables = results / "raw" / study, results / "tables" / study
    criteria = {"criteria": str(REPO / "workflows" / "claims" / f"{study}.yaml"),
                "paper": str(REPO / "workflows" / "data" / f"{study}_paper.yaml")}
    found = sorted(str(p) for p in raw.glob("rep*/**/*.json"))
    if study == "looking_glass":
        return {**criteria, **{name: str(tables / f"{name}.csv") for name in
                               ("instructions", "instructions_seeds", "switches", "components")},
                "runs": sorted(str(p) for p in raw.glob("ladder/rep*/**/*.json"))}
    if study == "key_cache":
        return {**criteria, "runs": [p for p in found if p.endswith("model.json")],
                "mariadb_runs": [p for p in found if p.endswith("mariadb.json")]}
    if study == "openedge":
        return {**criteria, "runs": [p for p in found if p.endswith("ladder.json")], "scan": str(raw / "scan.json"),
                "latency": [p for p in found if p.endswith("latency.json")]}
    if study == "quantum":
        return {**criteria, "records": found}
    return {**criteria, "runs": [p for p in found if "/scale/" not in p],
            "scale": sorted(str(p) for p in raw.glob("scale/**/*.json"))}


@pytest.mark.parametrize("study", studies.names(judged=True))
def test_a_look_judges_each_study_with_its_own_scripts(smoke_run, tmp_path, study):
    """Each study's recipe (workflows/scripts/sequential_look.py) builds the tables its repeats feed
    and judges its claims from a real run's records; the look's record names the grids' repeats.
    Smoke plans 2 repeats or fewer: every timed finding is `not judged`, so none is open."""
    from types import SimpleNamespace

    assert smoke_run.returncode == 0, smoke_run.output[-2000:]
    from dbrepro import verdicts as vd
    import sequential as seq
    import sequential_look

    config = yaml.safe_load(profile(REPO, "smoke").read_text())
    inputs = look_inputs(smoke_run.results, study)
    plan = seq.Plan("test", extra_looks=1, repeats_per_look=2, max_makeups=0, max_extra_seconds=600)
    values = {"plan": vars(plan), "settings": {"mariadb_skipped": "not run in the smoke profile"},
              "judging": {"profile": "smoke", "planned_repeats": 2, "judged_by": "quick or full",
                          **seq.judging_params(plan, 1)},
              "grids": {"grid": None}, "by_repeat": {"grid": {}}}
    output = tmp_path / "looks" / "look1.json"
    record = sequential_look.look(study, 1, SimpleNamespace(**inputs), str(output), values, config)
    assert json.loads(output.read_text()) == record
    claims = (tmp_path / "looks" / "look1" / "claims.csv").read_text()
    criteria = vd.load_criteria(study)
    assert all(claim_id in claims for claim_id in criteria.claims)
    assert record["look"] == 1 and record["open"] == [] and record["extend"] == {}
    assert "look 1 of at most 2" in (tmp_path / "looks" / "look1" / "claims.md").read_text()
