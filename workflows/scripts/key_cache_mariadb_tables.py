"""The real MariaDB's tables (E2, beside the model):

- mariadb_throughput.csv: per (segments, threads, P) over the repeats, sysbench's
  queries/s (median, min, max) and latency, and what the server did per query:
  key-cache block requests, Key_reads (0: the index stayed in the cache), CPU
  microseconds, voluntary and involuntary context switches; the load average;
- mariadb_gains.csv: the gain of each segments value over off per (distribution,
  threads, P), (median q/s with N / median q/s off - 1) x 100 with its 95%
  bootstrap interval (dbrepro.verdicts', paired by repeat; none with fewer than
  key_cache_common.MIN_REPEATS repeats), beside the model's gain and the article's;
- mariadb_relative.csv: the article's form, one row per (P, segments, source),
  one column per thread count: the real system (and its interval's bounds), the
  model, pitbull and perro.

Run by Snakemake (rule key_cache_mariadb_tables), or by hand:
    python workflows/scripts/key_cache_mariadb_tables.py MODEL_THROUGHPUT.csv PAPER.yaml OUT_DIR RUN.json...
"""

import argparse
import math
from pathlib import Path

import pandas as pd

from dbrepro import verdicts as vd
import key_cache_common as common
from dbrepro.records import load_runs

KEYS = ["distribution", "segments", "threads", "points"]
SOURCES = ["mariadb", "mariadb_ci_low", "mariadb_ci_high", "model", *common.MACHINES]


def per_query(runs: pd.DataFrame) -> pd.DataFrame:
    """Each run's server counters per query sysbench completed."""
    runs = common.with_fraction(runs).copy()
    queries = runs["queries"].where(runs["queries"] > 0)
    runs["key_requests_per_query"] = runs["key_read_requests"] / queries
    runs["server_cpu_us_per_query"] = 1e6 * runs["server_cpu_seconds"] / queries
    runs["voluntary_switches_per_query"] = runs["server_voluntary_switches"] / queries
    runs["involuntary_switches_per_query"] = runs["server_involuntary_switches"] / queries
    runs["server_cpu_share"] = runs["server_cpu_seconds"] / (runs["wall_seconds"] * runs["cpu_count"])
    return runs


def throughput_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per key, over the repeats' undisturbed runs (disturbed_cells: those left out)."""
    runs = per_query(runs)
    grouped = common.undisturbed(runs, KEYS).groupby(KEYS)
    table = grouped["queries_per_second"].agg(qps_median="median", qps_min="min", qps_max="max", repeats="count")
    medians = grouped[["latency_ms_avg", "latency_ms_p95", "key_requests_per_query", "server_cpu_us_per_query",
                       "voluntary_switches_per_query", "involuntary_switches_per_query", "server_cpu_share",
                       "loadavg_1m"]].median()
    totals = grouped[["key_reads", "errors"]].sum()
    table = table.join(medians).join(totals).join(grouped["loadavg_1m"].max().rename("loadavg_1m_max")).reset_index()
    table = common.with_disturbed_cells(table, runs, KEYS)
    first = runs.iloc[0]
    for column in ("table_rows", "index_bytes", "key_buffer_bytes", "seconds_limit", "warmup_seconds", "cpu_count",
                   "mariadb_version", "sysbench_version"):
        table[column] = first[column]
    return table.sort_values(["distribution", "points", "threads", "segments"]).reset_index(drop=True)


