"""Contended key-cache mutex acquisitions (try_lock failed first) per cell:
the median count over the repeats and per query, by segments value; and what
explains whether segments help: the share of the threads' time spent waiting
for segment mutexes and holding them, and the holds in which the holder lost
its CPU (lock-holder preemption) per 1000 acquisitions.

Run by Snakemake (rule key_cache_mutex_waits_table), or by hand:
    python workflows/scripts/key_cache_mutex_waits_table.py throughput.csv mutex_waits.csv
"""

import argparse

import pandas as pd

import key_cache_common as common


def waits_table(throughput: pd.DataFrame) -> pd.DataFrame:
    table = throughput[["segments", "threads", "points", "mutex_waits", "queries", "hits"]].copy()
    table["waits_per_query"] = table["mutex_waits"] / table["queries"].where(table["queries"] > 0)
    table["waits_per_1000_block_reads"] = 1000 * table["mutex_waits"] / table["hits"].where(table["hits"] > 0)
    if "mutex_held_ns" in throughput.columns:  # tables from before the holds were timed lack them
        thread_ns = throughput["threads"] * throughput["elapsed_seconds"] * 1e9
        table["wait_share"] = throughput["mutex_wait_ns"] / thread_ns
        table["held_share"] = throughput["mutex_held_ns"] / thread_ns
        acquisitions = throughput["mutex_acquisitions"].where(throughput["mutex_acquisitions"] > 0)
        table["long_holds_per_1000_acquisitions"] = 1000 * throughput["mutex_long_holds"] / acquisitions
        table["involuntary_switches_per_s"] = throughput["involuntary_switches"] / throughput["elapsed_seconds"]
    return table.sort_values(["points", "threads", "segments"]).reset_index(drop=True)


def main(throughput_path, out_path) -> pd.DataFrame:
    table = waits_table(pd.read_csv(throughput_path))
    table.to_csv(out_path, index=False, float_format="%.6g")
    return table


if "snakemake" in globals():
    common.run_logged(snakemake.log[0], main, snakemake.input.throughput, snakemake.output[0])  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("throughput", help="results/tables/key_cache/throughput.csv")
    parser.add_argument("out", help="CSV to write")
    args = parser.parse_args()
    print(main(args.throughput, args.out).to_string(index=False))
