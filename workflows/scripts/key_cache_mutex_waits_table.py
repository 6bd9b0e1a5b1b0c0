"""Contended key-cache mutex acquisitions (try_lock failed first) per cell
(cache size, P, threads): the median count over the repeats and per query, by
segments value; the miss path's misses and waits on blocks being read per
query (in-flight waits; none while the whole index fits); and what
explains whether segments help: the share of the threads' time spent waiting
for segment mutexes and holding them, and the holds in which the holder lost
its CPU (lock-holder preemption) per 1000 acquisitions.

Run by Snakemake (rule key_cache_mutex_waits_table), or by hand:
    python workflows/scripts/key_cache_mutex_waits_table.py throughput.csv mutex_waits.csv
"""

import pandas as pd

import key_cache_common as common


def waits_table(throughput: pd.DataFrame) -> pd.DataFrame:
    throughput = common.with_fraction(throughput)
    table = throughput[["distribution", "index_fraction", "segments", "threads", "points", "mutex_waits", "queries",
                        "hits"]].copy()
    queries = table["queries"].where(table["queries"] > 0)
    table["waits_per_query"] = table["mutex_waits"] / queries
    if "misses" in throughput.columns:  # the miss path: reads with the mutex released, readers of a block waiting
        table["misses_per_query"] = throughput["misses"] / queries
        table["inflight_waits_per_query"] = throughput["inflight_waits"] / queries
    table["waits_per_1000_block_reads"] = 1000 * table["mutex_waits"] / table["hits"].where(table["hits"] > 0)
    if "mutex_held_ns" in throughput.columns:  # tables from before the holds were timed lack them
        thread_ns = throughput["threads"] * throughput["elapsed_seconds"] * 1e9
        table["wait_share"] = throughput["mutex_wait_ns"] / thread_ns
        table["held_share"] = throughput["mutex_held_ns"] / thread_ns
        acquisitions = throughput["mutex_acquisitions"].where(throughput["mutex_acquisitions"] > 0)
        table["long_holds_per_1000_acquisitions"] = 1000 * throughput["mutex_long_holds"] / acquisitions
        table["involuntary_switches_per_s"] = throughput["involuntary_switches"] / throughput["elapsed_seconds"]
    return table.sort_values(["distribution", "index_fraction", "points", "threads", "segments"],
                             ascending=[True, False, True, True, True]).reset_index(drop=True)


common.throughput_derived_script(waits_table, __doc__, globals())
