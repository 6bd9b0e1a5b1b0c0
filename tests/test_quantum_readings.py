"""E4's readings of the article's "the quantum was set to Q" (issue 55): the
table that simulates each beside the article's numbers and selects one
(workflows/scripts/quantum_readings.py), the runs of a reading with the
article's start (os_ts_<reading>), and the claims that judge the selected one."""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
import yaml

from dbrepro import quantum

REPO = Path(__file__).resolve().parents[1]
PAPER = yaml.safe_load((REPO / "workflows" / "data" / "quantum_paper.yaml").read_text())
RULE = yaml.safe_load((REPO / "workflows" / "claims" / "quantum.yaml").read_text())["readings"]


def test_the_articles_start_from_its_own_numbers():
    start = quantum.article_start(PAPER)
    # Its last session's time less its sqlplus time at 10 ms, over its 10 sessions.
    assert start["start_gap_ms"] == pytest.approx(1000 * (134.38 - 133.6) / 10)
    assert start["ts_entry_level"] == 58 and start["ts_update_phase"] == 0.0
    alone = [33.98, 33.93, 33.96]
    mean = sum(alone) / 3
    sd = math.sqrt(sum((x - mean) ** 2 for x in alone) / 2)
    assert start["need_jitter"] == pytest.approx(sd / mean)


def test_cells_take_the_articles_numbers_and_the_rules_roles():
    from quantum_readings import cells

    found = {(c["workload"], c["sessions_per_cpu"], c["quantum_ms"]): c for c in cells(PAPER, RULE["select_on"])}
    selecting = {k for k, c in found.items() if c["role"] == "select"}
    assert selecting == {("cpu", 5, q) for q in (10, 20, 340, 400)}
    c = found[("cpu", 5, 400)]
    assert (c["article_mean_s"], c["article_spread_s"]) == (122.1, pytest.approx(132.5 - 108.4))
    assert c["article_switches_per_s"] == 116 and c["article_last_started_s"] == 118.1
    assert c["article_drop_pct"] == pytest.approx(100 * (1 - 122.1 / 133.5))
    assert found[("cpu", 15, 400)]["article_drop_pct"] == pytest.approx(100 * (1 - 319.8 / 399.1))
    assert found[("memory", 15, 400)]["article_drop_pct"] == pytest.approx(100 * (1 - 422.64 / 519.98))
    assert found[("memory", 10, 400)]["article_spread_s"] is None  # its table prints none at 10


def test_every_reading_is_simulated_under_its_own_queues_and_pinned():
    from quantum_prediction import ts_dispatch_table
    from quantum_readings import variants

    rows = variants(ts_dispatch_table()["readings"], RULE["candidates"])
    assert {(r["reading"], r["queues"]) for r in rows if r["candidate"]} == {
        ("all", "per_cpu"), ("low", "per_cpu"), ("fx", "per_cpu"), ("rt", "global")}
    assert {r["reading"] for r in rows if r["queues"] == "pinned" and r["start"] == "article"} == {
        "all", "low", "fx", "rt"}
    assert [r for r in rows if r["start"] == "together"] == [
        {"reading": "all", "queues": "pinned", "start": "together", "candidate": False}]


def test_the_nearest_candidate_on_the_selecting_cells_is_selected():
    from quantum_readings import selected_reading, with_selection

    def row(reading, candidate, role, mean, spread):
        return {"reading": reading, "candidate": candidate, "role": role, "mean_s": mean, "spread_s": spread,
                "article_mean_s": 100.0, "article_spread_s": 10.0}

    table = pd.DataFrame([
        row("a", True, "select", 101.0, 12.0),   # 1 + 2
        row("a", True, "judge", 500.0, 500.0),   # judging cells never count
        row("b", True, "select", 100.5, 10.5),   # 0.5 + 0.5: nearest
        row("c", False, "select", 100.0, 10.0),  # exact, but not a candidate
    ])
    out = with_selection(table, RULE["select_on"])
    assert out.groupby("reading")["distance_s"].first().dropna().to_dict() == pytest.approx({"a": 3.0, "b": 1.0})
    assert out.loc[out["reading"] == "c", "distance_s"].isna().all()
    assert selected_reading(out) == "b"


