"""E4's claims and tables (workflows/scripts/quantum_claims.py, quantum_tables.py,
quantum_sizing.py) on made-up runs: the mechanism named for a gain (finishing
order, work saved, neither), claims per scheduler and placement, the
prediction and residual beside each point, sessions sized at the article's
ratio of quantum to session. The verdicts are the shared evaluator's
(dbrepro.verdicts, workflows/claims/quantum.yaml), tested with it."""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
import quantum_claims
import quantum_tables  # noqa: E402
from dbrepro.quantum_sizing import article_session_seconds, session_seconds

PAPER = yaml.safe_load((REPO / "workflows" / "data" / "quantum_paper.yaml").read_text())
# How a mechanism is named: the criteria file's `attribution` (work saved from 1% less CPU time per session,
# finishing order from half the gain).
ATTRIBUTION = yaml.safe_load((REPO / "workflows" / "claims" / "quantum.yaml").read_text())["attribution"]


def rows(mean_long_5: float, cpu_short_5: float, workload: str = "cpu", cpu_short_1: float = 1.0) -> pd.DataFrame:
    """os_rr pinned, Q 4 and 20 ms, 1 and 5 per CPU, sessions of 1 s alone. At 5/CPU and Q = 4 ms the
    mean is 5 s (processor sharing) and each session's CPU time `cpu_short_5`; at Q = 20 ms the mean is
    `mean_long_5` and the CPU time 1 s; alone at Q = 4 ms a session takes `cpu_short_1`. The repeats'
    range is +-1% of the CPU time."""
    out = []
    for q in (4, 20):
        for spc in (1, 5):
            mean = 1.0 if spc == 1 else (5.0 if q == 4 else mean_long_5)
            cpu = (cpu_short_5 if spc == 5 else cpu_short_1) if q == 4 else 1.0
            out.append({
                "scheduler": "os_rr", "placement": "pinned", "workload": workload, "quantum_ms": str(q),
                "sessions_per_cpu": spc, "mean_seconds": mean, "cpu_s_per_session": cpu,
                "cpu_s_per_session_lo": 0.99 * cpu, "cpu_s_per_session_hi": 1.01 * cpu,
                "effective_quantum_ms": q, "delta_seconds": (spc - 1) * q / 1000, "delta_over_q": spc - 1,
                "predicted_spread_s": (spc - 1) * q / 1000, "kernel_switches_per_second": 1000 / q,
                "voluntary_switches": 0, "involuntary_switches": 1000 / q, "refill_s_per_session": 0.0,
            })
    return pd.DataFrame(out)


def mechanism(table: pd.DataFrame) -> str:
    (line,) = [m for m in quantum_claims.mechanisms(table, ATTRIBUTION) if "cpu" in m]
    return line


def test_gain_without_work_saved_is_neither_mechanism():
    line = mechanism(rows(mean_long_5=4.8, cpu_short_5=1.0))
    assert "mean +4.00% shorter" in line and "mechanism: neither finishing order nor work saved" in line


def test_gain_of_finishing_order_is_named():
    # Round robin predicts 4.992 s at Q = 4 ms and 4.96 s at 20 ms: a 0.64% gain from finishing order.
    line = mechanism(rows(mean_long_5=4.97, cpu_short_5=1.0))
    assert "finishing order predicts +0.64%" in line and "mechanism: finishing order (no work saved)" in line


def test_gain_with_cpu_time_saved_is_work_saved():
    e = quantum_claims.Effect(rows(mean_long_5=4.75, cpu_short_5=1.05), 5, ATTRIBUTION)
    assert e.work_saved and e.mechanism.startswith("switch cost (work saved")


def memory_rows(waits_short_5: float, preempted_short_5: float) -> pd.DataFrame:
    """rows() of the memory workload with the shared table's latch counters: at 5/CPU and Q = 4 ms
    `waits_short_5` latch waits and `preempted_short_5` holder preemptions per session, at 20 ms 100
    waits and 1 preemption; the repeats' range of the waits is +-5%. No CPU time saved."""
    table = rows(mean_long_5=4.75, cpu_short_5=1.0, workload="memory")
    short5 = (table["quantum_ms"] == "4") & (table["sessions_per_cpu"] == 5)
    table["latch_waits"] = [waits_short_5 if s else 100.0 for s in short5]
    table["holder_preemptions"] = [preempted_short_5 if s else 1.0 for s in short5]
    table["latch_waits_lo"], table["latch_waits_hi"] = 0.95 * table["latch_waits"], 1.05 * table["latch_waits"]
    return table


