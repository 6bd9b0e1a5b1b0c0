"""The key_cache study's claims: each of the article's findings, our number,
theirs, and whether ours reproduces it by the criterion written in
workflows/claims/key_cache.yaml (the only place the criteria live).

Every claim is timed: each cell's repeats (the raw runs) are the bootstrap's
samples. The claims named mariadb_* put the real MariaDB (records of
`dbrepro run key_cache mariadb run`, one row per sysbench run) beside the
article and the model; a profile that does not run it leaves them inconclusive
with its reason. Writes claims.csv (dbrepro.verdicts.CLAIM_COLUMNS) and claims.md.

Run by Snakemake (rule key_cache_claims), or by hand:
    python workflows/scripts/key_cache_claims.py paper.yaml claims.csv claims.md RUN.json... [--mariadb RUN.json...]
"""

import argparse
import math
from functools import partial

import numpy as np
import pandas as pd

from dbrepro import verdicts as vd
import key_cache_common as common
from dbrepro.verdicts import ClaimResult


def pct(value: float) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:+.1f}%"


class Runs:
    """Every timed run (one row per repeat, segments, threads and P), with the cells the claims compare."""

    def __init__(self, runs: pd.DataFrame, paper, context: vd.Context = vd.DEFAULT):
        self.runs, self.paper = runs, paper
        self.context = context  # what this run can judge
        points = sorted(int(p) for p in runs["points"].unique())
        self.points = 10 if 10 in points else points[0]
        # The thread counts run at that P (other P may run at fewer).
        self.threads = sorted(int(t) for t in runs.loc[runs["points"] == self.points, "threads"].unique())
        segments = sorted(int(s) for s in runs["segments"].unique())
        self.article_segments = [s for s in common.ARTICLE_SEGMENTS if s in segments] or \
            [s for s in segments if s != common.OFF][-1:]
        self.hardware_threads = int(runs["cpu_count"].iloc[0])

    def cell(self, segments, threads) -> pd.DataFrame:
        r = self.runs
        return r[(r["segments"] == segments) & (r["threads"] == threads) & (r["points"] == self.points)]

    def samples(self, segments, threads, column="queries_per_second") -> pd.Series:
        """One arm of a cell by repeat (disturbed cells left out): the paired bootstrap's sample."""
        return vd.by_repeat(self.cell(segments, threads), column)

    def theirs_at(self, machine, segments, threads) -> float:
        return float(self.paper["machines"][machine]["relative_percent"]["p10"][segments][threads])


def one_thread_small_loss(r: Runs, c: vd.Criterion) -> ClaimResult:
    if 1 not in r.threads:
        return ClaimResult(c, "1 thread not run", vd.inconclusive("the profile's key_cache.threads lacks 1"))
    outcome = vd.evaluate_cells([(r.samples(s, 1), r.samples(common.OFF, 1)) for s in r.article_segments], c,
                                r.context)
    return ClaimResult(c, f"P={r.points}, median over {', '.join(map(str, r.article_segments))} segments: "
                          f"{pct(outcome.value)}{vd.interval(outcome, 1, '%')} ({per_cell_gains(r, [1])})", outcome)


def per_cell_gains(r: Runs, threads_list) -> str:
    """Each cell's gain of medians, for the reader (the verdict rests on the combined effect)."""
    def gain(s, t):
        on, off = r.samples(s, t), r.samples(common.OFF, t)
        return pct(100 * (np.median(on) / np.median(off) - 1)) if len(on) and len(off) else "n/a"

    return "; ".join(f"{t} thread{'' if t == 1 else 's'}: " + ", ".join(f"{s} seg {gain(s, t)}" for s in r.article_segments)
                     for t in threads_list)


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


def gain_grows_with_threads(r: Runs, c: vd.Criterion) -> ClaimResult:
    segments = r.article_segments[-1]
    theirs = (f"{c.theirs}; slope {theirs_slope(r, 'pitbull', 64):+.0f} (pitbull) and "
              f"{theirs_slope(r, 'perro', 64):+.0f} (perro) points per doubling")
    if len(r.threads) < 2:
        return ClaimResult(c, "one thread count run", vd.inconclusive("a trend needs at least two thread counts"),
                           theirs=theirs)
    samples = []
    for threads in r.threads:
        samples += [r.samples(segments, threads), r.samples(common.OFF, threads)]
    outcome = vd.evaluate_statistic(samples, _slope(np.array(r.threads)), c.band, int(c.min_repeats), r.context)
    gains = ", ".join(f"{t}: {pct(100 * (np.median(r.samples(segments, t)) / np.median(r.samples(common.OFF, t)) - 1))}"
                      for t in r.threads if len(r.samples(segments, t)) and len(r.samples(common.OFF, t)))
    result = ClaimResult(c, f"{segments} segments, P={r.points}: slope {outcome.value:+.1f} points per doubling"
                            f"{vd.interval(outcome)}; gain by threads {gains}", outcome, theirs=theirs)
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