def test_a_small_readings_table_runs_end_to_end(monkeypatch):
    import quantum_readings

    # Two of the selecting cells, one phase each: the pipeline, not the numbers.
    small = [c for c in quantum_readings.cells(PAPER, RULE["select_on"])
             if c["workload"] == "cpu" and c["sessions_per_cpu"] == 5 and c["quantum_ms"] in (340, 400)]
    monkeypatch.setattr(quantum_readings, "cells", lambda paper, select_on: small)
    table = quantum_readings.readings_table(PAPER, RULE, phases=1)
    assert len(table) == 2 * 9  # 9 rows: ours together, 4 readings under their queues, 4 pinned
    assert table["selected"].sum() == 2  # one reading, both its cells
    for column in ("mean_s", "mean_s_lo", "mean_s_hi", "spread_over_q", "switches_per_s", "drop_pct",
                   "article_mean_s", "distance_s"):
        assert column in table
    assert (table["mean_s_lo"] <= table["mean_s_hi"]).all()


def test_a_scheduler_is_named_by_its_reading_and_start():
    assert quantum.scheduler_label({"scheduler": "os_rr"}) == "os_rr"
    assert quantum.scheduler_label({"scheduler": "os_ts", "ts_reading": "all", "start_gap_ms": 0.0,
                                    "ts_update_phase": 1.0, "ts_entry_level": 29}) == "os_ts"
    assert quantum.scheduler_label({"scheduler": "os_ts", "ts_reading": "rt", "start_gap_ms": 78.0,
                                    "ts_update_phase": 0.0, "ts_entry_level": 58}) == "os_ts_rt"
    assert quantum.scheduler_label({"scheduler": "os_ts", "ts_reading": "all", "start_gap_ms": 78.0}) == "os_ts_all"


def test_a_sessions_time_is_its_own_from_its_start():
    def session(start, wall, cpu):
        return {"wall_seconds": wall, "start_seconds": start, "cpu_seconds": cpu, "voluntary_switches": 0,
                "involuntary_switches": 0, "engine_switches": 0, "result": 1.0, "effective_quantum_ms": 1.0,
                "switch_cost_fit": {"units": 0, "sum_x": 0, "sum_y": 0, "sum_xy": 0, "sum_xx": 0},
                "latch_acquisitions": 0, "latch_waits": 0, "latch_wait_ns": 0, "latch_holder_preemptions": 0}

    raw = {"sessions": [session(0.0, 2.0, 1.0), session(0.5, 1.5, 1.0)], "makespan_seconds": 2.0,
           "table_bytes": 0, "cache_bytes": 0, "latches": 0}
    m = quantum.summarize(raw, 10.0)
    assert (m["mean_seconds"], m["delta_seconds"]) == (1.5, 1.0)  # own times 2.0 and 1.0
    assert m["last_started_seconds"] == 1.0
    assert (m["first_finisher_cpu_share"], m["last_finisher_cpu_share"]) == (1.0, 0.5)


def test_the_findings_say_where_the_selected_reading_was_not_run(tmp_path):
    """A profile whose runs lack the selected reading: each finding reads 'not run', naming it, and the
    schedulers it did run stay notes (no crash on a scope that matched nothing)."""
    import quantum_claims

    rows = []
    for q in (20, 400):
        for spc in (1, 2):
            rows.append({"scheduler": "os_ts", "placement": "pinned", "workload": "cpu", "quantum_ms": str(q),
                         "sessions_per_cpu": spc, "sessions": 2 * spc, "mean_seconds": 1.0 * spc,
                         "delta_seconds": 0.1, "delta_over_q": 0.1 / (q / 1000), "cpu_s_per_session": 1.0,
                         "cpu_s_per_session_lo": 1.0, "cpu_s_per_session_hi": 1.0, "voluntary_switches": 0,
                         "involuntary_switches": 10, "refill_s_per_session": 0.0,
                         "repeats": 1, "effective_quantum_ms": q, "predicted_mean_s": 1.0 * spc,
                         "predicted_spread_s": 0.0, "ts_boosts": 1.0, "ts_expiries": 1.0})
    runs = tmp_path / "runs.csv"
    pd.DataFrame(rows).to_csv(runs, index=False)
    readings = tmp_path / "readings.csv"
    pd.DataFrame([{"reading": "rt", "candidate": True, "selected": True, "distance_s": 58.9},
                  {"reading": "fx", "candidate": True, "selected": False, "distance_s": 59.3}]).to_csv(readings,
                                                                                                      index=False)
    table = quantum_claims.main(runs, REPO / "workflows" / "data" / "quantum_paper.yaml", tmp_path / "claims.csv",
                                tmp_path / "claims.md", readings_path=readings)
    findings = table[table["role"] == "finding"]
    assert (findings["ours"] == "not run").all()
    assert findings["reason"].str.contains("os_ts_rt").all()
    md = (tmp_path / "claims.md").read_text()
    assert "the findings judge os_ts_rt: the reading rt" in md and "rt 58.9 s, fx 59.3 s" in md
