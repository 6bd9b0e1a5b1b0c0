"""The fifo_cache runs summarised: one row per (policy, pool fraction,
terminals) with the median, min and max over the repeats of NOPM and TPM (as
HammerDB reports them: New Orders committed per minute; committed and rolled
back transactions per minute) and the 95% bootstrap CI of each median, the
hit ratio, page reads and write-backs per transaction, locks taken on hits,
how many of those waited and the share of the terminals' time they waited
(terminals x elapsed), the misses found in the policy's ghost (`ghost_hits`:
2Q's admissions to Am, S3-FIFO's; 0 for policies without a ghost), CPU time
and load average.

With --scale (the rule's `table: scale`), the scale sweep: one row per
(policy, warehouses, pool fraction) of single-terminal runs: the hit ratio and page reads and
write-backs per transaction (counts, deterministic for a seed), the measured
hits, misses and ghost hits, the warm-up's misses, the pool's frames and the
database's pages. `fraction` is of the database's pages at the
start of the measured phase (the pool's size), not of a trace's distinct
pages (the hit-curve table's); `fraction_of` says so in every row.

Every run says how many warm-up transactions ran before its measured phase
(`warmup_transactions`, uncounted) and whether the pool was full when
counting began (`pool_full_at_start`: the warm-up missed at least once per
frame). Where it was not, the rest of the pool's first fill (one miss per
frame not yet filled) is counted: `fill_share_of_misses` is that share of the
measured misses (0 when the warm-up filled the pool); `hit_ratio_after_fill`
leaves it out (hits / (hits + misses - unfilled frames)); empty where the
pool never filled.

    python workflows/scripts/fifo_cache_table.py OUT.csv RUN.json...
    python workflows/scripts/fifo_cache_table.py --scale OUT.csv SCALE_RUN.json...
"""

import argparse
import math

import numpy as np
import pandas as pd
from dbrepro.host_load import row_columns
from dbrepro.records import load_result

from dbrepro import verdicts as vd
import fifo_cache_common as common

KEYS = ["cache_policy", "pool_fraction_asked", "terminals"]
FRACTION_OF = "database pages"  # the pool's size; the hit curve's fractions are of a trace's distinct pages


def run_row(path) -> dict:
    result = load_result(path)
    config, metrics, pool = result.config, result.metrics, result.metrics["pool"]
    first = result.to_frame().iloc[0]  # NOPM and TPM are per run, the same on every row
    done = float(metrics["transactions"])
    return {
        "cache_policy": pool["policy"],
        "pool_fraction_asked": float(config["pool_fraction"]),
        "pool_fraction": float(pool["fraction"]),
        "terminals": int(config.get("terminals", 1) or 1),
        "warehouses": int(config["warehouses"]),
        "warmup_transactions": int(config.get("warmup_transactions", 0)),
        "seed": int(config["seed"]) if config.get("seed") is not None else None,
        "pool_full_at_start": int(pool.get("warmup_misses", 0)) >= int(pool["frames"]),
        "nopm": float(first["nopm"]),
        "tpm": float(first["tpm"]),
        "hit_ratio": float(pool["hit_ratio"]),
        "reads_per_txn": pool["reads"] / done,
        "writes_per_txn": pool["writes"] / done,
        "hit_locks": int(pool["hit_locks"]),
        "hit_lock_waits": int(pool.get("hit_lock_waits", 0)),
        # The share of the terminals' time that hits spent waiting for the policy's lock.
        "hit_lock_wait_pct": 100.0 * pool.get("hit_lock_wait_ns", 0) / 1e9
        / (int(config.get("terminals", 1) or 1) * float(metrics["elapsed_seconds"])),
        "cold_writes_per_txn": pool.get("cold_writes", 0) / done,
        "pool_hits": int(pool["hits"]),
        "pool_misses": int(pool["misses"]),
        # Misses found in the policy's ghost (2Q: admissions to Am; 0 without a ghost, or in older records).
        "ghost_hits": int(pool.get("ghost_hits", 0)),
        "transactions": done,
        "elapsed_seconds": float(metrics["elapsed_seconds"]),
        "cpu_seconds": float(metrics["cpu_seconds"]),
        "loadavg_1m": (metrics.get("host", {}).get("loadavg_before") or [None])[0],
        "consistent": bool(metrics["consistent"]),
        "o_direct": bool(pool["o_direct"]),
        # Foreign load over the run, and its reruns (dbrepro.host_load).
        **row_columns(metrics.get("host")),
    }


def median_interval(values) -> tuple[float, float]:
    """95% bootstrap CI of the median (the shared evaluator's); none from fewer than 2 repeats."""
    values = np.asarray(values, dtype=float)
    if len(values) < 2 or np.all(values == values[0]):
        return (math.nan, math.nan) if len(values) < 2 else (float(values[0]), float(values[0]))
    return vd.bootstrap_interval([values], lambda a, axis=-1: np.median(a, axis=axis), vd.CONFIDENCE)


