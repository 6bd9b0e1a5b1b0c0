"""Trace-driven hit ratios toward the article's scale: the page reference
strings recorded from single-terminal TPC-C runs at several warehouse counts,
each replayed through every policy at every cache size. A size is a fraction
of one of two things, and `fraction_of` says which in every row:
  - "database pages": of the pages the database had when the run began (the
    pool's 10%, the article's cgroup limit: the scale table's meaning);
  - "trace distinct pages": of the pages the trace touches, fewer than the
    database's (a short run never touches most stock and customer rows), so
    this 10% is a smaller cache.
At least 20 frames, the size from which our S3-FIFO equals libCacheSim's.
The trace's head is its run's warm-up (`pool.warmup_references` in the run's
record): replayed to fill the cache, not counted, as the pool's runs count
only their measured phase; `cache_full_at_start` says whether the warm-up
touched at least as many distinct pages as the cache holds. Measured points
only: no curve is fitted toward 250 warehouses. Deterministic; no timing.

    python workflows/scripts/fifo_cache_hit_curve.py OUT.csv TRACE.txt TRACE.json [TRACE.txt TRACE.json ...] \
        --fractions 0.05,0.1 --policies lru,soqol
"""

import argparse
import math

import pandas as pd
from dbrepro import fifo_cache, registry
from dbrepro.records import load_result

import fifo_cache_common as common

MIN_FRAMES = 20  # libCacheSim's S3FIFO admits nothing below (tests/test_cache_oracle.py)
BASES = ("database pages", "trace distinct pages")


def trace_rows(trace_path, record_path, fractions, policies) -> list[dict]:
    ids = fifo_cache.read_trace(trace_path)
    record = load_result(record_path)
    warmup = int(record.metrics["pool"]["warmup_references"])
    pages = {"database pages": int(record.metrics["pool"]["database_pages"]), "trace distinct pages": len(set(ids))}
    warmup_pages = len(set(ids[:warmup]))
    rows = []
    for basis in BASES:
        for fraction in fractions:
            capacity = max(MIN_FRAMES, math.ceil(pages[basis] * fraction))  # the pool rounds up too
            for policy in policies:
                stats = fifo_cache.simulate(policy, ids, capacity, warmup=warmup)
                rows.append({"warehouses": int(record.config["warehouses"]), "cache_policy": policy,
                             "fraction": fraction, "fraction_of": basis, "capacity": capacity,
                             "database_pages": pages["database pages"], "trace_pages": pages["trace distinct pages"],
                             "warmup_transactions": int(record.config.get("warmup_transactions", 0)),
                             "warmup_requests": warmup, "cache_full_at_start": warmup_pages >= capacity,
                             "transactions": int(record.metrics["transactions"]),
                             **{k: stats[k] for k in ("requests", "hits", "misses", "hit_locks", "ghost_hits", "hit_ratio")}})
    return rows


def main(out_path, traces, fractions, policies) -> pd.DataFrame:
    """traces: (trace file, its run's record) pairs, one per warehouse count."""
    rows = [row for trace, record in traces for row in trace_rows(trace, record, fractions, policies)]
    table = pd.DataFrame(rows).sort_values(["fraction_of", "fraction", "warehouses", "cache_policy"])
    table.to_csv(out_path, index=False)
    return table


if "snakemake" in globals():
    common.run_logged(snakemake.log[0], main, snakemake.output[0],  # noqa: F821
                      list(zip(snakemake.input.traces, snakemake.input.records)),  # noqa: F821
                      list(snakemake.params.fractions), list(snakemake.params.policies))  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("pairs", nargs="+", help="TRACE.txt TRACE.json, one pair per recorded trace")
    parser.add_argument("--fractions", default="0.05,0.1,0.2,0.5,1.0")
    parser.add_argument("--policies", default=",".join(registry.policies()))
    a = parser.parse_args()
    if len(a.pairs) % 2:
        parser.error("pairs: give each trace file followed by its record")
    pairs = list(zip(a.pairs[::2], a.pairs[1::2]))
    print(main(a.out, pairs, [float(f) for f in a.fractions.split(",")], a.policies.split(",")).to_string(index=False))
