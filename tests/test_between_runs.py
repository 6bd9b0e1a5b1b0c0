"""benchmarks/between_runs.py reads each run's own interval: the unwidened one and its coverage."""
from __future__ import annotations

import importlib.util
from pathlib import Path
from statistics import NormalDist

import pandas as pd
import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "between_runs.py"


@pytest.fixture(scope="module")
def between_runs():
    spec = importlib.util.spec_from_file_location("between_runs", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


HEADER = "study,id,role,effect,ci_low,ci_high,repeats,criterion,within_ci_low,within_ci_high,alpha_per_look\n"


def write_run(root: Path, name: str, row: str) -> Path:
    folder = root / name / "tables" / "s"
    folder.mkdir(parents=True)
    (folder / "findings.csv").write_text(HEADER + row + "\n")
    return root / name


def test_a_widened_run_contributes_its_own_interval_at_its_looks_coverage(between_runs, tmp_path):
    z = NormalDist().inv_cdf(1 - 0.025 / 2)  # a quick run's 97.5% look
    runs = [
        # printed interval widened for reruns to [0, 20]; its own, at 97.5%: 9 +- z
        write_run(tmp_path, "a", f"s,f,finding,10,0,20,7,c,{10 - z},{10 + z},0.025"),
        write_run(tmp_path, "b", f"s,f,finding,12,2,22,7,c,{12 - z},{12 + z},0.025"),
        # an older run: no within columns, a 95% interval of half-width 1.96 (se 1)
        write_run(tmp_path, "c", "s,f,finding,14,12.04,15.96,5,c,,,"),
    ]
    rows = pd.concat([between_runs.timed_rows(r) for r in runs], ignore_index=True)
    table = between_runs.levels(rows, min_runs=3)
    row = table.iloc[0]
    assert row["within_se"] == pytest.approx(1.0, abs=1e-3)  # every run's own se is 1
    assert row["between_sd"] == pytest.approx(2.0, abs=1e-3)  # effects 10, 12, 14
    assert row["tau"] == pytest.approx(3 ** 0.5, abs=1e-3)  # sqrt(4 - 1)
    assert row["pairs_apart"] == 0  # the printed intervals, as `dbrepro compare` reads them, overlap
