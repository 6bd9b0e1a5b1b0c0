"""E2's model beside the real MariaDB, cell by cell (issue 30): each engine's
gain paired by repeat within it, whether the model's gain lies in the real
gain's interval, and the per-query mutex account from both sides."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import pandas as pd
import pytest

import key_cache_model_vs_real as vs  # noqa: E402


def _runs(gain_of, *, repeats=5, drift=(1.0, 1.3, 0.8, 1.1, 0.9), distributions=("special", "uniform")):
    """One row per repeat, distribution and segments value: off at 1000 q/s times the
    repeat's drift (shared by its arms, as the machine's load is), N segments at (1 + gain)."""
    rows = []
    for distribution in distributions:
        for r in range(1, repeats + 1):
            for segments in (0, 32):
                qps = 1000.0 * drift[r - 1] * (1 + (gain_of(distribution) if segments else 0.0))
                rows.append({"repeat": r, "distribution": distribution, "points": 10, "threads": 4,
                             "segments": segments, "queries_per_second": qps, "queries": int(qps),
                             "index_fraction": 1.0, "mutex_acquisitions": 30 * int(qps), "mutex_waits": int(qps),
                             "mutex_wait_ns": 2000 * int(qps), "cpu_seconds": 0.5,
                             "cache_lock_waits": 25 * int(qps), "cache_lock_wait_us": 3.0 * int(qps),
                             "data_file_reads": 10 * int(qps), "data_file_read_us": 9.0 * int(qps),
                             "server_cpu_seconds": 0.8, "disturbed": False})
    return pd.DataFrame(rows)


def test_gains_are_paired_by_repeat_so_shared_drift_cancels():
    table = vs.gains(_runs(lambda d: 0.10))
    assert list(table["distribution"]) == ["special", "uniform"]
    # The drift moves both arms of a repeat alike: paired, the interval is the gain itself.
    assert table["gain_pct"].tolist() == pytest.approx([10.0, 10.0])
    assert table["ci_low"].tolist() == pytest.approx([10.0, 10.0]) and table["ci_high"].tolist() == pytest.approx(
        [10.0, 10.0])
    assert (table["repeats"] == 5).all()


def test_fewer_than_five_repeats_give_no_interval():
    table = vs.gains(_runs(lambda d: 0.10, repeats=3))
    assert table["ci_low"].isna().all() and (table["repeats"] == 3).all()


def test_the_model_is_judged_inside_or_outside_the_real_interval_per_cell():
    model = _runs(lambda d: 0.0)
    real = _runs(lambda d: 0.0 if d == "special" else 0.2)
    table = vs.model_vs_real(model, real)
    assert list(table.columns) == vs.VS_COLUMNS
    by = table.set_index("distribution")
    assert by.loc["special", "model_within_real_interval"] == True  # noqa: E712 (a cell of a table)
    assert by.loc["uniform", "model_within_real_interval"] == False  # noqa: E712
    assert by.loc["uniform", "real_gain_pct"] == pytest.approx(20.0)


def test_the_mutex_account_sets_both_sources_per_query_side_by_side():
    table = vs.mutex_account(_runs(lambda d: 0.0), _runs(lambda d: 0.0))
    assert set(table["source"]) == {"model", "mariadb"}
    model = table[table["source"] == "model"].iloc[0]
    real = table[table["source"] == "mariadb"].iloc[0]
    assert model["waits_per_query"] == pytest.approx(30) and model["wait_us_per_query"] == pytest.approx(2.0)
    assert real["waits_per_query"] == pytest.approx(25) and real["wait_us_per_query"] == pytest.approx(3.0)
    assert real["data_file_reads_per_query"] == pytest.approx(10) and math.isnan(model["data_file_reads_per_query"])
    assert (table["repeats"] == 5).all()
