"""E4's claims: each of the article's findings, our number, theirs, and
whether ours reproduces it by the criterion written in
workflows/claims/quantum.yaml (the only place the criteria live); and which
mechanism each effect comes from, per scheduler and placement:
  finishing order  with turns long against a session some sessions finish
                   early; no work is saved (quantum_prediction.round_robin
                   gives what it explains);
  work saved       fewer switches, less cache refill: less CPU time per
                   session for the same work (beyond the repeats' range and
                   beyond the change between the quanta at one session per
                   CPU, where no switch happens);
  latch-holder     a session switched out while it holds a chain latch of the
  preemption       shared table's buffer cache keeps every session needing that
                   latch waiting; a longer quantum switches less often, so
                   fewer holders are preempted and fewer sessions wait (holder
                   preemptions and latch waits per session fall);
  turn length      the spread of session times, (S - 1) Q under round robin.

The findings judge one scheduler and placement (the criteria's `scope`): since issue 55 the
reading of the article's "the quantum was set to Q" that readings.csv selects (os_ts_<reading>);
every other scheduler's effects are notes beside them.

A time claim is `yes` only when the work saved shows it too (its criterion's
work_saved: CPU time per session, or any one of a list of measures such as
latch waits per session), not from finishing order alone; a run table without the columns a claim's
mechanism needs (`requires` in the yaml), or without each repeat's run, gives
`inconclusive` with the reason. Writes claims.csv (dbrepro.verdicts.CLAIM_COLUMNS)
and claims.md (the table, each claim's criterion, and the effects).

Run by Snakemake (rule quantum_claims), or by hand:
    python workflows/scripts/quantum_claims.py runs.csv paper.yaml claims.csv claims.md [RUN.json ...]
"""
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from quantum_prediction import finishing_order_gain_pct, ts_dispatch_table
from quantum_readings import selected_reading
from script_common import load_paper

from dbrepro import verdicts as vd
from dbrepro.verdicts import ClaimResult


def quanta(rows: pd.DataFrame) -> list[int]:
    return sorted(int(float(q)) for q in rows["quantum_ms"].unique() if q != "fair")


def at(rows, q, spc, column="mean_seconds") -> float:
    hit = rows[(rows["quantum_ms"] != "fair") & (rows["quantum_ms"].astype(str).map(_as_int) == q)
               & (rows["sessions_per_cpu"] == spc)]
    return float(hit[column].iloc[0]) if len(hit) else float("nan")


def _as_int(value):
    try:
        return int(float(value))
    except ValueError:
        return None


def gain_pct(rows, short, long, spc) -> float:
    a, b = at(rows, short, spc), at(rows, long, spc)
    return 100 * (a - b) / a


class Samples:
    """Each repeat's run of one scheduler (None where only medians over the repeats are at hand)."""

    def __init__(self, rows: pd.DataFrame, per_repeat: pd.DataFrame | None, scheduler: str, placement: str,
                 context: vd.Context = vd.DEFAULT):
        self.rows = rows
        self.context = context  # what this run can judge
        self.per_repeat = None if per_repeat is None else per_repeat[
            (per_repeat["scheduler"] == scheduler) & (per_repeat.get("placement", placement) == placement)]
        if self.per_repeat is not None:  # the sample a criterion may name (its `column`)
            self.per_repeat = self.per_repeat.assign(mean_seconds_less_dispatcher=less_dispatcher(self.per_repeat))
        self.repeats = int(rows["repeats"].max()) if "repeats" in rows else 1

    def of(self, workload, q, spc, column) -> pd.Series:
        """One point's runs by repeat (disturbed runs left out): the paired bootstrap's sample."""
        r = self.per_repeat
        hit = r[(r["workload"] == workload) & (r["quantum_ms"].astype(str).map(_as_int) == q)
                & (r["sessions_per_cpu"] == spc)]
        return vd.by_repeat(hit, column)