def test_gain_with_fewer_latch_waits_and_holder_preemptions_is_latch_holder_preemption():
    e = quantum_claims.Effect(memory_rows(waits_short_5=300.0, preempted_short_5=20.0), 5, ATTRIBUTION)
    assert not e.work_saved and e.latch_saved
    assert e.mechanism == "latch-holder preemption (fewer holder preemptions and latch waits per session)"
    (line,) = quantum_claims.mechanisms(memory_rows(300.0, 20.0), ATTRIBUTION)
    assert "latch waits per session 300 -> 100, holder preemptions per session 20.0 -> 1.0" in line


def test_fewer_latch_waits_without_fewer_preemptions_or_within_the_noise_are_not_named():
    assert not quantum_claims.Effect(memory_rows(300.0, 1.0), 5, ATTRIBUTION).latch_saved  # holders not preempted less
    assert not quantum_claims.Effect(memory_rows(105.0, 20.0), 5, ATTRIBUTION).latch_saved  # inside the repeats' range


def test_runs_without_latch_counters_name_no_latch_mechanism():
    e = quantum_claims.Effect(rows(mean_long_5=4.75, cpu_short_5=1.0, workload="memory"), 5, ATTRIBUTION)
    assert not e.latch_saved


def test_a_work_saving_below_the_criteria_files_threshold_is_not_named():
    # 0.5% less CPU time per session, beyond the repeats' range: under work_saved_min_pct (1%).
    e = quantum_claims.Effect(rows(mean_long_5=4.75, cpu_short_5=1.005).assign(
        cpu_s_per_session_lo=lambda r: r["cpu_s_per_session"] * 0.999,
        cpu_s_per_session_hi=lambda r: r["cpu_s_per_session"] * 1.001), 5, ATTRIBUTION)
    assert e.work_beyond_noise and not e.work_saved


def test_work_saved_within_the_noise_at_one_session_per_cpu_is_not_named():
    # Alone (no switches) the CPU time already differs by 6% between the quanta: 4.8% at 5/CPU proves nothing.
    e = quantum_claims.Effect(rows(4.75, 1.05, cpu_short_1=1.06), 5, ATTRIBUTION)
    assert not e.work_saved and e.work_floor == pytest.approx(100 * 0.06 / 1.06)


def test_claims_name_each_placement():
    from dbrepro import verdicts as vd

    table = pd.concat([rows(4.75, 1.05), rows(4.75, 1.05).assign(placement="unpinned")])
    table["repeats"] = 3
    found = []
    for placement, part in table.groupby("placement"):
        found += quantum_claims.scheduler_claims(part, "os_rr", PAPER, vd.load_criteria("quantum"), None, placement)
    assert {r.variant for r in found} == {"os_rr pinned", "os_rr unpinned"}


def test_prediction_and_residual_beside_each_point():
    table = rows(4.75, 1.05).drop(columns=["predicted_spread_s"])
    table["sessions"] = 2 * table["sessions_per_cpu"]
    table["switch_cost_us"] = [float("nan"), float("nan"), 100.0, 100.0]  # 0.1 ms per switch where measured
    out = quantum_tables.add_prediction(table).set_index(["quantum_ms", "sessions_per_cpu"])
    alone = out.loc[("4", 1)]
    assert alone["predicted_mean_s"] == pytest.approx(1.0) and alone["residual_s"] == pytest.approx(0.0)
    # Q = 20 ms, 5 sessions of 1 s, c = 0.1 ms: 49 rounds of 5 x 20.1 ms, then 4 x 20.1 ms / 2 + 20 ms.
    long = out.loc[("20", 5)]
    assert long["predicted_mean_s"] == pytest.approx(49 * 5 * 0.0201 + 2 * 0.0201 + 0.02)
    assert long["predicted_spread_s"] == pytest.approx(4 * 0.0201)
    assert long["residual_s"] == pytest.approx(4.75 - long["predicted_mean_s"])


