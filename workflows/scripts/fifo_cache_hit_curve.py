"""Trace-driven hit ratios: the page reference string recorded from a TPC-C
run replayed through every policy at every pool fraction (of the pages the
trace touches, not of the database: `fraction_of` says so in every row; the
scale table's fractions are of the database's pages). At least 20 frames, the
size from which our S3-FIFO equals libCacheSim's. Deterministic; no timing.

    python workflows/scripts/fifo_cache_hit_curve.py TRACE.txt OUT.csv --fractions 0.05,0.1 --policies lru,soqol
"""

import argparse

import pandas as pd
from dbrepro import fifo_cache, registry

import fifo_cache_common as common

MIN_FRAMES = 20  # libCacheSim's S3FIFO admits nothing below (tests/test_cache_oracle.py)


def main(trace_path, out_path, fractions, policies) -> pd.DataFrame:
    ids = fifo_cache.read_trace(trace_path)
    pages = len(set(ids))
    rows = []
    for fraction in fractions:
        capacity = max(MIN_FRAMES, int(pages * fraction))
        for policy in policies:
            stats = fifo_cache.simulate(policy, ids, capacity)
            rows.append({"cache_policy": policy, "fraction": fraction, "fraction_of": "trace distinct pages",
                         "capacity": capacity, "trace_pages": pages,
                         **{k: stats[k] for k in ("requests", "hits", "misses", "hit_locks", "hit_ratio")}})
    table = pd.DataFrame(rows)
    table.to_csv(out_path, index=False)
    return table


if "snakemake" in globals():
    common.run_logged(snakemake.log[0], main, snakemake.input.trace, snakemake.output[0],  # noqa: F821
                      list(snakemake.params.fractions), list(snakemake.params.policies))  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("out")
    parser.add_argument("--fractions", default="0.05,0.1,0.2,0.5,1.0")
    parser.add_argument("--policies", default=",".join(registry.policies()))
    a = parser.parse_args()
    print(main(a.trace, a.out, [float(f) for f in a.fractions.split(",")], a.policies.split(",")).to_string(index=False))
