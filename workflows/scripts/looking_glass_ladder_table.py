"""Throughput of the 50/50 New Order / Payment mix per ladder step over the
repeats (median and spread), in transactions per wall-clock second and per
CPU-second, beside the paper's four throughput numbers.

The ladder runs in duets (looking_glass.smk, dbrepro.duet): step 10 is in a
duet with each step its claims divide by it or into it (looking_glass.DUET_PAIRS).
The per-CPU-second pairs run both steps on one CPU, taking turns (layout shared):
their wall-clock throughput is not the step's, so the table leaves those runs out;
every step also runs in a duet with one CPU each (split), whose runs it summarises
(step 10: those of its duet with step 0).

Run by Snakemake (rule looking_glass_ladder_table), or by hand:
    python workflows/scripts/looking_glass_ladder_table.py paper.yaml OUT.csv RUN.json [RUN.json ...]
"""

import argparse
import math
import re

import pandas as pd

import looking_glass_common as common
from dbrepro import looking_glass, read_record
from dbrepro.host_load import row_columns


def partner_step(duet: dict) -> float:
    """The step of a duet's other arm, from its cell's name (ladder_step<N>, looking_glass.smk's);
    NaN for a run alone or one from before duets."""
    match = re.search(r"step(\d+)$", str(duet.get("partner") or ""))
    return float(match.group(1)) if match else math.nan


def runs_frame(paths) -> pd.DataFrame:
    """One row per timed run; a duet's arm (dbrepro.duet) with its partner's step, its CPU
    and how much the two arms' engine calls overlapped."""
    rows = []
    for path in paths:
        record = read_record(path)
        config, metrics = record["config"], record["metrics"]
        host = metrics.get("host", {})
        duet = metrics.get("duet") or {}
        done = metrics["transactions"]
        rows.append(
            {
                "source": str(path),
                "step": int(metrics["step"]),
                "partner_step": partner_step(duet),
                "duet_mode": duet.get("mode", ""),  # "" for a record from before duets
                "duet_layout": duet.get("layout", "split" if duet else ""),
                "cpu": duet.get("cpu"),
                "duet_overlap": duet.get("overlap"),
                "stack": config["stack"],
                "warehouses": config["warehouses"],
                "seconds_limit": config["seconds"],
                "throughput_tps": metrics["throughput_tps"],
                "transactions": done,
                "elapsed_seconds": metrics["elapsed_seconds"],
                "cpu_seconds": metrics["cpu_seconds"],
                # Transactions per CPU-second: the engine's own speed, robust to
                # a shared machine (wall time also counts waiting for a core).
                "cpu_tps": done / metrics["cpu_seconds"] if metrics["cpu_seconds"] else float("nan"),
                # Log flushes per transaction: 1 where the log is forced at commit.
                "log_syncs_per_txn": metrics.get("log_syncs", 0) / done if done else float("nan"),
                "loadavg_1m_before": (host.get("loadavg_before") or [None])[0],
                "consistent": metrics["consistent"],
                # Foreign load over the run, and its reruns (dbrepro.host_load).
                **row_columns(host),
            }
        )
    return pd.DataFrame(rows)


def _q1(values: pd.Series) -> float:
    return values.quantile(0.25)


def _q3(values: pd.Series) -> float:
    return values.quantile(0.75)


def summarize(runs: pd.DataFrame, paper) -> pd.DataFrame:
    """Per step over the repeats' undisturbed runs (disturbed_cells: those left out), but
    for runs of a duet that shared one CPU (their wall time is two steps' turns)."""
    if "duet_layout" in runs.columns:
        runs = runs[runs["duet_layout"] != "shared"]
    table = common.undisturbed(runs, "step").groupby("step", sort=True).agg(
        stack=("stack", "first"),
        warehouses=("warehouses", "first"),
        n=("throughput_tps", "size"),
        tps_median=("throughput_tps", "median"),
        tps_min=("throughput_tps", "min"),
        tps_max=("throughput_tps", "max"),
        tps_q1=("throughput_tps", _q1),
        tps_q3=("throughput_tps", _q3),
        cpu_tps_median=("cpu_tps", "median"),
        cpu_tps_min=("cpu_tps", "min"),
        cpu_tps_max=("cpu_tps", "max"),
        transactions_median=("transactions", "median"),
        elapsed_seconds_median=("elapsed_seconds", "median"),
        cpu_seconds_median=("cpu_seconds", "median"),
        log_syncs_per_txn_median=("log_syncs_per_txn", "median"),
        # Load average before each run: a busy machine explains an outlier.
        loadavg_1m_median=("loadavg_1m_before", "median"),
        loadavg_1m_max=("loadavg_1m_before", "max"),
        all_consistent=("consistent", "all"),
    ).reset_index()
    table = common.with_disturbed_cells(table, runs, ["step"])
    table["n"] = table["n"].fillna(0).astype(int)
    table.insert(table.columns.get_loc("tps_q3") + 1, "tps_iqr", table["tps_q3"] - table["tps_q1"])
    ladder = {entry["step"]: entry for entry in looking_glass.ladder()}
    table.insert(1, "label", table["step"].map(lambda step: ladder[step]["label"]))
    table.insert(2, "component", table["step"].map(lambda step: ladder[step]["component"]))
    theirs = common.paper_tps(paper)
    table["theirs_tps"] = table["step"].map(lambda step: theirs.get(step, {}).get("tps"))
    table["theirs_configuration"] = table["step"].map(lambda step: theirs.get(step, {}).get("configuration"))
    return table


def main(paper_path, out_path, run_paths) -> pd.DataFrame:
    table = summarize(runs_frame(run_paths), common.load_paper(paper_path))
    table.to_csv(out_path, index=False, float_format="%.6g")
    return table


if "snakemake" in globals():
    inputs = snakemake.input  # noqa: F821 (defined by Snakemake)
    common.run_logged(snakemake.log[0], main, inputs.paper, snakemake.output[0], list(inputs.runs))  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paper", help="the paper's numbers (workflows/data/looking_glass_paper.yaml)")
    parser.add_argument("out", help="CSV to write")
    parser.add_argument("runs", nargs="+", help="raw-run records of `dbrepro run tpcc --stack ...` (JSON)")
    args = parser.parse_args()
    print(main(args.paper, args.out, args.runs).to_string(index=False))
