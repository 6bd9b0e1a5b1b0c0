"""What committed runs' timed findings read under the current between-run estimates.

A run widens each timed finding's interval once, at its end, by the estimate
in workflows/claims/between_runs.yaml of its commit (claims_common.
widen_for_reruns). When that file changes (a criteria commit of its own),
this shows what the runs already committed would read under the new one:
each timed finding's own interval (within_ci_low/high, or the printed one
where the run did not widen it), at the row's own coverage (alpha_per_look),
widened by the same function and judged against the row's band. Nothing is
measured again: it shows how a criteria change moves committed verdicts (for
its HISTORY row), and does not stand in for a fresh run.

    python benchmarks/rejudge_for_reruns.py RUN [RUN] [--out CSV]

With two runs it also says, per finding, whether the two rejudged intervals
overlap (what `dbrepro compare` calls apart).
"""
from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "workflows" / "scripts"))
import claims_common as cc  # noqa: E402

_ALONE = re.compile(r"\(within the run alone: (\w+)\)")


def own_verdict(row) -> str:
    """The run's verdict before any widening."""
    alone = _ALONE.search(str(row.reason))
    return alone.group(1) if alone else str(row.reproduced)


def number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def rejudge(folder: Path) -> pd.DataFrame:
    try:
        return _rejudge(folder)
    finally:
        cc.JUDGING.confidence = cc.CONFIDENCE  # each row sets its own level


def _rejudge(folder: Path) -> pd.DataFrame:
    out = []
    criteria_of: dict = {}
    for path in sorted(folder.glob("tables/*/findings.csv")):
        frame = pd.read_csv(path, keep_default_na=False)
        for row in frame.itertuples():
            if not str(row.repeats).strip() or row.reproduced == cc.NOT_JUDGED:
                continue
            if row.study not in criteria_of:
                criteria_of[row.study] = cc.load_criteria(row.study)
            criteria = criteria_of[row.study]
            c = criteria.claims.get(row.id)
            if c is None or not c.timed:
                continue
            record = {"run": folder.name, "study": row.study, "id": row.id, "was": row.reproduced,
                      "effect": number(row.effect), "was_low": number(row.ci_low), "was_high": number(row.ci_high)}
            if c.text_of_criterion() != row.criterion:
                out.append({**record, "now": "", "note": "criterion changed since this run"})
                continue
            low, high = number(getattr(row, "within_ci_low", "")), number(getattr(row, "within_ci_high", ""))
            if not (math.isfinite(low) and math.isfinite(high)):
                low, high = record["was_low"], record["was_high"]
            alpha = number(getattr(row, "alpha_per_look", ""))
            cc.JUDGING.confidence = 1 - alpha if alpha > 0 else cc.CONFIDENCE
            outcome = cc.Outcome(own_verdict(row), record["effect"], low, high, repeats=int(float(row.repeats)))
            [result] = cc.widen_for_reruns([cc.ClaimResult(c, row.ours, outcome)], criteria)
            o = result.outcome
            estimate = criteria.between_runs.get(c.id) or {}
            out.append({**record, "now": o.reproduced, "now_low": o.ci_low, "now_high": o.ci_high,
                        "tau": estimate.get("tau", math.nan), "scale": estimate.get("scale", ""),
                        "note": "" if estimate else "no estimate for this criterion"})
    return pd.DataFrame(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="one or two run folders (reference/runs/NAME)")
    parser.add_argument("--out", type=Path, default=None, help="write the table here (CSV)")
    args = parser.parse_args(argv)
    if len(args.runs) > 2:
        print("rejudge_for_reruns: one or two runs", file=sys.stderr)
        return 2
    for folder in args.runs:
        if not any(folder.glob("tables/*/findings.csv")):
            print(f"rejudge_for_reruns: no tables/*/findings.csv under {folder}", file=sys.stderr)
            return 2
    table = pd.concat([rejudge(f) for f in args.runs], ignore_index=True)
    if len(args.runs) == 2:
        a, b = (table[table["run"] == f.name].set_index(["study", "id"]) for f in args.runs)
        both = a.merge(b, left_index=True, right_index=True, suffixes=("_a", "_b"))
        apart = lambda l1, h1, l2, h2: bool(max(l1, l2) > min(h1, h2))
        table = table.merge(pd.DataFrame(
            [{"study": s, "id": i, "apart_before": apart(r.was_low_a, r.was_high_a, r.was_low_b, r.was_high_b),
              "apart_now": apart(r.now_low_a, r.now_high_a, r.now_low_b, r.now_high_b)}
             for (s, i), r in both.iterrows() if r.now_a and r.now_b]), on=["study", "id"], how="left")
    if args.out:
        table.to_csv(args.out, index=False)
        print(f"table: {args.out}")
    shown = [c for c in ("run", "study", "id", "was", "was_low", "was_high", "now", "now_low", "now_high", "tau",
                         "scale", "apart_before", "apart_now", "note") if c in table.columns]
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table[shown].to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    for run, rows in table.groupby("run", sort=False):
        judged = rows[rows["now"] != ""]
        print(f"{run}: {len(judged)} timed findings; inconclusive {int((judged['was'] == 'inconclusive').sum())} "
              f"as run, {int((judged['now'] == 'inconclusive').sum())} rejudged")
    if "apart_now" in table.columns:
        pairs = table.drop_duplicates(["study", "id"]).dropna(subset=["apart_now"])
        print(f"intervals apart: {int(pairs['apart_before'].sum())} as run, {int(pairs['apart_now'].sum())} rejudged "
              f"(of {len(pairs)} timed findings in both)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
