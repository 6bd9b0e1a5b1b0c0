"""E5's scale cells: a database loaded once per policy, each pool fraction
run on a forked copy (fifo_cache.run_cells, driver/tpcc/loaded_disk.hpp). Each
cell counts what a run of its own counts for the same seed; a failed cell
stops the sweep naming it; the command line and the workflow's rule call the
same function."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dbrepro import _engine, fifo_cache, tpcc
from dbrepro.records import read_record
from dbrepro.result import RunResult

SETTINGS = {"warehouses": 1, "transactions": 300, "warmup_transactions": 300, "seed": 3}
POLICIES = ["lru", "soqol"]
FRACTIONS = [0.05, 0.2]
OUT = "{policy}_w{warehouses}_p{percent}.json"
COUNTS = ("frames", "database_pages", "hits", "misses", "reads", "writes", "cold_writes", "hit_locks", "ghost_hits",
          "warmup_misses")


@pytest.fixture(scope="module")
def cells(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cells")
    paths = fifo_cache.run_cells(POLICIES, FRACTIONS, str(folder / OUT), check_consistency=True, **SETTINGS)
    return {(policy, fraction): path for (policy, fraction), path in
            zip([(p, f) for p in POLICIES for f in FRACTIONS], paths)}


def test_each_cell_counts_what_its_own_run_counts(cells):
    for (policy, fraction), path in cells.items():
        assert path.name == f"{policy}_w1_p{fraction * 100:g}.json"
        cell = RunResult.from_dict(read_record(path))
        alone = fifo_cache.run(policy, fraction, progress=False, **SETTINGS)
        assert cell.consistent is True
        assert {k: cell.metrics["pool"][k] for k in COUNTS} == {k: alone.metrics["pool"][k] for k in COUNTS}, path
        assert cell.config == alone.config
        assert cell.metrics["per_type"].keys() == alone.metrics["per_type"].keys()
        for txn_type, stats in cell.metrics["per_type"].items():
            assert (stats["commits"], stats["aborts"]) == (alone.metrics["per_type"][txn_type]["commits"],
                                                           alone.metrics["per_type"][txn_type]["aborts"])
        assert cell.metrics["database_bytes"] == alone.metrics["database_bytes"]
        assert set(cell.metrics["host"]) == set(alone.metrics["host"]) and cell.provenance["git"]


def test_a_loaded_copy_runs_one_cell():
    loaded = _engine.load_disk(**tpcc.validate_config(stack="disk", cache_policy="fifo", transactions=20))
    loaded.run_cell(pool_fraction=0.1)
    with pytest.raises(RuntimeError, match="^run_cell: this copy of the loaded database has run; fork a copy per cell$"):
        loaded.run_cell(pool_fraction=0.2)


def test_a_failed_cell_stops_the_sweep_naming_it(tmp_path):
    (tmp_path / "file").write_text("")  # its records cannot go under a file
    with pytest.raises(RuntimeError, match=r"^cell lru at 0\.1 of 1 warehouses: its process ended with exit status 1$"):
        fifo_cache.run_cells(["lru"], [0.1], str(tmp_path / "file" / OUT), transactions=20)


@pytest.mark.parametrize(
    "policies, fractions, out, complaint",
    [
        (["lru", "arc"], [0.1], OUT, "^cache_policy: invalid value 'arc'"),
        (["lru"], [0.1, 1.5], OUT, "^pool_fraction: must be in"),
        (["lru", "soqol"], [0.1], "w{warehouses}_p{percent}.json", "^out: .* gives 1 paths to 2 cells"),
        (["lru"], [0.1], "{pool}.json", "^out: .* is not a path with"),
    ],
)
def test_bad_cells_fail_before_any_load(tmp_path, policies, fractions, out, complaint):
    with pytest.raises(tpcc.ConfigError, match=complaint):
        fifo_cache.run_cells(policies, fractions, str(tmp_path / out), transactions=20)
    assert list(tmp_path.iterdir()) == []


def test_command_line_runs_the_cells(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "dbrepro.fifo_cache", "cells", "--cache-policies", "fifo", "clock", "--pool-fractions", "0.1",
         "--transactions", "50", "--check-consistency", "false", "--out", str(tmp_path / OUT)],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clock_w1_p10.json", "fifo_w1_p10.json"]
    assert json.loads((tmp_path / "fifo_w1_p10.json").read_text())["config"]["cache_policy"] == "fifo"
    assert done.stdout.count("at 10%: hit ratio") == 2


def test_command_line_names_a_bad_template(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "dbrepro.fifo_cache", "cells", "--cache-policies", "fifo", "--pool-fractions", "0.1",
         "--out", str(tmp_path / "{pool}.json")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("dbrepro run fifo_cache: error: --out: ") and done.stderr.count("\n") == 1