def _unmet(c: vd.Criterion, s: Samples) -> vd.Outcome | None:
    """Inconclusive when the mechanism's columns or each repeat's run are missing."""
    missing = vd.missing_columns(c, s.rows.columns)
    if missing:
        return vd.inconclusive(f"the runs lack {', '.join(missing)}, which this claim's mechanism needs "
                               "(finishing order alone could explain the time)")
    if s.per_repeat is None:
        return vd.inconclusive(f"runs.csv holds medians over {s.repeats} repeat(s); the bootstrap needs each "
                               "repeat's run (the claims rule's `records` input)", repeats=s.repeats)
    return None


def _work_saved_alternatives(c: vd.Criterion) -> list[dict]:
    """The criterion's work_saved: one measure, or a list of them (any one shown credits the gain)."""
    saved = c.get("work_saved")
    if not saved:
        return []
    return list(saved) if isinstance(saved, (list, tuple)) else [saved]


def _with_work_saved(c: vd.Criterion, s: Samples, workload, short, long, spc, outcome: vd.Outcome,
                     shown: list[str] | None = None) -> vd.Outcome:
    """The time effect's verdict, credited only where the work saved shows it too: the criterion's
    work_saved measure, or any one of its list (CPU time per session, latch waits per session).
    `shown` gets a line per measure: its change and whether it showed the saving."""
    alternatives = _work_saved_alternatives(c)
    if not alternatives or outcome.reproduced == "no":
        return outcome
    works = []
    for saved in alternatives:
        column = saved["column"]
        if column not in s.per_repeat:
            work = vd.inconclusive(f"the runs lack {column}")
        else:
            work = vd.evaluate_medians(s.of(workload, long, spc, column), s.of(workload, short, spc, column),
                                       c, s.context, band=saved["band"], effect=saved["effect"])
        works.append((column, work))
        if shown is not None:
            shown.append(f"{column} Q={short}->{long} ms at {spc}/CPU: {work.reproduced}"
                         f"{vd.interval(work, 1, '%')}")
    credited = [w for _, w in works if w.reproduced == "yes"]
    # The verdict needs both: the time effect's own verdict where the work saved is shown, else the
    # work's; the effect and interval reported stay the time effect's.
    if credited or outcome.reproduced != "yes":
        return outcome
    verdict = "no" if all(w.reproduced == "no" for _, w in works) else "inconclusive"
    reason = "; ".join(f"work saved ({column}, Q={short}->{long} ms): {w.reason or 'not shown'}" for column, w in works)
    return vd.Outcome(verdict, outcome.value, outcome.ci_low, outcome.ci_high, outcome.repeats,
                      reason, outcome.pairing, outcome.cells_dropped, confidence=outcome.confidence)


def _mechanism_notes(c: vd.Criterion, variant: str, rows: pd.DataFrame, spc: int, attribution: dict,
                     shown: list[str]) -> list[str]:
    """What the counters say of a time finding: the mechanism they support and each work-saved measure."""
    e = Effect(rows, spc, attribution)
    lines = [f"{variant}: {c.id}: the counters support: {e.mechanism}"]
    return lines + [f"{variant}: {c.id}: work saved by {line}" for line in shown]


def _pair(rows, short, long, spc, column, fmt) -> str | None:
    """'a -> b' of a column at the two quanta, None where the runs lack it."""
    if column not in rows:
        return None
    a, b = at(rows, short, spc, column), at(rows, long, spc, column)
    return None if a != a and b != b else f"{fmt.format(a)} -> {fmt.format(b)}"