def gain_follows_hardware(r: Runs, c: vd.Criterion) -> ClaimResult:
    expected = expected_gain(r.paper, r.hardware_threads)
    segments, threads = r.article_segments[-1], r.threads[-1]
    theirs = (f"{c.theirs}; interpolated for {r.hardware_threads} hardware threads: {pct(expected)}")
    if expected <= 0:
        return ClaimResult(c, "n/a", vd.inconclusive(f"the interpolated gain for {r.hardware_threads} hardware "
                                                    "threads is 0: nothing to compare with"), theirs=theirs)

    def statistic(on, off, axis=-1):
        return 100.0 * (np.median(on, axis=axis) / np.median(off, axis=axis) - 1.0) / expected

    outcome = vd.evaluate_statistic([r.samples(segments, threads), r.samples(common.OFF, threads)], statistic,
                                    c.band, int(c.min_repeats), r.context)
    ours = (f"{pct(outcome.value * expected)} at {threads} threads, {segments} segments = "
            f"{outcome.value:.2f}x the expected{vd.interval(outcome, 2, 'x')}")
    return ClaimResult(c, ours, outcome, theirs=theirs)


def segments_alike(r: Runs, c: vd.Criterion) -> ClaimResult:
    """64 segments against 32: the difference of their gains over off (points), the median
    over every thread count above 1, each cell's three arms paired by repeat."""
    threads = [t for t in r.threads if t > 1]
    if not {32, 64} <= set(int(s) for s in r.runs["segments"].unique()) or not threads:
        return ClaimResult(c, "32 and 64 segments not both run above 1 thread",
                           vd.inconclusive("the profile must run 32 and 64 segments at more than 1 thread"))

    def difference(on64, on32, off, axis=-1):
        return 100.0 * (np.median(on64, axis=axis) - np.median(on32, axis=axis)) / np.median(off, axis=axis)

    outcome = vd.evaluate_cells([(r.samples(64, t), r.samples(32, t), r.samples(common.OFF, t)) for t in threads],
                                c, r.context, cell_statistic=difference)
    return ClaimResult(c, f"P={r.points}, 64 minus 32 segments, median over {', '.join(map(str, threads))} threads: "
                          f"{outcome.value:+.1f} points{vd.interval(outcome, 1)}; per cell: "
                          f"{per_cell_gains(r, threads)}", outcome)


# The profile that runs several P (config/full.yaml: 10, 50 and 100; tests/test_claims.py checks it).
POINTS_JUDGED_BY = "full"


def points_change_little(r: Runs, c: vd.Criterion) -> ClaimResult:
    """The gain at the largest P run against P=10 (points), at the most threads, the most segments."""
    points = sorted(int(p) for p in r.runs["points"].unique())
    if len(points) < 2:
        return ClaimResult(c, f"only P={points[0]} run",
                           vd.not_judged(f"this profile runs one P (P={points[0]})", POINTS_JUDGED_BY))
    high_p, threads, segments = points[-1], r.threads[-1], r.article_segments[-1]
    runs = r.runs

    def arm(p, s):
        return vd.by_repeat(runs[(runs["points"] == p) & (runs["threads"] == threads) & (runs["segments"] == s)],
                            "queries_per_second")

    def difference(on_high, off_high, on_low, off_low, axis=-1):
        return 100.0 * (np.median(on_high, axis=axis) / np.median(off_high, axis=axis)
                        - np.median(on_low, axis=axis) / np.median(off_low, axis=axis))

    outcome = vd.evaluate_statistic([arm(high_p, segments), arm(high_p, common.OFF), arm(r.points, segments),
                                     arm(r.points, common.OFF)], difference, c.band, int(c.min_repeats),
                                    r.context)
    return ClaimResult(c, f"{threads} threads, {segments} segments: gain at P={high_p} minus at P={r.points}: "
                          f"{outcome.value:+.1f} points{vd.interval(outcome, 1)}", outcome)


