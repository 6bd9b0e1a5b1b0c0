"""`dbrepro verdicts ...`: the tools of the verdict package.

    dbrepro verdicts estimate-reruns [RUN ...] [--out reference/between_runs.csv]
        [--criteria-out workflows/claims/between_runs.yaml] [--min-runs 2]
    dbrepro verdicts rejudge RUN [RUN] [--out DIR] [--table FILE.csv]
    dbrepro verdicts kinds [RUN ...] [--out reference/machine_dependent.csv] [--machines reference/machines.csv]

estimate-reruns: how far each timed finding moves between committed runs,
beyond its own interval (dbrepro.verdicts.estimate); with --criteria-out, the
estimate the judge widens by (a criterion: commit it on its own).
rejudge: committed runs under today's criteria (dbrepro.verdicts.rejudge):
each timed finding as run and as re-judged; --out writes every re-judged
claims.csv, findings.csv and checks.csv under DIR/<run>/tables/<study>/.
kinds: each kind of machine's estimate of every timed finding from the
committed runs, the findings whose kinds are apart, and the machines seen
with their primitive costs (dbrepro.verdicts.kinds).

Errors are one line on stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

import pandas as pd

PROG = "dbrepro verdicts"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="The verdict package's tools: between-run estimates, re-judging.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    estimate = commands.add_parser("estimate-reruns", help="the between-run spread of timed findings from "
                                                           "committed runs", description=__doc__.split("\n\n")[2])
    estimate.add_argument("runs", nargs="*", metavar="RUN",
                          help="run folders (default: every reference/runs/* but hogs and trials)")
    estimate.add_argument("--out", type=Path, metavar="FILE.csv", help="write the table here (CSV)")
    estimate.add_argument("--min-runs", type=int, default=2, metavar="N",
                          help="runs a criterion needs to be estimated (default 2: two runs apart are evidence)")
    estimate.add_argument("--criteria-out", type=Path, metavar="FILE.yaml",
                          help="write the judge's between-run estimates here (workflows/claims/between_runs.yaml)")
    rejudge = commands.add_parser("rejudge", help="committed runs re-judged under today's criteria")
    rejudge.add_argument("runs", nargs="+", metavar="RUN", help="one or two run folders (reference/runs/NAME)")
    rejudge.add_argument("--out", type=Path, metavar="DIR",
                         help="write each run's re-judged tables under DIR/<run>/tables/<study>/")
    rejudge.add_argument("--table", type=Path, metavar="FILE.csv", help="write the per-finding table here (CSV)")
    kinds = commands.add_parser("kinds", help="each kind of machine's estimate of each finding; the machines seen")
    kinds.add_argument("runs", nargs="*", metavar="RUN",
                       help="run folders (default: every reference/runs/* but hogs and trials)")
    kinds.add_argument("--out", type=Path, metavar="FILE.csv", help="write the per-finding, per-kind table here")
    kinds.add_argument("--machines", type=Path, metavar="FILE.csv", help="write the kinds seen and their primitives here")
    return parser


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def run_estimate(args) -> int:
    from . import estimate
    from .criteria import REPO

    if args.min_runs < 2:
        return _fail("--min-runs must be at least 2")
    folders = estimate.run_folders(args.runs)
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing:
        return _fail(f"not a folder: {missing[0]}")
    try:
        table = estimate.estimate(folders, args.min_runs)
    except ValueError as error:
        return _fail(str(error))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(args.out, index=False)
        print(f"table: {args.out}")
    if args.criteria_out:
        out = args.out.resolve() if args.out else None
        source = str(out.relative_to(REPO)) if out and out.is_relative_to(REPO) else "dbrepro verdicts estimate-reruns"
        args.criteria_out.write_text(estimate.criteria_text(table, source), encoding="utf-8")
        print(f"criteria: {args.criteria_out}")
    shown = table[["study", "id", "role", "runs", "scale", "mean_effect", "between_sd", "within_se", "tau", "pairs",
                   "pairs_apart"]]
    print(shown.to_string(index=False))
    print(estimate.summary_line(table, args.min_runs))
    return 0


def run_rejudge(args) -> int:
    from . import rejudge

    if len(args.runs) > 2:
        return _fail("one or two runs")
    for folder in map(Path, args.runs):
        if not any(folder.glob("tables/*/findings.csv")):
            return _fail(f"no tables/*/findings.csv under {folder}")
    folders = [Path(r) for r in args.runs]
    table = pd.concat([rejudge.timed_changes(f) for f in folders], ignore_index=True)
    if args.out:
        for folder in folders:
            written = rejudge.write_rejudged(folder, args.out)
            print(f"{folder.name}: {len(written)} tables under {args.out / folder.name / 'tables'}")
    if len(folders) == 2 and len(table):
        a, b = (table[table["run"] == f.name].set_index(["study", "id"]) for f in folders)
        both = a.merge(b, left_index=True, right_index=True, suffixes=("_a", "_b"))
        pairs = pd.DataFrame(
            [{"study": s, "id": i, "apart_before": rejudge.apart(r.was_low_a, r.was_high_a, r.was_low_b, r.was_high_b),
              "apart_now": rejudge.apart(r.now_low_a, r.now_high_a, r.now_low_b, r.now_high_b)}
             for (s, i), r in both.iterrows() if r.now_a and r.now_b], columns=["study", "id", "apart_before", "apart_now"])
        table = table.merge(pairs, on=["study", "id"], how="left")
    if args.table:
        table.to_csv(args.table, index=False)
        print(f"table: {args.table}")
    shown = [c for c in ("run", "study", "id", "was", "was_low", "was_high", "now", "now_low", "now_high", "tau",
                         "apart_before", "apart_now", "note") if c in table.columns]
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table[shown].to_string(index=False, float_format=lambda x: f"{x:.4g}") if len(table)
              else "no timed finding with an interval")
    for run, rows in (table.groupby("run", sort=False) if len(table) else ()):
        judged = rows[rows["now"] != ""]
        print(f"{run}: {len(judged)} timed findings; inconclusive {int((judged['was'] == 'inconclusive').sum())} "
              f"as run, {int((judged['now'] == 'inconclusive').sum())} rejudged")
    if "apart_now" in table.columns:
        pairs = table.drop_duplicates(["study", "id"]).dropna(subset=["apart_now"])
        print(f"intervals apart: {int(pairs['apart_before'].sum())} as run, {int(pairs['apart_now'].sum())} rejudged "
              f"(of {len(pairs)} timed findings in both)")
    return 0


def run_kinds(args) -> int:
    from . import estimate, kinds

    folders = estimate.run_folders(args.runs)
    missing = [str(f) for f in folders if not f.is_dir()]
    if missing:
        return _fail(f"not a folder: {missing[0]}")
    table, machines = kinds.write(folders, args.out, args.machines)
    for path in (args.out, args.machines):
        if path:
            print(f"table: {path}")
    print(machines[["kind", "runs", "fingerprints"]].to_string(index=False))
    apart = kinds.dependent(table)
    shown = ["study", "id", "kind", "runs", "effect", "low", "high", "yes", "no", "inconclusive"]
    print(apart[shown].to_string(index=False) if len(apart) else "no finding whose kinds are apart")
    print(f"kinds: {table['kind'].nunique()} kinds with two runs or more; "
          f"{apart[['study', 'id']].drop_duplicates().shape[0]} findings whose kinds are apart")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    return {"estimate-reruns": run_estimate, "rejudge": run_rejudge, "kinds": run_kinds}[args.command](args)
