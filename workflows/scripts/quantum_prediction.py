"""E4's analytic prediction: when do S equal sessions sharing one CPU under
round robin finish, from the quantum alone?

S sessions, each needing T seconds of CPU, start together on one CPU and
take turns of Q seconds in a fixed order (the kernel's SCHED_RR run queue, the
engine's fiber queue). A session needs n = ceil(T / Q) turns, the last one
r = T - (n - 1) Q long. After n - 1 full rounds every session has r left, so
session i (1..S) finishes at

    C_i = (n - 1) S (Q + c) + (i - 1) (r + c) + r

where c is what each switch costs (0 for finishing order alone). Mean and
spread (max - min, as the article's delta) follow:

    mean   = (n - 1) S (Q + c) + (S - 1) (r + c) / 2 + r
    spread = (S - 1) (r + c)

Q >= T gives run to completion (one after another: mean (S + 1) T / 2,
spread (S - 1) T); Q -> 0 gives processor sharing (all finish at S T, no
spread). One session alone never switches: C = T. With sessions spread
evenly over several CPUs, each CPU is one such queue (pinned runs exactly;
unpinned ones as far as the kernel keeps the queues even).

What this leaves out -- work a longer quantum saves (switches, cache refill),
other load, real-time throttling -- shows as the residual, measured minus
predicted.

Used by quantum_tables.py and quantum_claims.py; tested in
tests/test_quantum_prediction.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Prediction:
    mean_s: float
    spread_s: float
    completions_s: tuple[float, ...]


def round_robin(sessions: int, quantum_s: float, session_s: float, switch_s: float = 0.0) -> Prediction:
    """Completion times of `sessions` equal sessions of `session_s` CPU seconds
    under round robin with quantum `quantum_s` on one CPU, each switch costing
    `switch_s`."""
    if sessions < 1:
        raise ValueError(f"sessions must be >= 1, got {sessions}")
    if not quantum_s > 0 or not session_s > 0 or switch_s < 0:
        raise ValueError("quantum_s and session_s must be > 0, switch_s >= 0")
    if sessions == 1:
        return Prediction(session_s, 0.0, (session_s,))
    turns = max(1, math.ceil(session_s / quantum_s - 1e-9))
    last = session_s - (turns - 1) * quantum_s
    before_last_round = (turns - 1) * sessions * (quantum_s + switch_s)
    completions = tuple(before_last_round + i * (last + switch_s) + last for i in range(sessions))
    mean = before_last_round + (sessions - 1) * (last + switch_s) / 2 + last
    return Prediction(mean, (sessions - 1) * (last + switch_s), completions)


def finishing_order_gain_pct(sessions: int, short_s: float, long_s: float, session_s: float) -> float:
    """How much shorter the mean session time is under the long quantum than
    under the short one from finishing order alone (no switch cost), percent."""
    short = round_robin(sessions, short_s, session_s).mean_s
    return 100 * (short - round_robin(sessions, long_s, session_s).mean_s) / short