def test_sessions_sized_at_the_articles_ratio():
    # Workload 1: 133.5 s among 5 per CPU at Q = 10 ms -> 26.7 s of CPU each; 400 ms of it is 20 ms of 1.335 s.
    assert article_session_seconds(PAPER, "cpu") == pytest.approx(26.7)
    assert session_seconds(PAPER, "cpu", 20) == pytest.approx(1.335)
    # Workload 2: 33.98 s alone at 20 ms; Q = 20 ms for its 400 -> 1.699 s.
    assert session_seconds(PAPER, "memory", 20) == pytest.approx(1.699)


def test_a_memory_gain_is_credited_by_latch_waits_when_cpu_time_does_not_fall():
    from dbrepro import verdicts as vd

    def per_repeat(waits_fall: bool) -> pd.DataFrame:
        # 5 repeats of 1, 3, 6 per CPU at Q 4 and 20 ms: the long quantum's gain 0%, 5%, 10% (it grows);
        # CPU time per session the same at both quanta; latch waits per session 300 -> 100 where they fall.
        out = []
        for r in range(1, 6):
            for q in (4, 20):
                for spc, gain in ((1, 0.0), (3, 0.05), (6, 0.10)):
                    out.append({"scheduler": "os_rr", "placement": "pinned", "workload": "memory",
                                "quantum_ms": str(q), "sessions_per_cpu": spc, "repeat": r,
                                "mean_seconds": spc * (1.0 - (gain if q == 20 else 0.0)) * (1 + r / 1000),
                                "cpu_s_per_session": 1.0 + r / 1000,
                                "latch_waits": (100.0 if q == 20 and waits_fall else 300.0) + r,
                                "holder_preemptions": 1.0 if q == 20 and waits_fall else 20.0,
                                "effective_quantum_ms": q, "voluntary_switches": 0, "involuntary_switches": 1000 / q,
                                "refill_s_per_session": 0.0, "ts_boosts": 0.0})  # every record has it (os_ts's)
        return pd.DataFrame(out)

    criteria = vd.load_criteria("quantum")
    for waits_fall, verdict in ((True, "yes"), (False, "no")):  # neither measure falls: no work saved
        repeats = per_repeat(waits_fall)
        keys = ["scheduler", "placement", "workload", "quantum_ms", "sessions_per_cpu"]
        grouped = repeats.drop(columns="repeat").groupby(keys)
        medians = grouped.median()
        for column in ("cpu_s_per_session", "latch_waits"):
            medians[f"{column}_lo"], medians[f"{column}_hi"] = grouped[column].min(), grouped[column].max()
        medians = medians.reset_index().assign(repeats=5)
        (found,) = quantum_claims.scheduler_claims(medians, "os_rr", PAPER, criteria, repeats, "pinned")
        assert found.claim_id == "memory_gain_grows" and found.outcome.reproduced == verdict
        assert any("work saved by latch_waits" in note for note in found.notes)


def test_the_time_less_the_dispatchers_share_of_the_cpus():
    """Issue 52, item 4: the TS dispatcher's own CPU time (which falls as Q grows) is taken from the
    sessions' CPUs; the sessions' time with their own CPUs is mean x (1 - its share)."""
    import pandas as pd

    rows = pd.DataFrame({"mean_seconds": [10.0, 10.0, 8.0], "dispatcher_cpu_ms_per_second": [70.0, 40.0, 0.0],
                         "cpus": [2, 2, 2]})
    less = quantum_claims.less_dispatcher(rows)
    assert list(less) == pytest.approx([10.0 * (1 - 0.035), 10.0 * (1 - 0.02), 8.0])
    # A record without a dispatcher (os_rr, or from before it): the time as it is.
    assert list(quantum_claims.less_dispatcher(pd.DataFrame({"mean_seconds": [3.0]}))) == [3.0]
