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


def _study_lines(results: Path) -> list[str]:
    """Without a summary (one study run alone, TARGET=<study>): each study's verdicts, counted
    from its findings.csv and checks.csv as the workflow wrote them."""
    import csv

    lines = []
    for findings in sorted((results / "tables").glob("*/findings.csv")):
        counted = []
        for name in ("findings", "checks"):
            path = findings.with_name(f"{name}.csv")
            rows = list(csv.DictReader(path.open(encoding="utf-8"))) if path.is_file() else []
            verdicts = [row.get("reproduced", "") for row in rows]
            apart = f", {verdicts.count('not judged')} not judged" if "not judged" in verdicts else ""
            counted.append(f"{name} {verdicts.count('yes')} yes, {verdicts.count('no')} no, "
                           f"{verdicts.count('inconclusive')} inconclusive{apart} of {len(rows)}")
        lines.append(f"{findings.parent.name}: " + "; ".join(counted) + f" ({findings.parent / 'claims.md'})")
    return lines


def variation_line(results: Path) -> str:
    """For a variation (make repro VARY=...), that its settings differ from the profile's, from the
    run's variation.yaml (variation.py wrote it); empty for a profile's own run."""
    from dbrepro import yaml_text

    path = results / "variation.yaml"
    varied = (yaml_text.safe_load(path.read_text(encoding="utf-8")) or {}).get("variation") if path.is_file() else ""
    if not varied:
        return ""
    return (f"varied: {varied} -- this run's settings differ from the profile's ({path}), so its verdicts "
            "are about these settings, not the profile's")


def outcome(results: Path, report: Path | None = None) -> str:
    summary = results / "summary.md"
    out = ["", "What came out:", ""]
    varied = variation_line(results)
    if varied:
        out += [varied, ""]
    if summary.is_file():
        lines = summary.read_text(encoding="utf-8").splitlines()
        headline = next((line for line in lines if line.startswith("**") and "findings" in line), "")
        if headline:
            out += [headline.replace("**", ""), ""]
        out += [line for line in lines if line.startswith("| ")] + [""]
    else:
        studies = _study_lines(results)
        if not studies:
            raise FileNotFoundError(f"{summary}: no summary and no study's findings (no finished run here)")
        out += studies + [""]
    where = [("summary", summary), ("summary (HTML)", results / "summary.html"),
             ("report", report or results / "report.html"), ("paper", results / "paper" / "paper.pdf"),
             *(("where the minutes went", path) for path in sorted((results / "logs").glob("times*.csv")))]
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