def counters(rows: pd.DataFrame, scheduler: str, short, long, spc) -> str:
    """What the counters show between the two quanta at `spc` sessions per CPU: switches per second
    (and under os_ts boosts and quanta expired per session and the dispatcher's cost), the memory
    workload's holder preemptions and latch waits, and the prediction beside the measurement."""
    shown = [("switches/s", "scheduler_switches_per_second" if "scheduler_switches_per_second" in rows
              else "kernel_switches_per_second", "{:.0f}"),
             ("CPU s/session", "cpu_s_per_session", "{:.3f}")]
    if scheduler.startswith("os_ts"):
        shown += [("boosts/session", "ts_boosts", "{:.1f}"), ("quanta expired/session", "ts_expiries", "{:.1f}"),
                  ("dispatcher CPU ms/s", "dispatcher_cpu_ms_per_second", "{:.1f}")]
    if (rows["workload"] == "memory").all():
        shown += [("holder preemptions/session", "holder_preemptions", "{:.1f}"),
                  ("latch waits/session", "latch_waits", "{:.0f}")]
    shown += [("mean s", "mean_seconds", "{:.3f}"), ("predicted mean s", "predicted_mean_s", "{:.3f}"),
              ("spread s", "delta_seconds", "{:.3f}"), ("predicted spread s", "predicted_spread_s", "{:.3f}"),
              # finishing order as the counters show it: a CPU's share over their own time (1/S each under
              # processor sharing), the first session to finish and the last
              ("CPU share of the first finisher", "first_finisher_cpu_share", "{:.3f}"),
              ("of the last", "last_finisher_cpu_share", "{:.3f}")]
    parts = [f"{label} {pair}" for label, column, fmt in shown
             if (pair := _pair(rows, short, long, spc, column, fmt)) is not None]
    return f"counters at {spc}/CPU, Q {short} -> {long} ms ({model_of(scheduler)} predicts): " + ", ".join(parts)


def model_of(scheduler: str) -> str:
    """What runs.csv's prediction of a scheduler's rows simulates."""
    if scheduler == "os_ts":
        return "the TS table"
    if scheduler.startswith("os_ts_"):
        return f"the {scheduler.removeprefix('os_ts_')} reading"
    return "round robin"


