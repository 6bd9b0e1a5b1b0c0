"""E4's analytic round-robin prediction (workflows/scripts/quantum_prediction.py)
against cases worked out by hand."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from quantum_prediction import finishing_order_gain_pct, round_robin  # noqa: E402


def test_one_session_never_switches():
    p = round_robin(1, 0.004, 1.3, switch_s=0.001)
    assert p.mean_s == 1.3 and p.spread_s == 0 and p.completions_s == (1.3,)


def test_quantum_longer_than_session_runs_to_completion():
    # Q >= T: one after another, 1, 2, 3 s.
    p = round_robin(3, 2.0, 1.0)
    assert p.completions_s == pytest.approx((1.0, 2.0, 3.0))
    assert p.mean_s == pytest.approx(2.0)  # (S + 1) T / 2
    assert p.spread_s == pytest.approx(2.0)  # (S - 1) T


def test_tiny_quantum_approaches_processor_sharing():
    p = round_robin(4, 1e-6, 1.0)
    assert p.mean_s == pytest.approx(4.0, rel=1e-5)  # all finish at S T
    assert p.spread_s == pytest.approx(0.0, abs=1e-5)


def test_last_partial_turn_by_hand():
    # T = 1, Q = 0.4, S = 2: A .4 B .4 A .4 B .4 (1.6 s), A .2 -> 1.8, B .2 -> 2.0.
    p = round_robin(2, 0.4, 1.0)
    assert p.completions_s == pytest.approx((1.8, 2.0))
    assert p.mean_s == pytest.approx(1.9)
    assert p.spread_s == pytest.approx(0.2)


def test_switch_cost_by_hand():
    # T = 1, Q = 0.5, S = 2, c = 0.01: A .5, c, B .5, c, A .5 -> 1.52, c, B .5 -> 2.03.
    p = round_robin(2, 0.5, 1.0, switch_s=0.01)
    assert p.completions_s == pytest.approx((1.52, 2.03))
    assert p.mean_s == pytest.approx(1.775)
    assert p.spread_s == pytest.approx(0.51)


def test_session_a_whole_number_of_quanta():
    # T = 3 Q exactly: three full turns each, the last round finishes one quantum apart.
    p = round_robin(5, 0.02, 0.06)
    assert p.completions_s == pytest.approx((0.22, 0.24, 0.26, 0.28, 0.30))


def test_finishing_order_explains_little_at_the_articles_ratio():
    # Workload 2, 15 per CPU, 34 s sessions, Q 20 -> 400 ms: about Q/2T of the mean, far below 18.7%.
    gain = finishing_order_gain_pct(15, 0.02, 0.4, 34.0)
    assert 0 < gain < 1
    # and all of it when the quantum is longer than the session: (S T - (S + 1) T / 2) / S T.
    assert finishing_order_gain_pct(3, 0.001, 2.0, 1.0) == pytest.approx(100 * (3 - 2) / 3, rel=1e-3)


@pytest.mark.parametrize("bad", [dict(sessions=0), dict(quantum_s=0), dict(session_s=-1), dict(switch_s=-0.1)])
def test_rejects_bad_values(bad):
    with pytest.raises(ValueError):
        round_robin(**{"sessions": 2, "quantum_s": 0.01, "session_s": 1.0, **bad})


# ---------------------------------------------------------------------------
# Solaris's TS class (quantum_prediction.time_sharing), simulated over the
# engine's own ts_dptbl, against schedules worked by hand: Q = 300 ms in every
# level, 10 ms ticks, every session entering at level 29.


def test_ts_one_session_runs_alone():
    from quantum_prediction import time_sharing

    p = time_sharing(1, 0.3, 1.0)
    assert p.completions_s == pytest.approx((1.0,)) and p.spread_s == 0


def test_ts_two_sessions_by_hand():
    # A 0-0.3 (29 -> 19), B 0.3-0.6 (-> 19), A 0.6-0.9 done, B 0.9-1.2 done; no update reached.
    from quantum_prediction import time_sharing

    p = time_sharing(2, 0.3, 0.6)
    assert p.completions_s == pytest.approx((0.9, 1.2))
    assert p.mean_s == pytest.approx(1.05) and p.spread_s == pytest.approx(0.3)
    assert p.boosts == 0 and p.expiries == 1


def test_ts_update_lifts_the_waiting_above_the_one_that_ran():
    # A, B, C each use a quantum at 29 (-> 19, 0.3 s left each); A runs on at 19 from 0.9 s.
    # At the 1 s update B and C waited (maxwait 0): raised to lwait(19) = 51 above A, which
    # ran: B 1.0-1.3 done, C 1.3-1.6 done, A (0.2 s left) 1.6-1.8 done.
    from quantum_prediction import time_sharing

    p = time_sharing(3, 0.3, 0.6)
    assert p.completions_s == pytest.approx((1.8, 1.3, 1.6))
    assert p.spread_s == pytest.approx(0.5)
    assert p.boosts == pytest.approx(2 / 3)


def test_ts_scale_scales_every_time():
    # One factor on the quanta, the update and the tick: the schedule scales with it.
    from quantum_prediction import time_sharing

    full, small = time_sharing(5, 0.4, 26.7), time_sharing(5, 0.4, 26.7 * 0.05, scale=0.05)
    assert small.mean_s == pytest.approx(full.mean_s * 0.05, rel=1e-6)
    assert small.spread_s == pytest.approx(full.spread_s * 0.05, rel=1e-6, abs=1e-9)
    assert small.boosts == full.boosts and small.expiries == full.expiries
