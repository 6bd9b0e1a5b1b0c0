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

Under Solaris's classes (os_ts) the turns are not round robin: simulate()
runs a class's dispatch table (the engine's one copy of each, issue 55's
readings: _engine.ts_dispatch_table(reading, Q)) over sessions on C CPUs,
tick by tick as the engine's dispatcher acts (quantum expiry to ts_tqexp,
the once-a-second raise of the waiting to ts_lwait), with the class's queues
(one per CPU, pinned or with Solaris's affinity and migration, or one for
all CPUs), no cache effects and no switch cost: each session's own time
(from its start), boosts and quanta expired per session, switches.
time_sharing() is the case os_ts ran until issue 55: one CPU, Q in every
level, all sessions entering at level 29 at once. over_phases() samples what
the article could not control: the update's phase and each session's CPU
need, drawn per phase, with staggered starts (readings.csv,
quantum_readings.py). Each run is deterministic, as the mechanism's rules
are; what the real runs add -- caches, switches, the kernel's and the
dispatcher's timing -- is the residual.

Used by quantum_tables.py, quantum_claims.py and quantum_readings.py; tested
in tests/test_quantum_prediction.py.
"""
from __future__ import annotations

import math
import random
from collections import deque
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
# Solaris's scheduling classes (os_ts and the readings of issue 55): not round
# robin, so simulated.

# How a class queues its runnable sessions for the CPUs (simulate's `queues`):
#   pinned   each session on its own CPU (session k on CPU k mod C), as our runs pin them;
#   per_cpu  Solaris's queue per CPU for TS and FX (usr/src/uts/common/disp/disp.c): a thread
#            put back after its quantum stays on its CPU unless the queues at its level are
#            uneven (setbackdq: RUNQ_LEN, less RUNQ_MAX_DIFF = 2 from level 16 up); one that
#            waited longer than rechoose_interval (3 ticks) goes to the CPU running the lowest
#            level (cpu_choose, disp_lowpri_cpu); a CPU with nothing to run takes the best
#            waiting thread of another (disp_getwork);
#   global   one queue every CPU takes from (RT's kp queue; SCHED_FIFO threads left unpinned).
QUEUES = ("pinned", "per_cpu", "global")
RECHOOSE_TICKS = 3       # rechoose_interval
RUNQ_MATCH_LEVEL = 16    # RUNQ_MATCH_PRI: below it the queues' lengths must match
RUNQ_MAX_DIFF = 2


@dataclass(frozen=True)
class Start:
    """How the sessions start, and the phase the article could not control (issue 55):
    session k starts k x gap_s after the first (the article's seconds, times the
    simulation's scale), at entry_level (None: the table's, a thread entering the class),
    the first once-a-second update falls update_phase of a period after the first start,
    and each session needs its own CPU time (simulate's `needs_s`)."""
    gap_s: float = 0.0
    entry_level: int | None = None
    update_phase: float = 1.0


@dataclass(frozen=True)
class Schedule:
    """One simulated run: per session its start and its own time (completion less start, as
    the article's sqlplus timed each statement), and the run's counts."""
    starts_s: tuple[float, ...]
    own_s: tuple[float, ...]
    boosts: float          # raises at the update per session
    expiries: float        # quanta used up per session
    switches: int          # changes of the session running on a CPU, all CPUs
    makespan_s: float      # from the first start to the last completion

    @property
    def mean_s(self) -> float:
        return sum(self.own_s) / len(self.own_s)

    @property
    def spread_s(self) -> float:
        return max(self.own_s) - min(self.own_s)

    @property
    def last_started_s(self) -> float:
        """The last session started (the article's one timed session, started last by its start.sh)."""
        return self.own_s[-1]

    @property
    def switches_per_s(self) -> float:
        return self.switches / self.makespan_s if self.makespan_s > 0 else 0.0


def ts_dispatch_table(reading: str = "all", quantum_ms: float = 0.0) -> dict:
    """A reading's dispatch table and the dispatcher's times, from the engine
    (engine/src/sched/ts_table.hpp: the one copy), Q put where the reading puts it."""
    from dbrepro import _engine

    return dict(_engine.ts_dispatch_table(reading, quantum_ms))


def simulate(table: dict, cpus: int, sessions_per_cpu: int, session_s: float, *, queues: str = "pinned",
             start: Start = Start(), needs_s=None, scale: float = 1.0) -> Schedule:
    """Sessions of `session_s` CPU seconds each (or `needs_s`, one per session) on `cpus`
    CPUs under a class's dispatch table (ts_dispatch_table: its quanta in effect), every
    dispatcher time (the 10 ms tick, the one-second update, the start gap) times `scale`,
    no cache effects and no switch cost, tick by tick as the engine's dispatcher acts. Each
    tick every CPU runs the first session of the highest level it may take (a session
    preempted by a higher level keeps its place at the front of its own; one that finishes
    mid-tick hands the rest on) and the runners are charged at the tick's end; a used-up
    quantum (less than half a tick left) moves its session to the back of ts_tqexp; at each
    update the sessions that waited on a queue through the last tick count one second and
    past ts_maxwait move to the back of ts_lwait. `queues` says which CPU a session may
    run on (QUEUES). Deterministic: the caller draws the phase (readings())."""
    if cpus < 1 or sessions_per_cpu < 1:
        raise ValueError(f"cpus and sessions_per_cpu must be >= 1, got {cpus}, {sessions_per_cpu}")
    if not session_s > 0 or not scale > 0 or not 0 < start.update_phase <= 1 or start.gap_s < 0:
        raise ValueError("session_s and scale must be > 0, update_phase in (0, 1], gap_s >= 0")
    if queues not in QUEUES:
        raise ValueError(f"queues must be one of {', '.join(QUEUES)}, got {queues!r}")
    return _Dispatch(table, cpus, sessions_per_cpu, session_s, queues, start, needs_s, scale).run()


class _Dispatch:
    """simulate()'s state: per domain (a CPU, or the one global queue) a deque per level."""

    def __init__(self, table, cpus, sessions_per_cpu, session_s, queues, start, needs_s, scale):
        def ns(seconds: float) -> int:  # whole nanoseconds, as the engine's dispatcher counts
            return int(seconds * 1e9 + 0.5)

        levels = table["levels"]
        self.tick = ns(table["tick_ms"] / 1000 * scale)
        self.update = ns(table["update_ms"] / 1000 * scale)
        self.first_update = ns(start.update_phase * table["update_ms"] / 1000 * scale)
        self.quantum = [ns(row["quantum_ms"] / 1000 * scale) for row in levels]
        self.tqexp = [row["tqexp"] for row in levels]
        self.lwait = [row["lwait"] for row in levels]
        self.maxwait = [row["maxwait_s"] for row in levels]
        self.cpus, self.queues = cpus, queues
        n = cpus * sessions_per_cpu
        self.n = n
        self.entry = table["entry_level"] if start.entry_level is None else start.entry_level
        needs = [session_s] * n if needs_s is None else list(needs_s)
        if len(needs) != n or not all(x > 0 for x in needs):
            raise ValueError(f"needs_s: {n} CPU times > 0 wanted")
        self.need = [ns(x) for x in needs]
        self.begin = [ns(k * start.gap_s * scale) for k in range(n)]
        domains = 1 if queues == "global" else cpus
        self.q = [[deque() for _ in levels] for _ in range(domains)]
        self.mask = [0] * domains           # bit L set: level L's queue is not empty
        self.level = [self.entry] * n
        self.left = [0] * n                 # of the current quantum
        self.wait = [0] * n                 # dispwait
        self.home = [k % cpus for k in range(n)]  # the CPU it is on (or was last)
        self.queued = [-1] * n              # the domain whose queue holds it, -1: none
        self.off = [0] * n                  # the tick it last left a CPU (cache warmth)
        self.done: list[int | None] = [None] * n
        self.running: list[int | None] = [None] * cpus
        self.last: list[int | None] = [None] * cpus
        self.boosts = self.expiries = self.switches = 0

    # -- queues -------------------------------------------------------------
    def domain(self, cpu: int) -> int:
        return 0 if self.queues == "global" else cpu

    def push(self, s: int, d: int, front: bool = False) -> None:
        lv = self.level[s]
        (self.q[d][lv].appendleft if front else self.q[d][lv].append)(s)
        self.mask[d] |= 1 << lv
        self.queued[s] = d

    def take(self, s: int) -> None:
        d, lv = self.queued[s], self.level[s]
        self.q[d][lv].remove(s)
        if not self.q[d][lv]:
            self.mask[d] &= ~(1 << lv)
        self.queued[s] = -1

    def top(self, d: int) -> int:
        return self.mask[d].bit_length() - 1

    def pop(self, d: int) -> int:
        s = self.q[d][self.top(d)][0]
        self.take(s)
        return s

    def busy_level(self, cpu: int) -> int:
        """What disp_lowpri_cpu compares: the level running there or queued there, -1 when idle."""
        r = self.running[cpu]
        return max(-1 if r is None else self.level[r], self.top(cpu))

    def lowest_cpu(self, hint: int) -> int:
        best, best_level = hint, None
        for i in range(self.cpus):
            cpu = (hint + i) % self.cpus
            lv = self.busy_level(cpu)
            if lv < 0:
                return cpu
            if best_level is None or lv < best_level:
                best, best_level = cpu, lv
        return best

    def place(self, s: int, warm: bool) -> None:
        """setbackdq: the back of its level, on the CPU its class chooses."""
        if self.queues == "global":
            self.push(s, 0)
            return
        cpu = self.home[s]
        if self.queues == "per_cpu":
            cpu = cpu if warm else self.lowest_cpu(cpu)
            lv = self.level[s]
            qlen = len(self.q[cpu][lv]) - (RUNQ_MAX_DIFF if lv >= RUNQ_MATCH_LEVEL else 0)
            other = (cpu + 1) % self.cpus
            if qlen > 0 and len(self.q[other][lv]) < qlen:
                cpu = other
            self.home[s] = cpu
        self.push(s, cpu)

    def move(self, s: int, to: int) -> None:
        self.level[s], self.left[s], self.wait[s] = to, self.quantum[to], 0

    # -- the CPUs -------------------------------------------------------------
    def preempt(self, cpu: int, tick_no: int) -> None:
        r = self.running[cpu]
        self.running[cpu] = None
        self.off[r] = tick_no
        self.push(r, self.domain(cpu), front=True)  # keeps its place, on its CPU

    def pick(self, cpu: int, tick_no: int) -> int | None:
        d = self.domain(cpu)
        r = self.running[cpu]
        if r is not None:
            if self.top(d) <= self.level[r]:
                return r
            self.preempt(cpu, tick_no)
        if self.mask[d]:
            s = self.pop(d)
        elif self.queues == "per_cpu":  # idle: take the best waiting session of another CPU
            others = [c for c in range(self.cpus) if c != cpu and self.mask[c]]
            if not others:
                return None
            s = self.pop(max(others, key=self.top))
        else:
            return None
        self.running[cpu], self.home[s] = s, cpu
        if self.last[cpu] is not None and self.last[cpu] != s:
            self.switches += 1
        self.last[cpu] = s
        return s

    def balance_global(self, tick_no: int) -> None:
        """One queue: the highest waiting session preempts the lowest running one."""
        while self.mask[0]:
            idle = [c for c in range(self.cpus) if self.running[c] is None]
            if idle:
                return
            lowest = min(range(self.cpus), key=lambda c: (self.level[self.running[c]], -c))
            if self.top(0) <= self.level[self.running[lowest]]:
                return
            self.preempt(lowest, tick_no)
            self.pick(lowest, tick_no)

    def quiet_ticks(self, now: int, until: list[int]) -> int:
        """Whole ticks from now in which nothing but running happens: no quantum used up, no
        session done, no start, no update (each CPU's runner already picked)."""
        tick, half = self.tick, self.tick // 2
        m = min(-(-(t - now) // tick) for t in until)
        for r in self.running:
            if r is not None:
                m = min(m, -(-(self.left[r] - half) // tick), -(-self.need[r] // tick))
        return m

    def run(self) -> Schedule:
        tick, now, tick_no, arrived, remaining = self.tick, 0, 0, 0, self.n
        next_update = self.first_update
        while remaining:
            while arrived < self.n and self.begin[arrived] <= now:
                s = arrived
                arrived += 1
                self.move(s, self.entry)
                self.off[s] = -RECHOOSE_TICKS - 1  # never ran: no cache warmth
                self.place(s, warm=False)
            if self.queues == "global":
                self.balance_global(tick_no)
            for cpu in range(self.cpus):
                self.pick(cpu, tick_no)
            # Skip the ticks in which nothing changes but the runners' CPU time (as tick by tick).
            skip = self.quiet_ticks(now, [next_update] + self.begin[arrived:arrived + 1]) - 1
            if skip > 0:
                for r in self.running:
                    if r is not None:
                        self.need[r] -= skip * tick
                        self.left[r] -= skip * tick
                now += skip * tick
                tick_no += skip
            ran: dict[int, int] = {}
            for cpu in range(self.cpus):
                budget = tick
                while budget > 0:
                    s = self.pick(cpu, tick_no)
                    if s is None:
                        break
                    used = min(budget, self.need[s])
                    self.need[s] -= used
                    budget -= used
                    ran[s] = ran.get(s, 0) + used
                    if self.need[s] == 0:
                        self.done[s] = now + tick - budget
                        self.running[cpu] = None
                        remaining -= 1
            now += tick
            tick_no += 1
            for s, used in ran.items():
                if self.done[s] is not None:
                    continue
                self.left[s] -= used
                if self.left[s] <= tick // 2:  # used up, as the engine's core counts it
                    self.expiries += 1
                    cpu = self.running.index(s)
                    self.running[cpu] = None
                    self.off[s] = tick_no
                    self.move(s, self.tqexp[self.level[s]])
                    self.place(s, warm=True)
            if now >= next_update:
                next_update += self.update
                for s in range(self.n):
                    if self.queued[s] < 0 or s in ran:
                        continue
                    self.wait[s] += 1
                    if self.wait[s] > self.maxwait[self.level[s]]:
                        self.boosts += 1
                        self.take(s)
                        self.move(s, self.lwait[self.level[s]])
                        self.place(s, warm=tick_no - self.off[s] <= RECHOOSE_TICKS)
        own = tuple((d - b) / 1e9 for d, b in zip(self.done, self.begin))
        return Schedule(tuple(b / 1e9 for b in self.begin), own, self.boosts / self.n, self.expiries / self.n,
                        self.switches, max(self.done) / 1e9)


@dataclass(frozen=True)
class TsPrediction:
    mean_s: float
    spread_s: float
    completions_s: tuple[float, ...]
    boosts: float          # raises to ts_lwait per session
    expiries: float        # quanta used up per session
    switches_per_s: float  # changes of the running session per second of the run, on this CPU


def time_sharing(sessions: int, quantum_s: float, session_s: float, *, scale: float = 1.0,
                 table: dict | None = None) -> TsPrediction:
    """Finishing times of `sessions` equal CPU-bound sessions of `session_s`
    CPU seconds on one CPU under Solaris's TS class as os_ts runs it until issue 55:
    the default table with `quantum_s` in every level (0: the table's own quanta),
    every dispatcher time times `scale`, all entering at the table's entry level in
    session order at once, the first update a whole period later (simulate())."""
    if sessions < 1:
        raise ValueError(f"sessions must be >= 1, got {sessions}")
    if quantum_s < 0 or not session_s > 0 or not scale > 0:
        raise ValueError("quantum_s must be >= 0, session_s and scale > 0")
    table = table or ts_dispatch_table("all", quantum_s * 1000)
    run = simulate(table, 1, sessions, session_s, scale=scale)
    return TsPrediction(run.mean_s, run.spread_s, run.own_s, run.boosts, run.expiries, run.switches_per_s)


# ---------------------------------------------------------------------------
# The phase the article could not control (issue 55), sampled: the same draws
# for every reading and quantum (common random numbers), so that readings are
# compared on the same phases.


def phase_draws(phases: int, sessions: int, need_jitter: float, seed: int = 55) -> list[tuple[float, tuple]]:
    """`phases` draws of (the update's phase in (0, 1], each session's CPU need as a factor
    1 + need_jitter x a standard normal), from one seed."""
    rng = random.Random(f"{seed}/{sessions}")
    return [(1.0 - rng.random(), tuple(1 + need_jitter * rng.gauss(0.0, 1.0) for _ in range(sessions)))
            for _ in range(phases)]


def over_phases(reading: str, queues: str, cpus: int, sessions_per_cpu: int, quantum_ms: float, session_s: float,
                *, start_gap_s: float, entry_level: int | None, need_jitter: float, phases: int,
                scale: float = 1.0, seed: int = 55) -> list[Schedule]:
    """One cell of a reading simulated over `phases` draws of the article's phase: session k
    starting k x start_gap_s after the first (article seconds, times `scale`) at entry_level,
    the update's phase and each session's CPU need drawn (phase_draws)."""
    table = ts_dispatch_table(reading, quantum_ms)
    sessions = cpus * sessions_per_cpu
    return [simulate(table, cpus, sessions_per_cpu, session_s, queues=queues, scale=scale,
                     start=Start(start_gap_s, entry_level, phase), needs_s=[session_s * f for f in factors])
            for phase, factors in phase_draws(phases, sessions, need_jitter, seed)]