def mutex_waits_fall(r: Runs, c: vd.Criterion) -> ClaimResult:
    high = r.threads[-1]
    most = max(s for s in r.runs["segments"].unique() if s != common.OFF)
    on, off = r.samples(most, high, "mutex_waits"), r.samples(common.OFF, high, "mutex_waits")
    if high == 1 or not len(off) or np.median(off) == 0:
        return ClaimResult(c, f"mutex waits with segments off at {high} threads: "
                              f"{np.median(off) if len(off) else math.nan:,.0f}",
                           vd.inconclusive("segments off saw no contention: nothing to remove"))
    outcome = vd.evaluate_medians(on, off, c, r.context)
    ours = (f"{high} threads: off {np.median(off):,.0f}, {int(most)} segments {np.median(on):,.0f} "
            f"({outcome.value:.3f}x{vd.interval(outcome, 3, 'x')})")
    return ClaimResult(c, ours, outcome)


# ---------------------------------------------------------------------------
# The real MariaDB beside the model (records of `dbrepro run key_cache mariadb run`,
# one row per sysbench run: the same columns the model's claims read, so Runs serves both).


def _server_per_query(m: Runs, segments: int, threads: int, column: str) -> float:
    r = m.runs
    cell = r[(r["segments"] == segments) & (r["threads"] == threads) & (r["points"] == m.points)]
    queries = cell["queries"].where(cell["queries"] > 0)
    return float((cell[column] / queries).median()) if len(cell) else math.nan


def server_measurements(m: Runs, threads: int) -> str:
    """What the server did per query at this thread count, off and with the most segments: the measured why."""
    most = m.article_segments[-1]
    r = m.runs[(m.runs["threads"] == threads) & (m.runs["points"] == m.points)]
    share = (r["server_cpu_seconds"] / (r["wall_seconds"] * r["cpu_count"])).median()
    return (f"server CPU {1e6 * _server_per_query(m, common.OFF, threads, 'server_cpu_seconds'):.0f} us/query off, "
            f"{1e6 * _server_per_query(m, most, threads, 'server_cpu_seconds'):.0f} with {most} segments; involuntary "
            f"context switches {_server_per_query(m, common.OFF, threads, 'server_involuntary_switches'):.3f}/query off, "
            f"{_server_per_query(m, most, threads, 'server_involuntary_switches'):.3f} with {most}; the server used "
            f"{100 * share:.0f}% of the {m.hardware_threads} hardware threads{_foreign_text(r)}")


def _foreign_text(rows: pd.DataFrame) -> str:
    """The CPU other processes used during these cells (the foreign-load gate's measure), not the load
    average, which counts the server's own 64 threads."""
    if "foreign_cores" not in rows or rows["foreign_cores"].dropna().empty:
        return ""
    return f"; foreign CPU {pd.to_numeric(rows['foreign_cores'], errors='coerce').median():.3f} cores (median)"


def mariadb_skipped(c: vd.Criterion, reason: str) -> ClaimResult:
    return ClaimResult(c, "not run", vd.inconclusive(f"the real MariaDB was not run: {reason}"))


def mariadb_segments_help(m: Runs, c: vd.Criterion) -> ClaimResult:
    """One finding: the median over every cell above 1 thread (each thread count x the article's
    segment counts) of the cell's gain, one paired bootstrap over the repeats."""
    threads = [t for t in m.threads if t > 1]
    if not threads:
        return ClaimResult(c, "no thread count above 1 run", vd.inconclusive("only 1 thread was run"))
    outcome = vd.evaluate_cells([(m.samples(s, t), m.samples(common.OFF, t)) for t in threads
                                 for s in m.article_segments], c, m.context)
    result = ClaimResult(c, f"P={m.points}, median over {len(threads) * len(m.article_segments)} cells "
                            f"({', '.join(map(str, threads))} threads x {', '.join(map(str, m.article_segments))} "
                            f"segments): {pct(outcome.value)}{vd.interval(outcome, 1, '%')}; per cell: "
                            f"{per_cell_gains(m, threads)}", outcome)
    if outcome.reproduced != "yes":
        result.why = server_measurements(m, threads[-1])
    return result


def mariadb_gain_grows(m: Runs, c: vd.Criterion) -> ClaimResult:
    result = gain_grows_with_threads(m, c)
    if result.outcome.reproduced != "yes" and m.threads:
        result.why = f"at {m.threads[-1]} threads: {server_measurements(m, m.threads[-1])}"
    return result


