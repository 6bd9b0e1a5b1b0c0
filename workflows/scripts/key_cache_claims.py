"""The key_cache study's claims: each of the article's findings, our number,
theirs, and whether ours reproduces it by the criterion written in
workflows/claims/key_cache.yaml (the only place the criteria live).

Every claim is timed: each cell's repeats (the raw runs) are the bootstrap's
samples. Writes claims.csv (claims_common.CLAIM_COLUMNS) and claims.md.

Run by Snakemake (rule key_cache_claims), or by hand:
    python workflows/scripts/key_cache_claims.py paper.yaml claims.csv claims.md RUN.json...
"""

import argparse
import math

import numpy as np
import pandas as pd

import claims_common as cc
import key_cache_common as common
from claims_common import ClaimResult


def pct(value: float) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:+.1f}%"


class Runs:
    """Every timed run (one row per repeat, segments, threads and P), with the cells the claims compare."""

    def __init__(self, runs: pd.DataFrame, paper):
        self.runs, self.paper = runs, paper
        self.threads = sorted(int(t) for t in runs["threads"].unique())
        points = sorted(int(p) for p in runs["points"].unique())
        self.points = 10 if 10 in points else points[0]
        segments = sorted(int(s) for s in runs["segments"].unique())
        self.article_segments = [s for s in common.ARTICLE_SEGMENTS if s in segments] or \
            [s for s in segments if s != common.OFF][-1:]
        self.hardware_threads = int(runs["cpu_count"].iloc[0])

    def samples(self, segments, threads, column="queries_per_second") -> np.ndarray:
        r = self.runs
        cell = r[(r["segments"] == segments) & (r["threads"] == threads) & (r["points"] == self.points)]
        return cell[column].to_numpy(dtype=float)

    def theirs_at(self, machine, segments, threads) -> float:
        return float(self.paper["machines"][machine]["relative_percent"]["p10"][segments][threads])


def one_thread_small_loss(r: Runs, c: cc.Criterion) -> ClaimResult:
    if 1 not in r.threads:
        return ClaimResult(c, "1 thread not run", cc.inconclusive("the profile's key_cache.threads lacks 1"))
    outcomes = {s: cc.evaluate_medians(r.samples(s, 1), r.samples(common.OFF, 1), c) for s in r.article_segments}
    ours = ", ".join(f"{s} segments {pct(o.value)}{cc.interval(o, 1, '%')}" for s, o in outcomes.items())
    return ClaimResult(c, f"P={r.points}: {ours}", cc.combine(list(outcomes.values())))


def _slope(threads: np.ndarray):
    """Least-squares slope of the gain (%) against log2(threads), over paired (on, off) samples per thread count."""
    x = np.log2(threads.astype(float))
    x = x - x.mean()

    def statistic(*samples, axis=-1):
        gains = [100.0 * (np.median(on, axis=axis) / np.median(off, axis=axis) - 1.0)
                 for on, off in zip(samples[0::2], samples[1::2])]
        gains = np.stack(gains, axis=-1)
        return (gains * x).sum(axis=-1) / (x * x).sum()

    return statistic


def theirs_slope(r: Runs, machine: str, segments: int) -> float:
    row = r.paper["machines"][machine]["relative_percent"]["p10"][segments]
    threads = np.array(sorted(row), dtype=float)
    gains = np.array([row[int(t)] for t in threads])
    x = np.log2(threads) - np.log2(threads).mean()
    return float((gains * x).sum() / (x * x).sum())


def gain_grows_with_threads(r: Runs, c: cc.Criterion) -> ClaimResult:
    segments = r.article_segments[-1]
    theirs = (f"{c.theirs}; slope {theirs_slope(r, 'pitbull', 64):+.0f} (pitbull) and "
              f"{theirs_slope(r, 'perro', 64):+.0f} (perro) points per doubling")
    if len(r.threads) < 2:
        return ClaimResult(c, "one thread count run", cc.inconclusive("a trend needs at least two thread counts"),
                           theirs=theirs)
    samples = []
    for threads in r.threads:
        samples += [r.samples(segments, threads), r.samples(common.OFF, threads)]
    outcome = cc.evaluate_statistic(samples, _slope(np.array(r.threads)), c.band, int(c.min_repeats))
    gains = ", ".join(f"{t}: {pct(100 * (np.median(r.samples(segments, t)) / np.median(r.samples(common.OFF, t)) - 1))}"
                      for t in r.threads)
    result = ClaimResult(c, f"{segments} segments, P={r.points}: slope {outcome.value:+.1f} points per doubling"
                            f"{cc.interval(outcome)}; gain by threads {gains}", outcome, theirs=theirs)
    if outcome.reproduced == "no":
        result.why = (f"on {r.hardware_threads} hardware threads few threads are inside the key cache at once, so "
                      "its mutex is rarely the bottleneck")
    return result