def scheduler_claims(rows: pd.DataFrame, scheduler: str, paper: dict, criteria: vd.Criteria,
                     per_repeat: pd.DataFrame | None, placement: str = "pinned",
                     context: vd.Context = vd.DEFAULT) -> list[ClaimResult]:
    found = []
    k = criteria.claims
    attribution = criteria.attribution
    s = Samples(rows, per_repeat, scheduler, placement, context)
    variant = f"{scheduler} {placement}"
    memory = rows[rows["workload"] == "memory"]
    cpu = rows[rows["workload"] == "cpu"]
    if not memory.empty:
        qs = quanta(memory)  # each workload its own quanta (os_ts runs the memory workload at two)
        short, long = qs[0], qs[-1]
        spcs = sorted(memory["sessions_per_cpu"].unique())  # each workload its own sessions per CPU
        low, high = spcs[0], spcs[-1]
        c = k["memory_gain_grows"]
        shown: list[str] = []
        g_low, g_high = gain_pct(memory, short, long, low), gain_pct(memory, short, long, high)
        outcome = _unmet(c, s)
        if outcome is None:
            def growth(sl, ll, sh, lh, axis=-1):
                def gain(a, b):
                    return 100.0 * (1.0 - np.median(b, axis=axis) / np.median(a, axis=axis))
                return gain(sh, lh) - gain(sl, ll)

            cells = [s.of("memory", q, spc, "mean_seconds") for spc in (low, high) for q in (short, long)]
            outcome = _with_work_saved(c, s, "memory", short, long, high,
                                       vd.evaluate_statistic(cells, growth, c.band, int(c.min_repeats), context),
                                       shown)
        found.append(ClaimResult(c, f"Q {short}->{long} ms: {g_low:.1f}% at {low}/CPU, {g_high:.1f}% at {high}/CPU"
                                    f"{vd.interval(outcome, 1, ' points')}", outcome, variant=variant,
                                 why=counters(memory, scheduler, short, long, high),
                                 notes=_mechanism_notes(c, variant, memory, high, attribution, shown)))
    if not cpu.empty:
        qs = quanta(cpu)
        short, long = qs[0], qs[-1]
        spcs = sorted(cpu["sessions_per_cpu"].unique())
        high = spcs[-1]
        c = k["cpu_mean_drops"]
        shown = []
        g = gain_pct(cpu, short, long, high)
        outcome = _unmet(c, s)
        column = c.get("column", "mean_seconds")  # the criterion's sample: the time, or the time less the dispatcher
        if outcome is None:
            outcome = _with_work_saved(c, s, "cpu", short, long, high, vd.evaluate_medians(
                s.of("cpu", long, high, column), s.of("cpu", short, high, column), c, context), shown)
        why = counters(cpu, scheduler, short, long, high)
        less = (f", {-outcome.value:.1f}% less the dispatcher's share of the CPUs" if column != "mean_seconds"
                and math.isfinite(outcome.value) else "")
        found.append(ClaimResult(c, f"{g:.1f}% shorter at Q={long} than Q={short} ms, {high}/CPU{less}"
                                    f"{vd.interval(outcome, 1, '%')}", outcome, variant=variant, why=why,
                                 notes=_mechanism_notes(c, variant, cpu, high, attribution, shown)))
        c = k["spread_grows"]
        d_short, d_long = at(cpu, short, high, "delta_seconds"), at(cpu, long, high, "delta_seconds")
        outcome = _unmet(c, s) or vd.evaluate_medians(s.of("cpu", long, high, "delta_seconds"),
                                                      s.of("cpu", short, high, "delta_seconds"), c, context)
        p_short, p_long = (_column(cpu, q, high, "predicted_spread_s") for q in (short, long))
        model = model_of(scheduler)
        found.append(ClaimResult(c, f"{d_short:.3f} s at Q={short} -> {d_long:.3f} s at Q={long} ms, {high}/CPU"
                                    f"{vd.interval(outcome, 2, 'x')}", outcome, variant=variant, why=why,
                                 notes=[f"{variant}: {c.id}: the counters support: turn length ({model} "
                                        f"predicts a spread of {p_short:.3f} -> {p_long:.3f} s from S, Q and the "
                                        f"session's length; measured {d_short:.3f} -> {d_long:.3f} s)"]))
        c = k["spread_over_q_constant"]
        # The article's quanta (from quanta_from_ms up); all of ours if that leaves fewer than two.
        article_quanta = [q for q in qs if q >= int(c.quanta_from_ms)]
        compared = article_quanta if len(article_quanta) >= 2 else qs
        ratios = [r for r in (at(cpu, q, high, "delta_over_q") for q in compared) if r == r and r > 0]
        outcome = _unmet(c, s)
        if outcome is None:
            def range_ratio(*cells, axis=-1):
                medians = np.stack([np.median(x, axis=axis) for x in cells], axis=-1)
                return medians.max(axis=-1) / medians.min(axis=-1)

            outcome = vd.evaluate_statistic([s.of("cpu", q, high, "delta_over_q") for q in compared], range_ratio,
                                            c.band, int(c.min_repeats), context)
        spread = max(ratios) / min(ratios) if ratios else float("inf")
        found.append(ClaimResult(c, f"delta/Q from {min(ratios, default=0):.1f} to {max(ratios, default=0):.1f} "
                                    f"(x{spread:.1f}) over Q = {', '.join(map(str, compared))} ms, {high}/CPU"
                                    f"{vd.interval(outcome, 2, 'x')}", outcome, variant=variant,
                                 why=f"delta/Q per Q {', '.join(f'{r:.1f}' for r in ratios)}; {why}"))
    return found


def judged_scheduler(scope: dict, selected: str | None) -> str | None:
    """The scheduler the findings judge: the criteria's, or (scope.reading: selected, issue 55)
    os_ts_<the reading readings.csv selects>; None where it selects none."""
    if scope.get("reading") == "selected":
        return f"os_ts_{selected}" if selected else None
    return scope.get("scheduler", "os_rr")


def scoped(runs: pd.DataFrame, scope: dict, selected: str | None = None) -> tuple[str, str] | None:
    """The (scheduler, placement) the findings judge: the criteria's scheduler (judged_scheduler) at
    the first of its placements the runs have."""
    scheduler = judged_scheduler(scope, selected)
    placements = scope.get("placement") or ["pinned", "unpinned"]
    have = set(map(tuple, runs[["scheduler", "placement"]].drop_duplicates().to_numpy()))
    return next(((scheduler, p) for p in placements if (scheduler, p) in have), None)


def _or(value: float, default: float) -> float:
    """The quantum read back, or the one asked for where none was (NaN, 0)."""
    return value if value == value and value > 0 else default


