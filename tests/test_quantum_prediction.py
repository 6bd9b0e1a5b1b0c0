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


# ---------------------------------------------------------------------------
# The general simulation (quantum_prediction.simulate, issue 55): several CPUs,
# the class's queues, the readings' tables, the article's start; against
# schedules worked by hand (10 ms ticks).


def _sim(reading, cpus, per_cpu, needs, quantum_ms=300, **kwargs):
    from quantum_prediction import simulate, ts_dispatch_table

    return simulate(ts_dispatch_table(reading, quantum_ms), cpus, per_cpu, max(needs), needs_s=needs, **kwargs)


def test_one_priority_is_round_robin_on_one_cpu():
    # FX (or RT) at one priority, A B C of 0.6 s: turns of 0.3 s, A B C A B C.
    for reading, queues in (("fx", "pinned"), ("rt", "global")):
        run = _sim(reading, 1, 3, [0.6] * 3, queues=queues)
        assert run.own_s == pytest.approx((1.2, 1.5, 1.8)) and run.boosts == 0


def test_one_queue_for_two_cpus_by_hand():
    # A B C D (0.6, 0.6, 0.6, 0.01 s), one queue: A, B run 0-.3 and go behind C, D; C and D
    # take the CPUs at .3, D is done at .31 and A takes its CPU (done .61); C goes back at .6
    # behind B: B .6-.9, C .61-.91.
    needs = [0.6, 0.6, 0.6, 0.01]
    assert _sim("rt", 2, 2, needs, queues="global").own_s == pytest.approx((0.61, 0.9, 0.91, 0.31))
    # Pinned (A, C on CPU 0; B, D on CPU 1): A .9, C 1.2; B .61, D .31.
    assert _sim("fx", 2, 2, needs, queues="pinned").own_s == pytest.approx((0.9, 0.61, 1.2, 0.31))


def test_an_idle_cpu_takes_work_from_the_other():
    # Solaris's queue per CPU: A, C on CPU 0 and B, D on CPU 1 (each start goes to the idle or
    # lowest CPU from its own); B and D are done by .2, so CPU 1 takes C from CPU 0's queue and
    # runs it .2-.8. Pinned, C waits for A: .3-.9.
    needs = [0.3, 0.1, 0.6, 0.1]
    assert _sim("fx", 2, 2, needs, queues="per_cpu").own_s == pytest.approx((0.3, 0.1, 0.8, 0.2))
    assert _sim("fx", 2, 2, needs, queues="pinned").own_s == pytest.approx((0.3, 0.1, 0.9, 0.2))


def test_the_update_at_its_phase_by_hand():
    # The hand-worked case above (A B C of 0.6 s, Q 0.3 s in every level) with the update at
    # 0.5 s: A (at 19 since .3) and C (at 29) waited: raised to 51 and 52 above B, running at 29
    # with 0.1 s of its quantum left, which they preempt: C .5-.8 (-> 42), A .8-1.1 done,
    # C 1.1-1.4 done, B 1.4-1.5 (its quantum: -> 19) and 1.5-1.8 done.
    from quantum_prediction import Start

    run = _sim("all", 1, 3, [0.6] * 3, start=Start(update_phase=0.5))
    assert run.own_s == pytest.approx((1.1, 1.8, 1.4))
    assert run.boosts == pytest.approx(2 / 3)


def test_staggered_starts_time_each_session_from_its_own():
    # Q 0.1 s in every level, both sessions woken at 58: A (0.5 s) sinks 58 -> 48 -> 38 by .2,
    # when B (0.3 s) starts at 58 and preempts it: B .2-.4 (-> 38, behind A), A .4-.5 (-> 28),
    # B .5-.6 done, A .6-.8 done. B's own time: .6 - .2.
    from quantum_prediction import Start

    run = _sim("all", 1, 2, [0.5, 0.3], quantum_ms=100, start=Start(gap_s=0.2, entry_level=58))
    assert run.starts_s == pytest.approx((0.0, 0.2))
    assert run.own_s == pytest.approx((0.8, 0.4))
    assert run.last_started_s == pytest.approx(0.4)
    assert run.makespan_s == pytest.approx(0.8)


def test_phase_draws_are_the_same_for_every_reading():
    from quantum_prediction import over_phases, phase_draws

    draws = phase_draws(3, 4, 0.001)
    assert draws == phase_draws(3, 4, 0.001) and len(draws) == 3
    assert all(0 < phase <= 1 and len(needs) == 4 for phase, needs in draws)
    a = over_phases("fx", "pinned", 2, 2, 20, 0.5, start_gap_s=0.01, entry_level=58, need_jitter=0.001, phases=3)
    b = over_phases("all", "pinned", 2, 2, 20, 0.5, start_gap_s=0.01, entry_level=58, need_jitter=0.001, phases=3)
    assert [round(sum(r.own_s), 6) for r in a] != [round(sum(r.own_s), 6) for r in b]  # another table
    assert len({r.own_s for r in a}) > 1  # the phases differ


@pytest.mark.parametrize("bad", [dict(queues="lifo"), dict(cpus=0), dict(needs_s=[1.0])])
def test_simulate_rejects_bad_values(bad):
    from quantum_prediction import simulate, ts_dispatch_table

    with pytest.raises(ValueError):
        simulate(ts_dispatch_table("fx", 20), bad.pop("cpus", 1), 2, 1.0, **bad)
