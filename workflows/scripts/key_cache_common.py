"""Shared by the key_cache table and claim scripts: the article's numbers and
the relative gain of a segments value over segments off.

The article's numbers are read from workflows/data/key_cache_paper.yaml (the
one place they are written down); nothing here repeats them.
"""

import argparse
from typing import Any

import pandas as pd
from script_common import (  # noqa: F401 (scripts call common.load_paper, common.run_logged, ...)
    load_paper,
    run_logged,
    undisturbed,
    with_disturbed_cells,
    with_load_columns,
)

OFF = 0
ARTICLE_SEGMENTS = (32, 64)
MACHINES = ("pitbull", "perro")
ARTICLE_FRACTION = 1.0  # the article's key buffer held the whole index (512 MB over 313 MB)
ARTICLE_DISTRIBUTION = "special"  # sysbench 0.5's default --rand-type, the article's
CELL = ["distribution", "index_fraction", "threads", "points"]  # what a gain over segments off is paired on


def paper_relative(paper: dict[str, Any]) -> pd.DataFrame:
    """machine, points, segments, threads, percent: every number of the article's tables."""
    rows = []
    for machine, entry in paper["machines"].items():
        for p_key, by_segments in entry["relative_percent"].items():
            for segments, by_threads in by_segments.items():
                for threads, percent in by_threads.items():
                    rows.append({"machine": machine, "index_fraction": ARTICLE_FRACTION,
                                 "distribution": ARTICLE_DISTRIBUTION,
                                 "points": int(str(p_key).lstrip("p")),
                                 "segments": int(segments), "threads": int(threads), "percent": float(percent)})
    return pd.DataFrame(rows)


def with_fraction(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with its index_fraction column (tables from before the sweep: the article's cache)
    and its distribution column (records from before the axis: every point drawn "special")."""
    if "index_fraction" not in frame.columns:
        frame = frame.assign(index_fraction=ARTICLE_FRACTION)
    return frame if "distribution" in frame.columns else frame.assign(distribution=ARTICLE_DISTRIBUTION)


def cells_of_distribution(frame: pd.DataFrame, distribution: str) -> pd.DataFrame:
    """Only the cells whose points were drawn from `distribution`."""
    frame = with_fraction(frame)
    return frame[frame["distribution"] == distribution].reset_index(drop=True)


def cells_at_fraction(frame: pd.DataFrame, fraction: float) -> pd.DataFrame:
    """Only the cells run with the key buffer at `fraction` of the index."""
    frame = with_fraction(frame)
    return frame[frame["index_fraction"] == fraction].reset_index(drop=True)


def article_cache(frame: pd.DataFrame) -> pd.DataFrame:
    """Only the cells run with the article's cache size (the whole index fits)."""
    return cells_at_fraction(frame, ARTICLE_FRACTION)


MIN_REPEATS = 5  # as a timed claim's min_repeats: fewer repeats give no interval


def paired_gain_interval(on: pd.Series, off: pd.Series) -> tuple[int, float, float]:
    """The repeats both arms have, and the 95% interval of the gain (%) of `on` over `off`
    paired by repeat (the arms of a repeat ran back to back); NaN below MIN_REPEATS.
    `on` and `off` are dbrepro.verdicts.by_repeat samples."""
    import math

    import numpy as np

    from dbrepro import verdicts as vd

    samples = vd.align([on, off])
    if len(samples[0]) < MIN_REPEATS:
        return len(samples[0]), math.nan, math.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = vd.bootstrap_interval(samples, vd.median_effect("pct_change"), vd.CONFIDENCE,
                                          paired=samples.paired)
    return len(samples[0]), low, high


def relative_gains(throughput: pd.DataFrame) -> pd.DataFrame:
    """segments, index_fraction, threads, points, percent: (median q/s with N segments / off - 1) x 100."""
    throughput = with_fraction(throughput)
    off = throughput[throughput["segments"] == OFF].set_index(CELL)["qps_median"]
    on = throughput[throughput["segments"] != OFF].copy()
    base = on.set_index(CELL).index.map(off)
    on["percent"] = (on["qps_median"].to_numpy() / base.to_numpy() - 1.0) * 100.0
    return on[["segments", *CELL, "percent"]].reset_index(drop=True)


def throughput_derived_script(make_table, doc: str, namespace: dict[str, Any]) -> None:
    """The entry of a script whose table is derived from throughput.csv alone: run by Snakemake
    (input `throughput`, one output) or by hand (THROUGHPUT OUT), the table written as CSV."""
    def main(throughput_path, out_path) -> pd.DataFrame:
        table = make_table(pd.read_csv(throughput_path))
        table.to_csv(out_path, index=False, float_format="%.6g")
        return table

    if "snakemake" in namespace:
        smk = namespace["snakemake"]
        run_logged(smk.log[0], main, smk.input.throughput, smk.output[0])
    elif namespace.get("__name__") == "__main__":
        parser = argparse.ArgumentParser(description=doc.splitlines()[0])
        parser.add_argument("throughput", help="results/tables/key_cache/throughput.csv")
        parser.add_argument("out", help="CSV to write")
        args = parser.parse_args()
        print(main(args.throughput, args.out).to_string(index=False))