def _gain_difference(model_on, model_off, real_on, real_off, axis=-1):
    """The model's gain minus the real system's, in percentage points."""
    def gain(on, off):
        return 100.0 * (np.median(on, axis=axis) / np.median(off, axis=axis) - 1.0)

    return gain(model_on, model_off) - gain(real_on, real_off)


def mariadb_model_agrees(model: Runs, m: Runs, c: vd.Criterion) -> list[ClaimResult]:
    if model.points != m.points:
        return [ClaimResult(c, f"the model ran P={model.points}, the real system P={m.points}",
                            vd.inconclusive("no P run by both"))]
    results = []
    for threads in [t for t in m.threads if t in model.threads]:
        segments = [s for s in m.article_segments if s in model.article_segments]
        if not segments:
            continue
        # Repeat r of the model and of MariaDB ran at different times: pairing them by repeat
        # number pairs nothing real, so each engine's arms are paired within it (their own
        # repeat) and the two engines resampled on their own.
        cells = [(model.samples(s, threads).to_numpy(), model.samples(common.OFF, threads).to_numpy(),
                  m.samples(s, threads).to_numpy(), m.samples(common.OFF, threads).to_numpy()) for s in segments]
        outcome = vd.evaluate_cells(cells, c, m.context, cell_statistic=_gain_difference)
        ours = (f"model - MariaDB, median over {', '.join(map(str, segments))} segments: {outcome.value:+.1f} points"
                f"{vd.interval(outcome, 1)}")
        results.append(ClaimResult(c, f"P={m.points}: {ours}", outcome,
                                   variant=f"{threads} thread{'' if threads == 1 else 's'}"))
    return results or [ClaimResult(c, "no thread count run by both", vd.inconclusive("no common thread count"))]


def model_within_real(vs: pd.DataFrame | None, c: vd.Criterion) -> ClaimResult:
    """The share of cells (both distributions, every thread and segment count run by both
    engines) where the model's gain lies inside the real MariaDB's 95% interval."""
    if vs is None or not len(vs):
        return ClaimResult(c, "no cell run by both", vd.inconclusive("no cell run by both the model and MariaDB"))
    judged = vs[vs["model_within_real_interval"].notna()]
    if not len(judged):
        return ClaimResult(c, f"{len(vs)} cells, none with the real server's interval",
                           vd.inconclusive("the real server's cells have no interval (fewer than 5 repeats)"))
    inside = judged["model_within_real_interval"].astype(str).str.lower().isin(["true", "1", "1.0"])
    share = 100.0 * float(inside.mean())
    per = "; ".join(f"{d}: {int(inside[judged['distribution'] == d].sum())} of {int((judged['distribution'] == d).sum())}"
                    for d in sorted(judged["distribution"].unique()))
    result = ClaimResult(c, f"{share:.0f}% of {len(judged)} cells ({per})", vd.evaluate_count(share, c.band))
    if result.outcome.reproduced != "yes":
        outside = judged[~inside.to_numpy()]
        worst = outside.loc[(outside["model_gain_pct"] - outside["real_gain_pct"]).abs().idxmax()]
        result.why = (f"largest miss: {worst['distribution']}, {int(worst['threads'])} threads, "
                      f"{int(worst['segments'])} segments: model {worst['model_gain_pct']:+.1f}%, real "
                      f"{worst['real_gain_pct']:+.1f}% [{worst['real_ci_low']:+.1f}, {worst['real_ci_high']:+.1f}] "
                      "(mutex_account.csv beside this file: where each spends a query's time)")
    return result


def mariadb_claims(model: Runs, mariadb: pd.DataFrame | None, k, skipped: str) -> list[ClaimResult]:
    ids = ("mariadb_one_thread_small_loss", "mariadb_segments_help", "mariadb_gain_grows_with_threads",
           "mariadb_model_agrees", *(name for name in ("mariadb_gain_follows_hardware", "mariadb_64_segments_like_32",
                                                       "mariadb_points_change_little") if name in k))
    if mariadb is None or not len(mariadb):
        return [mariadb_skipped(k[name], skipped or "no records of the real MariaDB") for name in ids]
    m = Runs(mariadb, model.paper, model.context)
    found = [one_thread_small_loss(m, k["mariadb_one_thread_small_loss"]),
             mariadb_segments_help(m, k["mariadb_segments_help"]),
             mariadb_gain_grows(m, k["mariadb_gain_grows_with_threads"]),
             *mariadb_model_agrees(model, m, k["mariadb_model_agrees"])]
    # The article's other statements, judged on the real server (issue 30), where the criteria name them.
    if "mariadb_gain_follows_hardware" in k:
        found.append(gain_follows_hardware(m, k["mariadb_gain_follows_hardware"]))
    if "mariadb_64_segments_like_32" in k:
        found.append(segments_alike(m, k["mariadb_64_segments_like_32"]))
    if "mariadb_points_change_little" in k:
        found.append(points_change_little(m, k["mariadb_points_change_little"]))
    return found