def main(out_path, run_paths) -> pd.DataFrame:
    """Per cell over the repeats' undisturbed runs (disturbed_cells: those left out)."""
    runs = pd.DataFrame([run_row(p) for p in run_paths])
    grouped = common.undisturbed(runs, KEYS).groupby(KEYS, as_index=False)
    table = grouped.agg(
        warehouses=("warehouses", "first"),
        warmup_transactions=("warmup_transactions", "first"),
        pool_full_at_start=("pool_full_at_start", "all"),
        pool_fraction=("pool_fraction", "median"),
        repeats=("nopm", "size"),
        nopm_median=("nopm", "median"), nopm_min=("nopm", "min"), nopm_max=("nopm", "max"),
        tpm_median=("tpm", "median"), tpm_min=("tpm", "min"), tpm_max=("tpm", "max"),
        hit_ratio=("hit_ratio", "median"),
        reads_per_txn=("reads_per_txn", "median"), writes_per_txn=("writes_per_txn", "median"),
        hit_locks=("hit_locks", "median"), pool_hits=("pool_hits", "median"),
        hit_lock_waits=("hit_lock_waits", "median"), hit_lock_wait_pct=("hit_lock_wait_pct", "median"),
        cold_writes_per_txn=("cold_writes_per_txn", "median"),
        ghost_hits=("ghost_hits", "median"),
        cpu_seconds=("cpu_seconds", "median"), elapsed_seconds=("elapsed_seconds", "median"),
        loadavg_1m=("loadavg_1m", "median"),
        consistent=("consistent", "all"), o_direct=("o_direct", "all"),
    )
    for metric in ("nopm", "tpm"):
        bounds = grouped[metric].agg(lambda v: median_interval(v))[metric]
        table[f"{metric}_ci_low"] = [low for low, _ in bounds]
        table[f"{metric}_ci_high"] = [high for _, high in bounds]
    table = common.with_disturbed_cells(table, runs, KEYS)
    table["repeats"] = table["repeats"].fillna(0).astype(int)
    table.insert(KEYS.index("pool_fraction_asked") + 1, "fraction_of", FRACTION_OF)
    table = table.rename(columns={"pool_fraction_asked": "fraction"}).sort_values(["terminals", "fraction", "cache_policy"])
    table.to_csv(out_path, index=False)
    return table


def scale_row(path) -> dict:
    pool = load_result(path).metrics["pool"]
    row = run_row(path)
    unfilled = max(0, int(pool["frames"]) - int(pool.get("warmup_misses", 0)))  # frames the warm-up left empty
    return {
        "cache_policy": row["cache_policy"],
        "warehouses": row["warehouses"],
        "fraction": row["pool_fraction_asked"],
        "fraction_of": FRACTION_OF,
        "pool_fraction": row["pool_fraction"],
        "pool_frames": int(pool["frames"]),
        "database_pages": int(pool["database_pages"]),
        "seed": row["seed"],
        "warmup_transactions": row["warmup_transactions"],
        "pool_full_at_start": row["pool_full_at_start"],
        "hit_ratio": row["hit_ratio"],
        "fill_share_of_misses": min(1.0, unfilled / pool["misses"]) if pool["misses"] else math.nan,
        "hit_ratio_after_fill": (pool["hits"] / (pool["hits"] + pool["misses"] - unfilled)
                                 if pool["misses"] > unfilled else math.nan),
        "reads_per_txn": row["reads_per_txn"],
        "writes_per_txn": row["writes_per_txn"],
        "hits": row["pool_hits"],
        "misses": row["pool_misses"],
        "ghost_hits": row["ghost_hits"],
        "warmup_misses": int(pool.get("warmup_misses", 0)),
        "transactions": int(row["transactions"]),
        "terminals": row["terminals"],
        "elapsed_seconds": row["elapsed_seconds"],
        **{name: row[name] for name in ("foreign_cpu_seconds", *common.LOAD_COLUMNS)},
    }


def scale_main(out_path, run_paths) -> pd.DataFrame:
    table = pd.DataFrame([scale_row(p) for p in run_paths])
    table = table.sort_values(["fraction", "warehouses", "cache_policy"])
    table.to_csv(out_path, index=False)
    return table


if "snakemake" in globals():
    MAINS = {"throughput": main, "scale": scale_main}
    common.run_logged(snakemake.log[0], MAINS[snakemake.params.table], snakemake.output[0],  # noqa: F821
                      list(snakemake.input.runs))  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", action="store_true", help="the scale sweep's runs")
    parser.add_argument("out")
    parser.add_argument("runs", nargs="+")
    a = parser.parse_args()
    print((scale_main if a.scale else main)(a.out, a.runs).to_string(index=False))
