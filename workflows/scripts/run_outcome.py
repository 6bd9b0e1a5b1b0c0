"""What a run produced, printed at the end of `make repro`: the summary's
headline and per-study findings table (read from results/summary.md, which
the workflow wrote; nothing is recomputed here) and where the summary, the
HTML report and the paper are.

    python workflows/scripts/run_outcome.py [RESULTS_DIR] [--report PATH]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path


def outcome(results: Path, report: Path | None = None) -> str:
    summary = results / "summary.md"
    if not summary.is_file():
        raise FileNotFoundError(f"{summary}: no summary (the workflow has not finished a run here)")
    lines = summary.read_text(encoding="utf-8").splitlines()
    headline = next((line for line in lines if line.startswith("**") and "findings" in line), "")
    table = [line for line in lines if line.startswith("| ")]
    out = ["", "What came out:", ""]
    if headline:
        out += [headline.replace("**", ""), ""]
    out += table + [""]
    where = [("summary", summary), ("summary (HTML)", results / "summary.html"),
             ("report", report or results / "report.html"), ("paper", results / "paper" / "paper.pdf"),
             ("where the minutes went", results / "logs" / "times.csv")]
    out += [f"{name:>24}: {path}" for name, path in where if path.is_file()]
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="?", default="results", type=Path)
    parser.add_argument("--report", type=Path, default=None, help="the HTML report (default RESULTS/report.html)")
    args = parser.parse_args(argv)
    try:
        print(outcome(args.results, args.report))
    except FileNotFoundError as error:
        print(f"run_outcome: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
