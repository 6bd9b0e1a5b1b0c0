"""E5's Python face: TPC-C on the disk-backed pool through dbrepro.fifo_cache
(and tpcc.run(stack="disk")), the record's pool section and frame columns,
bad options named in one line, the trace simulator, and the command line."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from dbrepro import fifo_cache, tpcc

SMALL = {"warehouses": 1, "transactions": 400, "seed": 2, "progress": False}


@pytest.fixture(scope="module")
def runs():
    return {policy: fifo_cache.run(policy, 0.1, **SMALL) for policy in ("lru", "soqol")}


def test_disk_runs_are_consistent_and_report_their_pool(runs):
    for policy, result in runs.items():
        pool = result.metrics["pool"]
        assert result.consistent is True
        assert result.config["stack"] == "disk" and result.config["cache_policy"] == policy
        assert pool["policy"] == policy
        assert pool["fraction"] == pytest.approx(0.1, abs=0.01)
        assert pool["reads"] > 0 and pool["writes"] >= 0
        assert 0.5 < pool["hit_ratio"] < 1.0
        assert pool["hits"] + pool["misses"] > 10 * result.metrics["transactions"]


def test_hits_lock_only_under_lru(runs):
    assert runs["lru"].metrics["pool"]["hit_locks"] == runs["lru"].metrics["pool"]["hits"]
    assert runs["soqol"].metrics["pool"]["hit_locks"] == 0


def test_frame_has_nopm_tpm_and_pool_columns(runs):
    frame = runs["soqol"].to_frame()
    assert set(frame["txn_type"]) == set(fifo_cache.FULL_MIX)
    for column in ("nopm", "tpm", "hit_ratio", "pool_reads", "pool_writes", "hit_locks", "cache_policy"):
        assert column in frame.columns
    row = frame.iloc[0]
    assert row["tpm"] > row["nopm"] > 0


def test_two_terminals_share_the_pool_and_stay_consistent():
    result = fifo_cache.run("lru", 0.1, terminals=2, **SMALL)
    assert result.consistent is True
    assert result.config["terminals"] == 2
    assert result.metrics["transactions"] >= SMALL["transactions"]
    assert result.metrics["pool"]["misses"] > 0


def test_bad_options_name_the_parameter():
    with pytest.raises(tpcc.ConfigError, match="^cache_policy: invalid value 'arc' \\(allowed: lru, "):
        tpcc.run(stack="disk", cache_policy="arc", transactions=10, progress=False)
    with pytest.raises(tpcc.ConfigError, match="^pool_fraction: must be in"):
        fifo_cache.run("lru", 0.0, transactions=10, progress=False)
    with pytest.raises(tpcc.ConfigError, match="^trace_path: only the disk stack"):
        tpcc.run(stack="bare", trace_path="/tmp/x", transactions=10, progress=False)
    with pytest.raises(tpcc.ConfigError, match="^trace_path: a reference string is recorded by one terminal"):
        tpcc.run(stack="disk", terminals=2, trace_path="/tmp/x", transactions=10, progress=False)
    with pytest.raises(tpcc.ConfigError, match="^trace_path: set by the study"):  # record_trace records one
        fifo_cache.run("lru", 0.1, trace_path="/tmp/x", transactions=10, progress=False)
    with pytest.raises(tpcc.ConfigError, match="^terminals: more than 1 needs"):
        tpcc.run(stack="bare", terminals=2, transactions=10, progress=False)
    with pytest.raises(tpcc.ConfigError, match="^policy: invalid choice"):
        fifo_cache.simulate("belady", [1, 2], 1)


def test_simulator_counts_a_known_trace():
    stats = fifo_cache.simulate("lru", [1, 2, 3, 1, 4, 2, 1], 3)
    assert (stats["requests"], stats["hits"], stats["misses"], stats["hit_locks"]) == (7, 2, 5, 2)


def test_ghost_hits_in_the_simulator_and_the_pool():
    # 2Q, cache 8: 1 evicted from A1in, back while its id is in A1out (a ghost
    # hit: into Am), still there after 8 new pages; FIFO has evicted it.
    trace = [*range(1, 10), 1, *range(10, 18), 1]
    two_q, fifo = (fifo_cache.simulate(p, trace, 8) for p in ("2q", "fifo"))
    assert (two_q["ghost_hits"], two_q["hits"], two_q["misses"]) == (1, 1, 18)
    assert (fifo["ghost_hits"], fifo["hits"], fifo["misses"]) == (0, 0, 19)
    pools = {p: fifo_cache.run(p, 0.1, check_consistency=False, **SMALL) for p in ("2q", "fifo")}
    assert pools["2q"].metrics["pool"]["ghost_hits"] > 0
    assert pools["fifo"].metrics["pool"]["ghost_hits"] == 0
    assert pools["2q"].to_frame().iloc[0]["pool_ghost_hits"] == pools["2q"].metrics["pool"]["ghost_hits"]


def test_command_line_writes_a_record(tmp_path):
    out = tmp_path / "run.json"
    done = subprocess.run(
        [sys.executable, "-m", "dbrepro.fifo_cache", "run", "--cache-policy", "clock", "--pool-fraction", "0.2",
         "--transactions", "200", "--out", str(out)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "clock at 20%" in done.stdout
    record = json.loads(out.read_text())
    assert record["metrics"]["pool"]["policy"] == "clock"
    bad = subprocess.run([sys.executable, "-m", "dbrepro.fifo_cache", "run", "--cache-policy", "arc", "--out",
                          str(tmp_path / "x.json")], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.strip().count("\n") == 0
    assert "error: --cache-policy: invalid value 'arc' (allowed: lru, " in bad.stderr


@pytest.mark.parametrize("text, line", [("obj_id\n1\n", 1), ("1\n7,8192\n", 2), ("1\n2\n\n2.5\n", 4)])
def test_a_txt_line_we_cannot_read_fails_naming_file_and_line(tmp_path, text, line):
    path = tmp_path / "foreign.txt"
    path.write_text(text)
    with pytest.raises(RuntimeError, match=re.escape(f"trace '{path}' line {line}:")):
        fifo_cache.read_trace(path)
