"""How long must a timed cell be? The within-repeat spread of every timed grid of a run.

A timed effect is computed from within-repeat pairs: each configuration
against the study's reference configuration of the same repeat, run back to
back. This reads a finished run's raw records and prints, for every timed
cell, the coefficient of variation (standard deviation / mean) over the
repeats of that within-repeat ratio, beside each arm's own CV and the cell's
length. Issue 29 asks for cells no shorter than what gives a within-repeat CV
under 5% on a quiet machine: run it on a run made when nothing else ran (its
foreign-load columns say whether that held).

    python workflows/scripts/run_spread.py results/ [--out spread.csv]

Cells whose record says `disturbed` are left out, as the claims leave them
out. Prints numbers only (never asserts); the run's summary reports the
same table per study (workflows/scripts/summary.py).
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import pandas as pd

from dbrepro import studies
from dbrepro import verdicts as vd  # the claims' own repeat pairing

TARGET_CV_PCT = 5.0  # issue 29: a within-repeat CV under 5% on a quiet machine


def _cv(values) -> float:
    """The coefficient of variation (standard deviation / mean), in percent."""
    values = [float(v) for v in values]
    return 100.0 * statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else float("nan")


def _records(results: Path, pattern: str) -> list[Path]:
    return sorted((results / "raw").glob(pattern))


def looking_glass(results: Path):
    from looking_glass_ladder_table import runs_frame

    paths = _records(results, "looking_glass/ladder/rep*/**/step*.json")
    if not paths:
        return
    frame = runs_frame(paths)
    length = f"{frame['seconds_limit'].iloc[0]:g} s"

    def arm_of(step, partner):  # a duet's arm where the ladder ran in duets (the claims' pairing)
        rows = frame[frame["step"] == step]
        in_duet = rows[rows["partner_step"] == partner]
        return in_duet if len(in_duet) else rows

    # The ladder's claims: step 10 against 0 (wall) and 2 (CPU), step 11 against 10 (CPU).
    for arm, reference, metric in ((10, 0, "throughput_tps"), (10, 2, "cpu_tps"), (11, 10, "cpu_tps")):
        mode = "duet" if (frame.loc[frame["step"] == arm, "partner_step"] == reference).any() else "sequential"
        yield "looking_glass", f"ladder ({mode}), {metric}", f"step {arm}", f"step {reference}", length, \
            vd.by_repeat(arm_of(arm, reference), metric), vd.by_repeat(arm_of(reference, arm), metric)


def key_cache(results: Path):
    from dbrepro.records import load_result, load_runs

    for source, pattern in (("model", "key_cache/rep*/model.json"), ("mariadb", "key_cache/rep*/mariadb.json")):
        paths = _records(results, pattern)
        if not paths:
            continue
        frame = load_runs(paths)
        keys = [k for k in ("index_fraction", "threads", "points") if k in frame.columns]
        config = load_result(paths[0]).config
        length = f"{config['warmup_seconds']:g} s warm-up + {config['seconds']:g} s"
        for cell, rows in frame.groupby(keys):
            cell = dict(zip(keys, cell if isinstance(cell, tuple) else (cell,)))
            if cell.get("index_fraction", 1.0) != 1.0:
                continue
            off = vd.by_repeat(rows[rows["segments"] == 0], "queries_per_second")
            for segments in sorted(s for s in rows["segments"].unique() if s != 0):
                yield "key_cache", f"{source}, threads {cell['threads']}, P {cell['points']}", \
                    f"{segments} segments", "off", length, \
                    vd.by_repeat(rows[rows["segments"] == segments], "queries_per_second"), off


def openedge(results: Path):
    from dbrepro.records import load_runs

    paths = _records(results, "openedge/rep*/ladder.json")
    if not paths:
        return
    frame = load_runs(paths)
    names = list(dict.fromkeys(frame["name"]))
    for before, after in zip(names, names[1:]):
        yield "openedge", "ladder pass, wall_seconds", after, before, "one pass", \
            vd.by_repeat(frame[frame["name"] == after], "wall_seconds"), \
            vd.by_repeat(frame[frame["name"] == before], "wall_seconds")


def fifo_cache(results: Path):
    from fifo_cache_table import run_row

    paths = _records(results, "fifo_cache/rep*/**/*.json")  # one terminal: duet_<a>+<b>/ folders
    if not paths:
        return
    frame = pd.DataFrame([{**run_row(p), "source": str(p)} for p in paths])
    length = f"{int(frame['transactions'].iloc[0])} transactions"
    for (fraction, terminals), rows in frame.groupby(["pool_fraction_asked", "terminals"]):
        yield "fifo_cache", f"{fraction:.0%} pool, {terminals} terminal(s), nopm", "soqol", "lru", length, \
            vd.by_repeat(rows[rows["cache_policy"] == "soqol"], "nopm"), \
            vd.by_repeat(rows[rows["cache_policy"] == "lru"], "nopm")


def quantum(results: Path):
    from quantum_tables import run_row

    paths = _records(results, "quantum/rep*/*.json")
    if not paths:
        return
    frame = pd.DataFrame([{**run_row(p), "source": str(p)} for p in paths])
    frame["quantum_ms"] = frame["quantum_ms"].astype(str)
    keys = ["scheduler", "placement", "workload", "sessions_per_cpu"]
    for cell, rows in frame.groupby(keys):
        quanta = sorted(rows["quantum_ms"].unique(), key=lambda q: float(q) if q.replace(".", "").isdigit() else 1e9)
        if len(quanta) < 2:
            continue
        short, long = quanta[0], quanta[-1]
        yield "quantum", ", ".join(map(str, cell)) + ", mean_seconds", f"Q {long} ms", f"Q {short} ms", \
            "one session set", vd.by_repeat(rows[rows["quantum_ms"] == long], "mean_seconds"), \
            vd.by_repeat(rows[rows["quantum_ms"] == short], "mean_seconds")


# One function per judged study with timed cells, by its name (dbrepro.studies' order).
STUDIES = tuple(globals()[name] for name in studies.names(judged=True) if name in globals())


def spread(results: Path) -> pd.DataFrame:
    rows = []
    for study in STUDIES:
        for name, cell, arm, reference, length, treated, control in study(results):
            paired = vd.align([treated, control])
            if not len(paired) or len(paired[0]) < 2:
                continue
            ratio = paired[0] / paired[1]
            rows.append({"study": name, "cell": cell, "arm": arm, "reference": reference, "cell_length": length,
                         "repeats": len(ratio), "ratio_median": round(float(pd.Series(ratio).median()), 4),
                         "ratio_cv_pct": round(_cv(ratio), 2), "arm_cv_pct": round(_cv(paired[0]), 2),
                         "reference_cv_pct": round(_cv(paired[1]), 2),
                         "under_target": _cv(ratio) < TARGET_CV_PCT})
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="a run's results folder (with raw/)")
    parser.add_argument("--out", type=Path, help="write the table as CSV")
    args = parser.parse_args(argv)
    if not (args.results / "raw").is_dir():
        print(f"run_spread: {args.results}: no raw/ folder (not a run's results)", file=sys.stderr)
        return 2
    table = spread(args.results)
    if args.out:
        table.to_csv(args.out, index=False)
    with pd.option_context("display.width", 200, "display.max_rows", 500, "display.max_colwidth", 60):
        print(table.to_string(index=False))
    if len(table):
        by_study = table.groupby("study").agg(cells=("ratio_cv_pct", "size"),
                                              median_cv_pct=("ratio_cv_pct", "median"),
                                              under_target=("under_target", "sum"))
        print(f"\nwithin-repeat ratio CV by study (target < {TARGET_CV_PCT:g}%):")
        print(by_study.to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
