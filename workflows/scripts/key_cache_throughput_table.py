"""Queries/s of select_random_points per cache size (index_fraction),
key_cache_segments value, threads and P, over the repeats: median, min, max, with latency percentiles and the key
cache's counters (medians over the repeats): mutex waits and the time waited,
the time the segment mutexes were held, the holds in which the holder lost its
CPU (long holds), waits on blocks being read, the server process's involuntary
context switches in the window and, in client_server mode, the client process's.

Run by Snakemake (rule key_cache_throughput_table), or by hand:
    python workflows/scripts/key_cache_throughput_table.py throughput.csv RUN.json...
"""

import argparse

import pandas as pd

import key_cache_common as common
from dbrepro.records import load_runs

KEYS = ["distribution", "index_fraction", "segments", "threads", "points"]
COUNTERS = ["latency_us_p50", "latency_us_p95", "latency_us_p99", "mutex_waits", "mutex_wait_ns",
            "mutex_acquisitions", "mutex_held_ns", "mutex_long_holds", "inflight_waits", "involuntary_switches",
            "hits", "misses", "queries", "cpu_seconds", "elapsed_seconds", "voluntary_switches",
            "client_cpu_seconds", "client_involuntary_switches", "client_voluntary_switches"]


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Per key, over the repeats' undisturbed cells (disturbed_cells: those left out)."""
    runs = common.with_fraction(runs)
    kept = common.undisturbed(runs, KEYS)
    grouped = kept.groupby(KEYS)
    table = grouped["queries_per_second"].agg(qps_median="median", qps_min="min", qps_max="max", n="count")
    # Records from before a counter existed lack its column: it is left out.
    medians = grouped[[name for name in COUNTERS if name in kept.columns]].median()
    table = common.with_disturbed_cells(table.join(medians).reset_index(), runs, KEYS)
    first = runs.iloc[0]
    table["rows"] = first["table_rows"]
    table["block_size"] = first["block_size"]
    table["cpu_count"] = first["cpu_count"]
    table["latch"] = first["latch"]
    table["mode"] = first.get("mode", "direct")  # how the clients reached the cache (records before it: direct)
    return table.sort_values(KEYS).reset_index(drop=True)


def main(out_path, run_paths) -> pd.DataFrame:
    table = summarize(load_runs(run_paths))
    table.to_csv(out_path, index=False, float_format="%.6g")
    return table


if "snakemake" in globals():
    common.run_logged(snakemake.log[0], main, snakemake.output[0], list(snakemake.input.runs))  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="CSV to write")
    parser.add_argument("runs", nargs="+", help="raw-run records of `dbrepro run key_cache run` (JSON)")
    args = parser.parse_args()
    print(main(args.out, args.runs).to_string(index=False))
