"""E4's claims: each of the article's findings, our number, theirs, and
whether ours reproduces it by the criterion written in
workflows/claims/quantum.yaml (the only place the criteria live); and which
effect our numbers show (finishing order, switching cost, or round-robin vs fair).

A time claim is `yes` only when the work saved (CPU time per session) shows it
too, not from finishing order alone; a run table without the columns a claim's
mechanism needs (`requires` in the yaml), or without each repeat's run, gives
`inconclusive` with the reason. Writes claims.csv (claims_common.CLAIM_COLUMNS)
and claims.md (the table, each claim's criterion, and the effects).

Run by Snakemake (rule quantum_claims), or by hand:
    python workflows/scripts/quantum_claims.py runs.csv paper.yaml claims.csv claims.md [RUN.json ...]
"""
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

import claims_common as cc
from claims_common import ClaimResult

SWITCHING_COST_PCT = 1.0       # CPU time per session changing by more than this is a switching cost


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

    def __init__(self, rows: pd.DataFrame, per_repeat: pd.DataFrame | None, scheduler: str):
        self.rows = rows
        self.per_repeat = None if per_repeat is None else per_repeat[per_repeat["scheduler"] == scheduler]
        self.repeats = int(rows["repeats"].max()) if "repeats" in rows else 1

    def of(self, workload, q, spc, column) -> np.ndarray:
        r = self.per_repeat
        hit = r[(r["workload"] == workload) & (r["quantum_ms"].astype(str).map(_as_int) == q)
                & (r["sessions_per_cpu"] == spc)]
        return hit[column].to_numpy(dtype=float) if column in hit else np.array([])


def _unmet(c: cc.Criterion, s: Samples) -> cc.Outcome | None:
    """Inconclusive when the mechanism's columns or each repeat's run are missing."""
    missing = cc.missing_columns(c, s.rows.columns)
    if missing:
        return cc.inconclusive(f"the runs lack {', '.join(missing)}, which this claim's mechanism needs "
                               "(finishing order alone could explain the time)")
    if s.per_repeat is None:
        return cc.inconclusive(f"runs.csv holds medians over {s.repeats} repeat(s); the bootstrap needs each "
                               "repeat's run (the claims rule's `records` input)", repeats=s.repeats)
    return None


def _with_work_saved(c: cc.Criterion, s: Samples, workload, short, long, spc, outcome: cc.Outcome) -> cc.Outcome:
    saved = c.get("work_saved")
    if not saved or outcome.reproduced == "no":
        return outcome
    work = cc.evaluate_medians(s.of(workload, long, spc, saved["column"]), s.of(workload, short, spc, saved["column"]),
                               c, band=saved["band"], effect=saved["effect"])
    if work.reproduced != "yes":
        work.reason = f"work saved ({saved['column']}, Q={short}->{long} ms): {work.reason or 'not shown'}"
    # The verdict needs both; the interval reported stays the claim's own effect's.
    combined = cc.combine([outcome, work])
    combined.value, combined.ci_low, combined.ci_high = outcome.value, outcome.ci_low, outcome.ci_high
    return combined


def scheduler_claims(rows: pd.DataFrame, scheduler: str, paper: dict, criteria: cc.Criteria,
                     per_repeat: pd.DataFrame | None) -> list[ClaimResult]:
    found = []
    k = criteria.claims
    qs = quanta(rows)
    short, long = qs[0], qs[-1]
    spcs = sorted(rows["sessions_per_cpu"].unique())
    low, high = spcs[0], spcs[-1]
    s = Samples(rows, per_repeat, scheduler)
    memory = rows[rows["workload"] == "memory"]
    cpu = rows[rows["workload"] == "cpu"]
    if not memory.empty:
        c = k["memory_gain_grows"]
        g_low, g_high = gain_pct(memory, short, long, low), gain_pct(memory, short, long, high)
        outcome = _unmet(c, s)
        if outcome is None:
            def growth(sl, ll, sh, lh, axis=-1):
                def gain(a, b):
                    return 100.0 * (1.0 - np.median(b, axis=axis) / np.median(a, axis=axis))
                return gain(sh, lh) - gain(sl, ll)

            cells = [s.of("memory", q, spc, "mean_seconds") for spc in (low, high) for q in (short, long)]
            outcome = _with_work_saved(c, s, "memory", short, long, high,
                                       cc.evaluate_statistic(cells, growth, c.band, int(c.min_repeats)))
        found.append(ClaimResult(c, f"Q {short}->{long} ms: {g_low:.1f}% at {low}/CPU, {g_high:.1f}% at {high}/CPU"
                                    f"{cc.interval(outcome, 1, ' points')}", outcome, variant=scheduler))
    if not cpu.empty:
        c = k["cpu_mean_drops"]
        g = gain_pct(cpu, short, long, high)
        outcome = _unmet(c, s)
        if outcome is None:
            outcome = _with_work_saved(c, s, "cpu", short, long, high, cc.evaluate_medians(
                s.of("cpu", long, high, "mean_seconds"), s.of("cpu", short, high, "mean_seconds"), c))
        found.append(ClaimResult(c, f"{g:.1f}% shorter at Q={long} than Q={short} ms, {high}/CPU"
                                    f"{cc.interval(outcome, 1, '%')}", outcome, variant=scheduler))
        c = k["spread_grows"]
        d_short, d_long = at(cpu, short, high, "delta_seconds"), at(cpu, long, high, "delta_seconds")
        outcome = _unmet(c, s) or cc.evaluate_medians(s.of("cpu", long, high, "delta_seconds"),
                                                      s.of("cpu", short, high, "delta_seconds"), c)
        found.append(ClaimResult(c, f"{d_short:.3f} s at Q={short} -> {d_long:.3f} s at Q={long} ms, {high}/CPU"
                                    f"{cc.interval(outcome, 2, 'x')}", outcome, variant=scheduler))
        c = k["spread_over_q_constant"]
        # The article's quanta from 20 ms up; all of ours if that leaves fewer than two.
        compared = [q for q in qs if q >= 20] if len([q for q in qs if q >= 20]) >= 2 else qs
        ratios = [r for r in (at(cpu, q, high, "delta_over_q") for q in compared) if r == r and r > 0]
        outcome = _unmet(c, s)
        if outcome is None:
            def range_ratio(*cells, axis=-1):
                medians = np.stack([np.median(x, axis=axis) for x in cells], axis=-1)
                return medians.max(axis=-1) / medians.min(axis=-1)

            outcome = cc.evaluate_statistic([s.of("cpu", q, high, "delta_over_q") for q in compared], range_ratio,
                                            c.band, int(c.min_repeats))
        spread = max(ratios) / min(ratios) if ratios else float("inf")
        found.append(ClaimResult(c, f"delta/Q from {min(ratios, default=0):.1f} to {max(ratios, default=0):.1f} "
                                    f"(x{spread:.1f}) over Q = {', '.join(map(str, compared))} ms, {high}/CPU"
                                    f"{cc.interval(outcome, 2, 'x')}", outcome, variant=scheduler))
    return found


