"""Summarise tpcc raw runs: one row per (variant, warehouses) over the repeats.

Run by Snakemake (rule tpcc_table), or by hand:
    python workflows/scripts/tpcc_table.py OUT.csv RUN.json [RUN.json ...]
"""

import argparse
import sys

import pandas as pd

from dbrepro import load_runs
from script_common import LOAD_COLUMNS, undisturbed, with_disturbed_cells

GROUP = ["variant", "warehouses"]
RUN_COLUMNS = [
    "source", *GROUP, "transactions", "seed", "throughput_tps", "cpu_seconds",
    "elapsed_seconds", "loadavg_1m_before", "consistent", *LOAD_COLUMNS,
]


def runs_frame(paths) -> pd.DataFrame:
    """One row per run (load_runs gives one per transaction type)."""
    return load_runs(paths)[RUN_COLUMNS].drop_duplicates("source").reset_index(drop=True)


def _q1(values: pd.Series) -> float:
    return values.quantile(0.25)


def _q3(values: pd.Series) -> float:
    return values.quantile(0.75)


def summarize(runs: pd.DataFrame) -> pd.DataFrame:
    """Per group over the repeats' undisturbed runs (disturbed_cells: those left out)."""
    grouped = undisturbed(runs, GROUP).groupby(GROUP, sort=True)
    table = grouped.agg(
        repeats=("throughput_tps", "size"),
        transactions=("transactions", "first"),
        tps_median=("throughput_tps", "median"),
        tps_min=("throughput_tps", "min"),
        tps_max=("throughput_tps", "max"),
        tps_q1=("throughput_tps", _q1),
        tps_q3=("throughput_tps", _q3),
        cpu_seconds_median=("cpu_seconds", "median"),
        elapsed_seconds_median=("elapsed_seconds", "median"),
        # Load average before each run: a busy machine explains an outlier.
        loadavg_1m_median=("loadavg_1m_before", "median"),
        loadavg_1m_max=("loadavg_1m_before", "max"),
        all_consistent=("consistent", "all"),
    ).reset_index()
    table = with_disturbed_cells(table, runs, GROUP)
    table["repeats"] = table["repeats"].fillna(0).astype(int)
    table.insert(table.columns.get_loc("tps_q3") + 1, "tps_iqr", table["tps_q3"] - table["tps_q1"])
    return table


def main(run_paths, out_path) -> pd.DataFrame:
    table = summarize(runs_frame(run_paths))
    table.to_csv(out_path, index=False, float_format="%.6g")
    return table


if "snakemake" in globals():
    with open(snakemake.log[0], "w") as log:  # noqa: F821 (defined by Snakemake)
        sys.stderr = log
        main(list(snakemake.input), snakemake.output[0])  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="CSV to write")
    parser.add_argument("runs", nargs="+", help="raw-run records (JSON)")
    args = parser.parse_args()
    print(main(args.runs, args.out).to_string(index=False))
