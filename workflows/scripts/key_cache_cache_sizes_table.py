"""The cache-size sweep (issue 16): for each (P, threads) cell run at more than
one cache size (index_fraction: the key buffer as a share of the index; 1 the
article's, the whole index fits), per cache size and segments value: median
queries/s, the gain over segments off, the hit ratio, and the miss path's and
the mutexes' measurements per query (misses, waits on blocks being read, mutex
waits) with the share of the threads' time spent waiting for segment mutexes.
The article ran no smaller cache: no numbers of theirs here.

Run by Snakemake (rule key_cache_cache_sizes_table), or by hand:
    python workflows/scripts/key_cache_cache_sizes_table.py throughput.csv cache_sizes.csv
"""

import pandas as pd

import key_cache_common as common
from key_cache_mutex_waits_table import waits_table

COLUMNS = ["distribution", "index_fraction", "points", "threads", "segments", "qps_median", "gain_percent", "hit_ratio",
           "misses_per_query", "inflight_waits_per_query", "waits_per_query", "wait_share", "held_share"]


def cache_sizes_table(throughput: pd.DataFrame) -> pd.DataFrame:
    throughput = common.with_fraction(throughput)
    swept = throughput.groupby(["distribution", "points", "threads"])["index_fraction"].transform("nunique") > 1
    cells = throughput[swept].reset_index(drop=True)
    if cells.empty:  # a profile with one cache size: the header alone
        return pd.DataFrame(columns=COLUMNS)
    keys = ["segments", *common.CELL]
    table = waits_table(cells).merge(cells[[*keys, "qps_median", "misses"]], on=keys)
    gains = common.relative_gains(cells).rename(columns={"percent": "gain_percent"})
    table = table.merge(gains, on=keys, how="left")  # segments off: no gain over itself
    looked_up = table["hits"] + table["misses"]
    table["hit_ratio"] = table["hits"] / looked_up.where(looked_up > 0)
    table = table[[c for c in COLUMNS if c in table.columns]]
    return table.sort_values(["distribution", "points", "threads", "segments", "index_fraction"],
                             ascending=[True, True, True, True, False]).reset_index(drop=True)


common.throughput_derived_script(cache_sizes_table, __doc__, globals())