def _column(rows, q, spc, column) -> float:
    """at(), NaN where the runs lack the column (runs from before it was measured)."""
    return at(rows, q, spc, column) if column in rows else float("nan")


def pct_drop(a: float, b: float) -> float:
    return 100 * (a - b) / a if a else float("nan")


class Effect:
    """What a longer quantum did for one configuration at `spc` sessions per CPU."""

    def __init__(self, rows: pd.DataFrame, spc: int, attribution: dict):
        self.attribution = attribution
        qs = quanta(rows)
        self.short, self.long, self.spc = qs[0], qs[-1], spc
        s, l_ = self.short, self.long
        self.gain = pct_drop(at(rows, s, spc), at(rows, l_, spc))
        alone = at(rows, s, 1)  # the session's time alone
        q_eff = {q: _or(at(rows, q, spc, "effective_quantum_ms"), q) for q in (s, l_)}
        self.order = (finishing_order_gain_pct(spc, q_eff[s] / 1000, q_eff[l_] / 1000, alone)
                      if alone == alone and spc > 1 else 0.0)
        if rows["scheduler"].astype(str).str.startswith("os_ts").all() and "predicted_mean_s" in rows:
            # Under TS (or a reading) the finishing order is the table's, simulated (runs.csv's prediction,
            # no switch cost).
            self.order = pct_drop(at(rows, s, spc, "predicted_mean_s"), at(rows, l_, spc, "predicted_mean_s"))
        self.work = pct_drop(at(rows, s, spc, "cpu_s_per_session"), at(rows, l_, spc, "cpu_s_per_session"))
        self.work_beyond_noise = at(rows, s, spc, "cpu_s_per_session_lo") > at(rows, l_, spc, "cpu_s_per_session_hi")
        # One session per CPU never switches: what the quanta change there is noise.
        self.work_floor = abs(pct_drop(at(rows, s, 1, "cpu_s_per_session"), at(rows, l_, 1, "cpu_s_per_session")))
        self.switches = {q: at(rows, q, spc, "involuntary_switches") + at(rows, q, spc, "voluntary_switches")
                         for q in (s, l_)}
        self.refill = {q: at(rows, q, spc, "refill_s_per_session") for q in (s, l_)}
        # The shared table's latches (memory workload): waits and holder preemptions per session.
        self.latch_waits = {q: _column(rows, q, spc, "latch_waits") for q in (s, l_)}
        self.preemptions = {q: _column(rows, q, spc, "holder_preemptions") for q in (s, l_)}
        self.latch_drop = pct_drop(self.latch_waits[s], self.latch_waits[l_])
        self.latch_beyond_noise = _column(rows, s, spc, "latch_waits_lo") > _column(rows, l_, spc, "latch_waits_hi")
        # Finishing order as it happened: the CPU share of the first and the last session to finish.
        self.shares = {q: (_column(rows, q, spc, "first_finisher_cpu_share"),
                           _column(rows, q, spc, "last_finisher_cpu_share")) for q in (s, l_)}

    @property
    def work_saved(self) -> bool:
        floor = self.work_floor if self.spc > 1 and self.work_floor == self.work_floor else 0.0
        return (self.work >= float(self.attribution["work_saved_min_pct"]) and self.work_beyond_noise
                and self.work > floor)

    @property
    def latch_saved(self) -> bool:
        """Fewer latch waits per session, beyond the repeats' range, with fewer holder preemptions."""
        return (self.latch_drop >= float(self.attribution["work_saved_min_pct"]) and bool(self.latch_beyond_noise)
                and self.preemptions[self.long] < self.preemptions[self.short])

    @property
    def mechanism(self) -> str:
        found = []
        if self.work_saved:
            found.append("switch cost (work saved: less CPU time per session)")
        if self.latch_saved:
            found.append("latch-holder preemption (fewer holder preemptions and latch waits per session)")
        if found:
            return " and ".join(found)
        if not self.gain > 0:
            return "none (no gain)"
        if self.order >= float(self.attribution["finishing_order_share"]) * self.gain:
            return "finishing order (no work saved)"
        return "neither finishing order nor work saved (noise or other load)"


