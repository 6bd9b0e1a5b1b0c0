"""The fifo_cache runs summarised: one row per (policy, pool fraction,
terminals) with the median, min and max over the repeats of NOPM and TPM (as
HammerDB reports them: New Orders committed per minute; committed and rolled
back transactions per minute), the hit ratio, page reads and write-backs per
transaction, locks taken on hits, CPU time and load average.

    python workflows/scripts/fifo_cache_table.py OUT.csv RUN.json...
"""

import argparse

import pandas as pd
from dbrepro.records import load_result

import fifo_cache_common as common

KEYS = ["cache_policy", "pool_fraction_asked", "terminals"]


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
        "nopm": float(first["nopm"]),
        "tpm": float(first["tpm"]),
        "hit_ratio": float(pool["hit_ratio"]),
        "reads_per_txn": pool["reads"] / done,
        "writes_per_txn": pool["writes"] / done,
        "hit_locks": int(pool["hit_locks"]),
        "pool_hits": int(pool["hits"]),
        "transactions": done,
        "elapsed_seconds": float(metrics["elapsed_seconds"]),
        "cpu_seconds": float(metrics["cpu_seconds"]),
        "loadavg_1m": (metrics.get("host", {}).get("loadavg_before") or [None])[0],
        "consistent": bool(metrics["consistent"]),
        "o_direct": bool(pool["o_direct"]),
    }


def main(out_path, run_paths) -> pd.DataFrame:
    runs = pd.DataFrame([run_row(p) for p in run_paths])
    grouped = runs.groupby(KEYS, as_index=False)
    table = grouped.agg(
        warehouses=("warehouses", "first"),
        pool_fraction=("pool_fraction", "median"),
        repeats=("nopm", "size"),
        nopm_median=("nopm", "median"), nopm_min=("nopm", "min"), nopm_max=("nopm", "max"),
        tpm_median=("tpm", "median"), tpm_min=("tpm", "min"), tpm_max=("tpm", "max"),
        hit_ratio=("hit_ratio", "median"),
        reads_per_txn=("reads_per_txn", "median"), writes_per_txn=("writes_per_txn", "median"),
        hit_locks=("hit_locks", "median"), pool_hits=("pool_hits", "median"),
        cpu_seconds=("cpu_seconds", "median"), elapsed_seconds=("elapsed_seconds", "median"),
        loadavg_1m=("loadavg_1m", "median"),
        consistent=("consistent", "all"), o_direct=("o_direct", "all"),
    )
    table = table.rename(columns={"pool_fraction_asked": "fraction"}).sort_values(["terminals", "fraction", "cache_policy"])
    table.to_csv(out_path, index=False)
    return table


if "snakemake" in globals():
    common.run_logged(snakemake.log[0], main, snakemake.output[0], list(snakemake.input.runs))  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("runs", nargs="+")
    a = parser.parse_args()
    print(main(a.out, a.runs).to_string(index=False))
