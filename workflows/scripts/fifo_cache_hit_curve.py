"""Trace-driven hit ratios: the page reference string recorded from a TPC-C
run replayed through every policy at every pool fraction (of the pages the
trace touches, not of the database: `fraction_of` says so in every row; the
scale table's fractions are of the database's pages). At least 20 frames, the
size from which our S3-FIFO equals libCacheSim's. The trace's head is its
run's warm-up (`pool.warmup_references` in the run's record): replayed to
fill the cache, not counted, as the pool's runs count only their measured
phase. Deterministic; no timing.

    python workflows/scripts/fifo_cache_hit_curve.py TRACE.txt TRACE.json OUT.csv --fractions 0.05,0.1 --policies lru,soqol
"""

import argparse

import pandas as pd
from dbrepro import fifo_cache, registry
from dbrepro.records import load_result

import fifo_cache_common as common

MIN_FRAMES = 20  # libCacheSim's S3FIFO admits nothing below (tests/test_cache_oracle.py)


def main(trace_path, record_path, out_path, fractions, policies) -> pd.DataFrame:
    ids = fifo_cache.read_trace(trace_path)
    warmup = int(load_result(record_path).metrics["pool"]["warmup_references"])
    pages = len(set(ids))
    rows = []
    for fraction in fractions:
        capacity = max(MIN_FRAMES, int(pages * fraction))
        for policy in policies:
            stats = fifo_cache.simulate(policy, ids, capacity, warmup=warmup)
            rows.append({"cache_policy": policy, "fraction": fraction, "fraction_of": "trace distinct pages",
                         "capacity": capacity, "trace_pages": pages, "warmup_requests": warmup,
                         **{k: stats[k] for k in ("requests", "hits", "misses", "hit_locks", "hit_ratio")}})
    table = pd.DataFrame(rows)
    table.to_csv(out_path, index=False)
    return table


if "snakemake" in globals():
    common.run_logged(snakemake.log[0], main, snakemake.input.trace, snakemake.input.record,  # noqa: F821
                      snakemake.output[0],  # noqa: F821
                      list(snakemake.params.fractions), list(snakemake.params.policies))  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("record", help="the trace run's record (fifo_cache trace --record)")
    parser.add_argument("out")
    parser.add_argument("--fractions", default="0.05,0.1,0.2,0.5,1.0")
    parser.add_argument("--policies", default=",".join(registry.policies()))
    a = parser.parse_args()
    print(main(a.trace, a.record, a.out, [float(f) for f in a.fractions.split(",")], a.policies.split(",")).to_string(index=False))