def mechanisms(runs: pd.DataFrame, attribution: dict) -> list[str]:
    """Per scheduler, placement and workload at the most sessions per CPU: the gain, what finishing order
    predicts of it, the work saved, switches and refill per session, and the mechanism."""
    lines = []
    for (scheduler, placement, workload), rows in runs.groupby(["scheduler", "placement", "workload"], sort=True):
        if scheduler == "os_fair" or len(quanta(rows)) < 2:
            continue
        high = rows["sessions_per_cpu"].max()
        e = Effect(rows, high, attribution)
        refill = ", ".join(f"{v * 1000:.2f} ms" if v == v else "not measured" for v in e.refill.values())
        latch = ""
        if workload == "memory" and e.latch_waits[e.short] == e.latch_waits[e.short]:
            latch = (f"; latch waits per session {e.latch_waits[e.short]:.0f} -> {e.latch_waits[e.long]:.0f}, "
                     f"holder preemptions per session {e.preemptions[e.short]:.1f} -> {e.preemptions[e.long]:.1f}")
        shares = ""
        if all(v == v for pair in e.shares.values() for v in pair):
            shares = ("; CPU share of the first and last finisher "
                      + " -> ".join(f"{a:.3f}/{b:.3f}" for a, b in e.shares.values()))
        lines.append(
            f"- **{scheduler}, {placement}, {workload}, {high}/CPU**, Q {e.short} -> {e.long} ms: mean "
            f"{e.gain:+.2f}% shorter (finishing order predicts {e.order:+.2f}%); CPU time per session "
            f"{-e.work:+.2f}%; switches per session {e.switches[e.short]:.0f} -> {e.switches[e.long]:.0f}; "
            f"refill per session {refill}{latch}{shares}; mechanism: {e.mechanism}.")
    return lines


def less_dispatcher(rows: pd.DataFrame) -> pd.Series:
    """Each run's mean session time less the TS dispatcher's share of its CPUs (issue 52): the
    emulator's own thread (os_ts) runs above every session and its CPU time, which falls as Q
    grows (fewer expiries to apply, two priority changes each), is taken from the sessions'
    CPUs; Solaris's clock did that work in its tick at a cost that did not grow with the
    expiries' rate. Under processor sharing a share d of the CPUs lengthens every session by the
    factor 1 / (1 - d), so mean x (1 - d) is the time with the sessions' own CPUs. 0 where no
    dispatcher ran (os_rr, os_fair, engine)."""
    def column(name, default):
        found = rows[name] if name in rows else pd.Series(default, index=rows.index)
        return pd.to_numeric(found, errors="coerce").fillna(default)

    dispatcher, cpus = column("dispatcher_cpu_ms_per_second", 0.0), column("cpus", 1).clip(lower=1)
    return rows["mean_seconds"] * (1.0 - dispatcher / (1000.0 * cpus))


def per_repeat_runs(record_paths) -> pd.DataFrame | None:
    """Each repeat's run (one row per record), or None without records."""
    if not record_paths:
        return None
    from quantum_tables import run_row

    rows = pd.DataFrame([run_row(p) for p in record_paths])
    rows["quantum_ms"] = rows["quantum_ms"].astype(str)
    if "source" not in rows:  # the record's path names its repeat (results/raw/quantum/rep<r>/...)
        rows["source"] = [str(p) for p in record_paths]
    return rows


def readings_path_of(readings_path, run_config) -> Path | None:
    """readings.csv: the one given, else the run's own (results/<run>/tables/quantum/readings.csv)."""
    if readings_path:
        return Path(readings_path)
    results = str((run_config or {}).get("results_dir") or "results").rstrip("/")
    found = Path(results) / "tables" / "quantum" / "readings.csv"
    return found if found.exists() else None


