"""workflows/scripts/run_spread.py on the smoke run: the within-repeat spread of every
timed grid a claim pairs, read from a run's raw records (issue 29, item 3)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "workflows" / "scripts" / "run_spread.py"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def test_every_timed_study_gets_its_within_repeat_spread(smoke_run, tmp_path):
    assert smoke_run.returncode == 0, smoke_run.output
    done = run(smoke_run.results, "--out", tmp_path / "spread.csv")
    assert done.returncode == 0, done.stderr
    table = pd.read_csv(tmp_path / "spread.csv")
    # Smoke repeats E1's ladder twice and the other grids once: a spread needs two repeats.
    assert set(table["study"]) == {"looking_glass"}
    assert (table["repeats"] == 2).all() and len(table) == 3  # the ladder's three paired claims
    # The CV of the ratio is the spread of treated / reference over the repeats, never negative.
    assert (table["ratio_cv_pct"] >= 0).all() and (table["ratio_median"] > 0).all()
    assert set(table["under_target"]) <= {True, False}
    assert "within-repeat ratio CV by study" in done.stdout


def test_a_folder_without_raw_runs_is_refused_in_one_line(tmp_path):
    done = run(tmp_path)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "no raw/" in done.stderr


def test_the_summary_says_how_many_paired_cells_meet_the_spread_target(smoke_run):
    assert smoke_run.returncode == 0, smoke_run.output
    summary = (smoke_run.results / "summary.md").read_text(encoding="utf-8")
    table = run_spread_table(smoke_run.results)
    met = int(table["under_target"].sum())
    # One line per study with two repeats or more (smoke: E1's ladder), counted from the same cells.
    assert f"- cell spread: {met} of {len(table)} paired cells have a within-repeat ratio CV under 5%" in summary
    assert summary.count("- cell spread:") == 1


def run_spread_table(results):
    import run_spread

    return run_spread.spread(results)
