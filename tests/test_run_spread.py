"""benchmarks/run_spread.py on the smoke run: the within-repeat spread of every
timed grid a claim pairs, read from a run's raw records (issue 29, item 3)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "benchmarks" / "run_spread.py"


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