def expected_gain(paper, hardware_threads) -> float:
    """The article's largest P=10 gain, interpolated linearly in hardware threads between perro and pitbull."""
    points = sorted((m["hardware_threads"], max(max(v.values()) for v in m["relative_percent"]["p10"].values()))
                    for m in paper["machines"].values())
    (h0, g0), (h1, g1) = points[0], points[-1]
    return max(0.0, g0 + (g1 - g0) * (hardware_threads - h0) / (h1 - h0))


def gain_follows_hardware(r: Runs, c: cc.Criterion) -> ClaimResult:
    expected = expected_gain(r.paper, r.hardware_threads)
    segments, threads = r.article_segments[-1], r.threads[-1]
    theirs = (f"{c.theirs}; interpolated for {r.hardware_threads} hardware threads: {pct(expected)}")
    if expected <= 0:
        return ClaimResult(c, "n/a", cc.inconclusive(f"the interpolated gain for {r.hardware_threads} hardware "
                                                    "threads is 0: nothing to compare with"), theirs=theirs)

    def statistic(on, off, axis=-1):
        return 100.0 * (np.median(on, axis=axis) / np.median(off, axis=axis) - 1.0) / expected

    outcome = cc.evaluate_statistic([r.samples(segments, threads), r.samples(common.OFF, threads)], statistic,
                                    c.band, int(c.min_repeats))
    ours = (f"{pct(outcome.value * expected)} at {threads} threads, {segments} segments = "
            f"{outcome.value:.2f}x the expected{cc.interval(outcome, 2, 'x')}")
    return ClaimResult(c, ours, outcome, theirs=theirs)


def mutex_waits_fall(r: Runs, c: cc.Criterion) -> ClaimResult:
    high = r.threads[-1]
    most = max(s for s in r.runs["segments"].unique() if s != common.OFF)
    on, off = r.samples(most, high, "mutex_waits"), r.samples(common.OFF, high, "mutex_waits")
    if high == 1 or not len(off) or np.median(off) == 0:
        return ClaimResult(c, f"mutex waits with segments off at {high} threads: "
                              f"{np.median(off) if len(off) else math.nan:,.0f}",
                           cc.inconclusive("segments off saw no contention: nothing to remove"))
    outcome = cc.evaluate_medians(on, off, c)
    ours = (f"{high} threads: off {np.median(off):,.0f}, {int(most)} segments {np.median(on):,.0f} "
            f"({outcome.value:.3f}x{cc.interval(outcome, 3, 'x')})")
    return ClaimResult(c, ours, outcome)


def claims(runs: pd.DataFrame, paper, criteria: cc.Criteria) -> list[ClaimResult]:
    r = Runs(runs, paper)
    k = criteria.claims
    return [one_thread_small_loss(r, k["one_thread_small_loss"]), gain_grows_with_threads(r, k["gain_grows_with_threads"]),
            gain_follows_hardware(r, k["gain_follows_hardware"]), mutex_waits_fall(r, k["mutex_waits_fall"])]


def main(paper_path, csv_path, md_path, run_paths, criteria_path=None) -> pd.DataFrame:
    from dbrepro import key_cache  # noqa: F401 (registers the key_cache table rows)
    from dbrepro.records import load_runs

    criteria = cc.load_criteria(criteria_path or "key_cache")
    found = claims(load_runs(run_paths), common.load_paper(paper_path), criteria)
    return cc.write_claims(found, criteria, csv_path, md_path)


if "snakemake" in globals():
    i = snakemake.input  # noqa: F821
    common.run_logged(snakemake.log[0], main, i.paper, snakemake.output.csv, snakemake.output.md,  # noqa: F821
                      list(i.runs), i.criteria)
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("paper", "csv", "md"):
        parser.add_argument(name)
    parser.add_argument("runs", nargs="+", help="raw-run records of `python -m dbrepro.key_cache run` (JSON)")
    a = parser.parse_args()
    print(main(a.paper, a.csv, a.md, a.runs).to_string(index=False))