def gains_table(runs: pd.DataFrame, model: pd.DataFrame, paper: dict) -> pd.DataFrame:
    # The model at the real server's cache size (the article's: the whole index fits).
    model = common.article_cache(model)
    model_gains = common.relative_gains(model).set_index(KEYS)["percent"] if len(model) else pd.Series(dtype=float)
    article = common.paper_relative(paper).pivot_table(index=KEYS, columns="machine", values="percent")
    rows = []
    runs = common.with_fraction(runs)
    for (distribution, points, threads), all_runs in common.with_load_columns(runs).groupby(
            ["distribution", "points", "threads"]):
        # Disturbed runs are left out of the gain and its interval, unless every run of the cell was
        # disturbed: then the table shows them (disturbed_cells says so); the claims never use them.
        cell = common.undisturbed(all_runs)
        off = cell.loc[cell["segments"] == common.OFF, "queries_per_second"].to_numpy(dtype=float)
        for segments in sorted(s for s in cell["segments"].unique() if s != common.OFF):
            on = cell.loc[cell["segments"] == segments, "queries_per_second"].to_numpy(dtype=float)
            gain = float(vd.median_effect("pct_change")(on, off)) if len(on) and len(off) else math.nan
            _, low, high = common.paired_gain_interval(
                vd.by_repeat(cell[cell["segments"] == segments], "queries_per_second"),
                vd.by_repeat(cell[cell["segments"] == common.OFF], "queries_per_second"))
            key = (distribution, int(segments), int(threads), int(points))
            rows.append({
                "distribution": distribution, "points": int(points), "threads": int(threads), "segments": int(segments),
                "mariadb_gain": gain, "ci_low": low, "ci_high": high, "repeats": int(min(len(on), len(off))),
                "model_gain": float(model_gains.get(key, math.nan)),
                **{machine: float(article[machine].get(key, math.nan)) if machine in article else math.nan
                   for machine in common.MACHINES},
                "loadavg_1m_median": float(cell["loadavg_1m"].median()),
                "key_reads": int(cell["key_reads"].sum()),
                "disturbed_cells": int(all_runs.loc[all_runs["segments"].isin([segments, common.OFF]),
                                                    "disturbed"].sum()),
            })
    return pd.DataFrame(rows).sort_values(["distribution", "points", "segments", "threads"]).reset_index(drop=True)


def relative_table(gains: pd.DataFrame) -> pd.DataFrame:
    """The article's form: a row per (P, segments, source), a column per thread count."""
    columns = {"mariadb": "mariadb_gain", "mariadb_ci_low": "ci_low", "mariadb_ci_high": "ci_high",
               "model": "model_gain", **{machine: machine for machine in common.MACHINES}}
    long = pd.concat([gains[["distribution", "points", "segments", "threads"]].assign(source=source,
                                                                                      percent=gains[column])
                      for source, column in columns.items()], ignore_index=True)
    wide = long.pivot_table(index=["distribution", "points", "segments", "source"], columns="threads",
                            values="percent", dropna=False)
    wide.columns = [str(threads) for threads in wide.columns]
    wide = wide.reset_index()
    wide["_order"] = wide["source"].map({source: i for i, source in enumerate(SOURCES)})
    return wide.sort_values(["distribution", "points", "segments", "_order"]).drop(columns="_order") \
        .reset_index(drop=True)


def main(model_path, paper_path, throughput_path, gains_path, relative_path, run_paths):
    runs = load_runs(run_paths)
    model = pd.read_csv(model_path)
    throughput = throughput_table(runs)
    gains = gains_table(runs, model, common.load_paper(paper_path))
    relative = relative_table(gains)
    for table, path in ((throughput, throughput_path), (gains, gains_path), (relative, relative_path)):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(path, index=False, float_format="%.6g")
    return relative


if "snakemake" in globals():
    i, o = snakemake.input, snakemake.output  # noqa: F821
    common.run_logged(snakemake.log[0], main, i.model, i.paper, o.throughput, o.gains, o.relative,  # noqa: F821
                      list(i.runs))
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="results/tables/key_cache/throughput.csv (the model's)")
    parser.add_argument("paper", help="workflows/data/key_cache_paper.yaml")
    parser.add_argument("out_dir", help="folder for mariadb_{throughput,gains,relative}.csv")
    parser.add_argument("runs", nargs="+", help="records of `dbrepro run key_cache mariadb run` (JSON)")
    a = parser.parse_args()
    out = Path(a.out_dir)
    print(main(a.model, a.paper, out / "mariadb_throughput.csv", out / "mariadb_gains.csv",
               out / "mariadb_relative.csv", a.runs).to_string(index=False))