def claims(runs: pd.DataFrame, paper, criteria: vd.Criteria, mariadb: pd.DataFrame | None = None,
           mariadb_skipped_reason: str = "", model_vs_real: pd.DataFrame | None = None,
           context: vd.Context = vd.DEFAULT) -> list[ClaimResult]:
    r = Runs(runs, paper, context)
    k = criteria.claims
    found = [one_thread_small_loss(r, k["one_thread_small_loss"]),
             gain_grows_with_threads(r, k["gain_grows_with_threads"]),
             gain_follows_hardware(r, k["gain_follows_hardware"]), mutex_waits_fall(r, k["mutex_waits_fall"]),
             *mariadb_claims(r, mariadb, k, mariadb_skipped_reason)]
    if "model_within_real_interval" in k:
        found.append(model_within_real(model_vs_real, k["model_within_real_interval"]) if mariadb is not None
                     and len(mariadb) else mariadb_skipped(k["model_within_real_interval"],
                                                           mariadb_skipped_reason or "no records of the real MariaDB"))
    return found


def in_scope(frame: pd.DataFrame | None, scope: dict) -> pd.DataFrame | None:
    """The cells the criteria's scope names: the article's cache size (the whole index fits)
    and the article's draw of the points (sysbench's special), unless the scope says another."""
    if frame is None:
        return None
    frame = common.cells_at_fraction(frame, float(scope.get("index_fraction", common.ARTICLE_FRACTION)))
    return common.cells_of_distribution(frame, scope.get("distribution", common.ARTICLE_DISTRIBUTION))


def main(paper_path, csv_path, md_path, run_paths, criteria_path=None, mariadb_paths=(),
         mariadb_skipped_reason="", model_vs_real_path=None, run_config=None,
         context: vd.Context = vd.DEFAULT) -> pd.DataFrame:
    from dbrepro.records import load_runs

    criteria = vd.load_criteria(criteria_path or "key_cache", run_config)
    mariadb = in_scope(load_runs(mariadb_paths), criteria.scope) if mariadb_paths else None
    model = in_scope(load_runs(run_paths), criteria.scope)
    vs = pd.read_csv(model_vs_real_path) if model_vs_real_path else None
    found = claims(model, common.load_paper(paper_path), criteria, mariadb, mariadb_skipped_reason, vs, context)
    judged = (f"The claims judge the cells with the whole index cached and each thread's points drawn "
              f"the {criteria.scope.get('distribution', common.ARTICLE_DISTRIBUTION)} way (the criteria's scope); "
              "both draws, cell by cell, are in model_vs_real.csv and mutex_account.csv.")
    account = vd.load_account(context, model, mariadb)
    return vd.write_claims(vd.judge_all(found, criteria, context), criteria, csv_path, md_path, context,
                           preamble="\n\n".join(part for part in (account, judged) if part))


if "snakemake" in globals():
    i = snakemake.input  # noqa: F821
    context = vd.Context.from_params(snakemake.params)  # noqa: F821 (what this profile can judge)
    common.run_logged(snakemake.log[0], partial(main, run_config=snakemake.config, context=context),  # noqa: F821
                      i.paper, snakemake.output.csv, snakemake.output.md,  # noqa: F821
                      list(i.runs), i.criteria, list(i.mariadb_runs), snakemake.params.settings["mariadb_skipped"],  # noqa: F821
                      i.model_vs_real)
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("paper", "csv", "md"):
        parser.add_argument(name)
    parser.add_argument("runs", nargs="+", help="raw-run records of `dbrepro run key_cache run` (JSON)")
    parser.add_argument("--mariadb", nargs="*", default=[],
                        help="records of `dbrepro run key_cache mariadb run` (JSON), the real system")
    a = parser.parse_args()
    print(main(a.paper, a.csv, a.md, a.runs, mariadb_paths=a.mariadb,
               mariadb_skipped_reason="" if a.mariadb else "no --mariadb records given").to_string(index=False))