def effects(runs: pd.DataFrame) -> list[str]:
    """Which effect the numbers show, per scheduler and workload at the most sessions per CPU."""
    lines = []
    high = runs["sessions_per_cpu"].max()
    for (scheduler, workload), rows in runs.groupby(["scheduler", "workload"], sort=True):
        if scheduler == "os_fair":
            continue
        qs = quanta(rows)
        short, long = qs[0], qs[-1]
        mean = {q: at(rows, q, high) for q in (short, long)}
        span = {q: at(rows, q, high, "makespan_seconds") for q in (short, long)}
        cpu = {q: at(rows, q, high, "mean_cpu_seconds") for q in (short, long)}
        order = {q: mean[q] / span[q] for q in (short, long)}
        cost = 100 * (cpu[short] - cpu[long]) / cpu[long]
        lines.append(
            f"- **{scheduler}, {workload}, {high}/CPU**: mean/makespan {order[short]:.2f} at Q={short} -> "
            f"{order[long]:.2f} at Q={long} ms (finishing order: 1.0 = all finish together, "
            f"{(high + 1) / (2 * high):.2f} = one after another); CPU time per session {cpu[short]:.3f} -> "
            f"{cpu[long]:.3f} s ({cost:+.1f}%: {'a switching cost' if abs(cost) > SWITCHING_COST_PCT else 'no measurable switching cost'})."
        )
    fair = runs[runs["scheduler"] == "os_fair"]
    rr = runs[runs["scheduler"] == "os_rr"]
    for workload in sorted(set(fair["workload"]) & set(rr["workload"])):
        f = fair[(fair["workload"] == workload) & (fair["sessions_per_cpu"] == high)]["mean_seconds"]
        r = rr[(rr["workload"] == workload) & (rr["sessions_per_cpu"] == high)]
        if len(f) and len(r):
            lines.append(f"- **RR vs fair, {workload}, {high}/CPU**: fair scheduler mean {float(f.iloc[0]):.3f} s; "
                         f"SCHED_RR means {', '.join(f'{m:.3f}' for m in r['mean_seconds'])} s over Q.")
    return lines


def per_repeat_runs(record_paths) -> pd.DataFrame | None:
    """Each repeat's run (one row per record), or None without records."""
    if not record_paths:
        return None
    from quantum_tables import run_row

    rows = pd.DataFrame([run_row(p) for p in record_paths])
    rows["quantum_ms"] = rows["quantum_ms"].astype(str)
    return rows


def main(runs_path, paper_path, csv_path, md_path, record_paths=(), criteria_path=None) -> pd.DataFrame:
    runs = pd.read_csv(runs_path, dtype={"quantum_ms": str})
    paper = yaml.safe_load(Path(paper_path).read_text())
    criteria = cc.load_criteria(criteria_path or "quantum")
    per_repeat = per_repeat_runs(list(record_paths))
    found = []
    for scheduler in sorted(set(runs["scheduler"]) - {"os_fair"}):
        found += scheduler_claims(runs[runs["scheduler"] == scheduler], scheduler, paper, criteria, per_repeat)
    effects_text = "\n".join([
        "## Which effect was measured", "",
        "A longer quantum can shorten the mean session time in two ways: by the order in which sessions "
        "finish (with a quantum long relative to a session some finish early; no work is saved) and by "
        "saving switching cost (shows as less CPU time for the same work). Round-robin vs the fair "
        "scheduler is a third, separate effect.", "", *effects(runs)])
    table = cc.write_claims(found, criteria, csv_path, md_path, extra_markdown=effects_text)
    print(f"{len(table)} claims -> {csv_path}", file=sys.stderr)
    return table


if "snakemake" in globals():
    with open(snakemake.log[0], "w") as log:  # noqa: F821 (defined by Snakemake)
        sys.stderr = log
        i = snakemake.input  # noqa: F821
        main(i.runs, i.paper, snakemake.output.csv, snakemake.output.md,  # noqa: F821
             list(i.get("records", [])), i.criteria)
elif __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