def reading_note(readings: pd.DataFrame | None, scheduler: str | None) -> str:
    """What the findings judge and why: the reading readings.csv selects, its distance from the
    article and the next candidate's (issue 55)."""
    if readings is None:
        return "readings.csv not found: no reading selected"
    candidates = readings[readings["candidate"].astype(bool)].groupby("reading").first()
    ranked = candidates.sort_values("distance_s")
    shown = ", ".join(f"{r} {d:.1f} s" for r, d in ranked["distance_s"].items())
    chosen = selected_reading(readings)
    what = next(iter(ts_dispatch_table(chosen)["reading"]["what"].split(";")), "") if chosen else ""
    return (f"the findings judge {scheduler}: the reading {chosen} ({what}), the nearest of the candidates to "
            f"the article's 5-per-CPU table (distance, sum of |median - article| of mean and spread over its "
            f"quanta: {shown}; readings.csv)")


def main(runs_path, paper_path, csv_path, md_path, record_paths=(), criteria_path=None,
         run_config=None, context: vd.Context = vd.DEFAULT, readings_path=None) -> pd.DataFrame:
    runs = pd.read_csv(runs_path, dtype={"quantum_ms": str})
    paper = load_paper(paper_path)
    criteria = vd.load_criteria(criteria_path or "quantum", run_config)
    per_repeat = per_repeat_runs(list(record_paths))
    found, others = [], []
    if "placement" not in runs:
        runs = runs.assign(placement="pinned")
    where_readings = readings_path_of(readings_path, run_config)
    readings = pd.read_csv(where_readings) if where_readings else None
    selected = selected_reading(readings) if readings is not None else None
    scheduler = judged_scheduler(criteria.scope, selected)
    judged = scoped(runs, criteria.scope, selected)
    for (name, placement), rows in runs.groupby(["scheduler", "placement"], sort=True):
        if name != "os_fair" and len(quanta(rows)) >= 2:
            claims = scheduler_claims(rows, name, paper, criteria, per_repeat, placement, context)
            (found if (name, placement) == judged else others).extend(claims)
    if not found:  # the scope's scheduler was not run: each finding says so once
        where = f"{scheduler or 'the selected reading (none: ' + str(where_readings) + ')'} " \
                f"({', '.join(criteria.scope.get('placement', []))})"
        found = [ClaimResult(c, "not run", vd.inconclusive(f"the criteria judge {where}, which this profile did "
                                                           "not run with two quanta")) for c in criteria.claims.values()]
    if criteria.scope.get("reading"):
        found[0].notes.append(reading_note(readings, scheduler))
    for other in others:  # other schedulers: beside the findings, never judged as them
        o = other.outcome
        judged_name = " ".join(judged) if judged else f"{scheduler}, not run here"
        found[0].notes.append(f"{other.text} ({o.reproduced}; not a finding, the criteria judge "
                              f"{judged_name}): {other.ours}")
    effects_text = "\n".join([
        "## Which mechanism each effect comes from", "",
        "A longer quantum can shorten the mean session time by finishing order (turns long against a session "
        "let some finish early; no work is saved) or by saving work (fewer switches, less cache refill: less "
        "CPU time per session). runs.csv has the round-robin prediction of finishing order beside every point "
        "and the residual; the switch cost and refill per session come from an in-run regression of each unit "
        "of work's CPU time on the switches inside it; the CPU share of the first and the last session to "
        "finish (CPU time over its own time) shows finishing order as it happened.", "",
        *mechanisms(runs, criteria.attribution)])
    table = vd.write_claims(vd.judge_all(found, criteria, context), criteria, csv_path, md_path, context,
                            extra_markdown=effects_text, preamble=vd.load_account(context, per_repeat))
    print(f"{len(table)} claims -> {csv_path}", file=sys.stderr)
    return table


if "snakemake" in globals():
    with open(snakemake.log[0], "w") as log:  # noqa: F821 (defined by Snakemake)
        sys.stderr = log
        i = snakemake.input  # noqa: F821
        main(i.runs, i.paper, snakemake.output.csv, snakemake.output.md,  # noqa: F821
             list(i.get("records", [])), i.criteria, snakemake.config,  # noqa: F821
             context=vd.Context.from_params(snakemake.params),  # noqa: F821 (what this profile can judge)
             readings_path=i.get("readings"))  # noqa: F821
elif __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
