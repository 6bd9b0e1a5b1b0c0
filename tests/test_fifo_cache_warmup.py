"""E5's warm-up: transactions run before the measured phase, uncounted, the
pool's contents kept (the article measured a steady state). Counts only: the
same seed gives the same warm-up and measured phase."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dbrepro import fifo_cache, tpcc

SEED = {"warehouses": 1, "seed": 5, "progress": False, "check_consistency": False}
MEASURED = 300
WARMUP = 600


@pytest.fixture(scope="module")
def cold_and_warm():
    cold = fifo_cache.run("soqol", 0.1, transactions=MEASURED, **SEED)
    warm = fifo_cache.run("soqol", 0.1, transactions=MEASURED, warmup_transactions=WARMUP, **SEED)
    return cold, warm


def test_record_says_how_many_warmup_transactions(cold_and_warm):
    cold, warm = cold_and_warm
    assert cold.config["warmup_transactions"] == 0
    assert warm.config["warmup_transactions"] == WARMUP
    assert warm.metrics["transactions"] == MEASURED


def test_a_warm_pool_misses_less_than_a_cold_one(cold_and_warm):
    cold, warm = cold_and_warm
    assert cold.metrics["pool"]["warmup_misses"] == 0
    # The warm-up filled every frame: the measured phase starts with a full pool.
    assert warm.metrics["pool"]["warmup_misses"] >= warm.metrics["pool"]["frames"]
    assert warm.metrics["pool"]["misses"] < cold.metrics["pool"]["misses"]
    assert warm.metrics["pool"]["hit_ratio"] > cold.metrics["pool"]["hit_ratio"]


def test_counters_after_the_reset_count_the_measured_phase_only(tmp_path):
    # The trace of the same seed holds the warm-up's references, then the
    # measured phase's; the pool counted exactly the latter.
    trace = tmp_path / "t.txt"
    recorded = fifo_cache.record_trace(trace, transactions=MEASURED, warmup_transactions=WARMUP, seed=SEED["seed"],
                                       progress=False)
    ids = fifo_cache.read_trace(trace)
    pool = recorded.metrics["pool"]
    assert 0 < pool["warmup_references"] < len(ids)
    assert pool["hits"] + pool["misses"] == len(ids) - pool["warmup_references"]
    # The simulator, told the warm-up's length, counts the same requests.
    replay = fifo_cache.simulate("lru", ids, pool["frames"], warmup=pool["warmup_references"])
    assert replay["requests"] == pool["hits"] + pool["misses"]
    whole = fifo_cache.simulate("lru", ids, pool["frames"])
    assert replay["misses"] < whole["misses"]


def test_the_same_seed_gives_the_same_counts():
    runs = [fifo_cache.run("lru", 0.1, transactions=200, warmup_transactions=200, **SEED) for _ in range(2)]
    keys = ("hits", "misses", "reads", "writes", "hit_locks", "warmup_misses")
    assert [{k: r.metrics["pool"][k] for k in keys} for r in runs][0] == {k: runs[1].metrics["pool"][k] for k in keys}


def test_simulator_warmup_counts_requests_after_it():
    # lru of 2: 1 2 fill uncounted; then 1 hit, 3 miss (evicts 2), 2 miss.
    stats = fifo_cache.simulate("lru", [1, 2, 1, 3, 2], 2, warmup=2)
    assert (stats["requests"], stats["hits"], stats["misses"], stats["hit_locks"]) == (3, 1, 2, 1)
    with pytest.raises(tpcc.ConfigError, match="^warmup: must be an integer in 0..2"):
        fifo_cache.simulate("lru", [1, 2], 2, warmup=3)


def test_bad_warmup_is_named():
    with pytest.raises(tpcc.ConfigError, match=r"^warmup_transactions: must be in 0\.\.\d+, got -1"):
        fifo_cache.run("lru", 0.1, transactions=10, warmup_transactions=-1, progress=False)


def test_command_line_takes_a_warmup(tmp_path):
    out, trace, record = tmp_path / "run.json", tmp_path / "t.txt", tmp_path / "t.json"
    base = [sys.executable, "-m", "dbrepro.fifo_cache"]
    done = subprocess.run(base + ["run", "--cache-policy", "fifo", "--transactions", "100", "--warmup-transactions", "100",
                                  "--check-consistency", "false", "--out", str(out)], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["config"]["warmup_transactions"] == 100
    done = subprocess.run(base + ["trace", "--transactions", "50", "--warmup-transactions", "50", "--out", str(trace),
                                  "--record", str(record)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    pool = json.loads(record.read_text())["metrics"]["pool"]
    assert pool["warmup_references"] + pool["hits"] + pool["misses"] == len(fifo_cache.read_trace(trace))
