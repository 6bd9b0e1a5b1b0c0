"""E4's predictions: when do S equal sessions sharing one CPU finish, from
the scheduler's rules alone (round robin analytically; Solaris's TS class by
simulation)?

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

Under Solaris's time-sharing class (os_ts) the turns are not round robin:
time_sharing() simulates the default ts_dptbl (the engine's one copy,
_engine.ts_dispatch_table()) with Q in every level over S sessions of equal
CPU need, tick by tick as the engine's dispatcher acts (quantum expiry to
ts_tqexp, the once-a-second raise of the waiting to ts_lwait), with no cache
effects and no switch cost: the mean and spread of finishing times, boosts
and quanta expired per session, switches per second. It is deterministic
(every session enters at level 29 in session order), as the mechanism's
rules are; what the real runs add to it -- caches, switches, the kernel's
and the dispatcher's timing -- is the residual.

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


# ---------------------------------------------------------------------------
# Solaris's time-sharing class (os_ts): not round robin, so simulated.


@dataclass(frozen=True)
class TsPrediction:
    mean_s: float
    spread_s: float
    completions_s: tuple[float, ...]
    boosts: float          # raises to ts_lwait per session
    expiries: float        # quanta used up per session
    switches_per_s: float  # changes of the running session per second of the run, on this CPU


def ts_dispatch_table() -> dict:
    """The engine's default ts_dptbl and dispatcher times (engine/src/sched/ts_table.hpp): the one copy."""
    from dbrepro import _engine

    return dict(_engine.ts_dispatch_table())


def time_sharing(sessions: int, quantum_s: float, session_s: float, *, scale: float = 1.0,
                 table: dict | None = None) -> TsPrediction:
    """Finishing times of `sessions` equal CPU-bound sessions of `session_s`
    CPU seconds on one CPU under Solaris's TS class as os_ts emulates it: the
    default table with `quantum_s` in every level (0: the table's own quanta),
    every dispatcher time (the 10 ms tick, the one-second update) times
    `scale`, no cache effects and no switch cost. Each tick the session
    running gets the CPU (the first of the highest level; a session that
    finishes mid-tick hands the rest on) and is charged at the tick's end; a
    used-up quantum moves it to the back of ts_tqexp; at each update the
    sessions that did not run in the last tick count one second of waiting and
    past ts_maxwait move to the back of ts_lwait. All enter at the table's
    entry level in session order, as the engine's threads do."""
    if sessions < 1:
        raise ValueError(f"sessions must be >= 1, got {sessions}")
    if quantum_s < 0 or not session_s > 0 or not scale > 0:
        raise ValueError("quantum_s must be >= 0, session_s and scale > 0")
    table = table or ts_dispatch_table()
    levels = table["levels"]

    def ns(seconds: float) -> int:  # whole nanoseconds, as the engine's dispatcher counts
        return int(seconds * 1e9 + 0.5)

    tick = ns(table["tick_ms"] / 1000 * scale)
    update = ns(table["update_ms"] / 1000 * scale)
    quantum = [ns((quantum_s if quantum_s > 0 else row["quantum_ms"] / 1000) * scale) for row in levels]
    entry = table["entry_level"]
    queues: list[list[int]] = [[] for _ in levels]
    level = [entry] * sessions
    queues[entry] = list(range(sessions))
    timeleft = [quantum[entry]] * sessions
    dispwait = [0] * sessions
    need = [ns(session_s)] * sessions
    done: list[int | None] = [None] * sessions
    boosts, expiries = [0] * sessions, [0] * sessions
    now, next_update, switches, last = 0, update, 0, None

    def move(s: int, to: int) -> None:
        queues[level[s]].remove(s)
        level[s], timeleft[s], dispwait[s] = to, quantum[to], 0
        queues[to].append(s)

    def runner() -> int | None:
        for q in reversed(queues):
            if q:
                return q[0]
        return None

    while any(d is None for d in done):
        ran: dict[int, int] = {}
        left = tick
        while left > 0:
            s = runner()
            if s is None:
                break
            if s != last:
                switches += last is not None
                last = s
            used = min(left, need[s])
            need[s] -= used
            left -= used
            ran[s] = ran.get(s, 0) + used
            if need[s] == 0:
                done[s] = now + tick - left
                queues[level[s]].remove(s)
        now += tick
        for s, used in ran.items():
            if done[s] is not None:
                continue
            timeleft[s] -= used
            if timeleft[s] <= tick // 2:  # used up, as the engine's core counts it (less than half a tick left)
                expiries[s] += 1
                move(s, levels[level[s]]["tqexp"])
        if now >= next_update:
            next_update += update
            for s in range(sessions):
                if done[s] is not None or s in ran:
                    continue
                dispwait[s] += 1
                if dispwait[s] > levels[level[s]]["maxwait_s"]:
                    boosts[s] += 1
                    move(s, levels[level[s]]["lwait"])
    completions = tuple(d / 1e9 for d in done)
    makespan = max(completions)
    return TsPrediction(sum(completions) / sessions, makespan - min(completions), completions,
                        sum(boosts) / sessions, sum(expiries) / sessions,
                        switches / makespan if makespan > 0 else 0.0)
