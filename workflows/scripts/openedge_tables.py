"""E3's tables from the raw ladder runs:

    runs.csv     every timed run (one row per step and repeat)
    ladder.csv   per step: time for the same work over the repeats (median, min,
                 max), records/s, CPU time, voluntary and involuntary context
                 switches of the servers' process and the users' processes and
                 voluntary switches per message on the wire (medians), the
                 change in time from the step before and from the baseline, the
                 article's changes beside
    users.csv    per step: per-user time, mean and standard deviation across
                 users (medians over the repeats)
    traffic.csv  per step: bytes, messages and records on the wire, added
                 latency, hash-table lookups, the lookups the optimistic cursor
                 avoided (in all and per index block entered), hash-table latch
                 waits, their time and the latches' naps
    scan.csv     the same columns as traffic.csv for the scan workload's run
                 (baseline and bht): where the optimistic cursor matters
    latency.csv  mtdbs and ssj per repeat, without added latency (the ladder's
                 runs) and with it (the latency runs): wall time, added latency

Run by Snakemake (rule openedge_tables), or by hand:
    python workflows/scripts/openedge_tables.py paper.yaml OUT_DIR SCAN.json RUN.json... [--latency LATENCY.json...]
"""
import argparse
from pathlib import Path

import pandas as pd

import openedge_common as common
from dbrepro.records import load_result, load_runs


TABLES = ("runs", "ladder", "users", "traffic", "scan", "latency")


STEP = ["step", "name"]
SWITCH_COLUMNS = ["process_voluntary_switches", "process_involuntary_switches", "client_processes_voluntary_switches",
                  "client_processes_involuntary_switches", "voluntary_switches_per_message"]


def ladder_table(runs: pd.DataFrame, paper: dict) -> pd.DataFrame:
    """Per step over the repeats' undisturbed runs (disturbed_cells: those left out)."""
    grouped = common.undisturbed(runs, STEP).groupby(STEP)
    table = grouped["wall_seconds"].agg(seconds_median="median", seconds_min="min", seconds_max="max", n="count")
    table = table.join(grouped[["records_per_second", "cpu_seconds", "loadavg_1m_before", "tuples", "record_reads",
                                "latches"]].median())
    # Wake-ups per step (dbrepro.openedge: getrusage around each run): records made before they
    # were counted have none, and the table then has no such columns.
    switches = [c for c in SWITCH_COLUMNS if c in runs]
    if switches:
        table = table.join(grouped[switches].median())
    table = table.join(grouped[["cpu_count"]].first())
    table = common.with_disturbed_cells(table.reset_index(), runs, STEP).sort_values("step").reset_index(drop=True)
    table["change_vs_previous_pct"] = table["seconds_median"].pct_change() * 100.0
    table["change_vs_baseline_pct"] = [common.pct_change(s, table["seconds_median"].iloc[0])
                                       for s in table["seconds_median"]]
    table["paper_change_vs_previous_pct"] = [common.paper_step_change(paper, name) for name in table["name"]]
    table["paper_total_change_pct"] = [-float(paper["total_time_reduction_percent"]) if name == common.STEPS[-1]
                                       else None for name in table["name"]]
    return table


def users_table(runs: pd.DataFrame) -> pd.DataFrame:
    runs = runs.assign(user_cv=runs["user_stddev_seconds"] / runs["user_mean_seconds"])
    grouped = common.undisturbed(runs, STEP).groupby(STEP)
    table = grouped[["user_mean_seconds", "user_stddev_seconds", "user_cv"]].median()
    table = table.join(grouped["user_stddev_seconds"].agg(user_stddev_min="min", user_stddev_max="max"))
    table = table.join(grouped[["users", "servers"]].first())
    return common.with_disturbed_cells(table.reset_index(), runs, STEP).sort_values("step").reset_index(drop=True)


def traffic_table(runs: pd.DataFrame) -> pd.DataFrame:
    columns = ["bytes_on_wire", "messages_on_wire", "bytes_sent", "bytes_received", "messages_sent",
               "messages_received", "records_received", "record_reads", "tuples", "hash_lookups",
               "lookups_avoided", "revalidation_failures", "index_blocks", "lookups_avoided_per_index_block",
               "latch_waits", "latch_wait_ns", "naps", "added_latency_seconds"]
    # Counts (bytes, messages, lookups) are deterministic: foreign load cannot move them, so every
    # run counts, disturbed or not.
    table = common.with_load_columns(runs).groupby(STEP)[columns].median().reset_index()
    table = common.with_disturbed_cells(table, runs, STEP).sort_values("step").reset_index(drop=True)
    table["bytes_per_tuple"] = table["bytes_on_wire"] / table["tuples"]
    # Every record read is one data-page lookup; the other lookups found index blocks.
    table["index_block_lookups"] = table["hash_lookups"] - table["record_reads"]
    table["lookups_avoided_pct"] = 100.0 * table["lookups_avoided"] / (table["hash_lookups"] + table["lookups_avoided"])
    if "seed" in runs.columns:  # the data seeds the counts come from (repeat r ran on its own)
        seeds = runs.groupby(STEP)["seed"].agg(lambda s: " ".join(str(int(v)) for v in sorted(set(s.dropna()))))
        table = table.merge(seeds.rename("seeds").reset_index(), on=STEP, how="left")
    return table


LATENCY_STEPS = ("mtdbs", "ssj")


def latency_table(runs: pd.DataFrame, latency_paths) -> pd.DataFrame:
    """mtdbs and ssj, one row per run: the ladder's (no added latency) and the latency runs'."""
    columns = ["step", "name", "repeat_file", "message_delay_us", "wall_seconds", "added_latency_seconds",
               "cpu_seconds", "loadavg_1m_before", *common.LOAD_COLUMNS]
    frames = [runs.assign(message_delay_us=0)]
    for path in latency_paths:
        frame = load_result(path).to_frame()
        frames.append(frame.assign(message_delay_us=load_result(path).config["message_delay_us"],
                                   repeat_file=Path(path).parent.name))
    table = pd.concat(frames, ignore_index=True)
    table = common.with_load_columns(table[table["name"].isin(LATENCY_STEPS)])
    return table[columns].sort_values(["message_delay_us", "repeat_file", "step"]).reset_index(drop=True)


def main(paper_path, out: dict[str, str], run_paths, scan_path, latency_paths=()) -> dict[str, pd.DataFrame]:
    runs = load_runs(run_paths)
    for path in [*run_paths, scan_path, *latency_paths]:
        if not load_result(path).metrics["results_agree"]:
            raise SystemExit(f"{path}: the ladder steps returned different tuples")
    paper = common.load_paper(paper_path)
    runs = runs.drop(columns=["source"]).assign(repeat_file=[Path(p).parent.name for p in runs["source"]])
    tables = {"runs": runs,
              "ladder": ladder_table(runs, paper), "users": users_table(runs), "traffic": traffic_table(runs),
              "scan": traffic_table(load_runs([scan_path])), "latency": latency_table(runs, latency_paths)}
    for name, table in tables.items():
        table.to_csv(out[name], index=False, float_format="%.6g")
    return tables


if "snakemake" in globals():
    o = snakemake.output  # noqa: F821
    common.run_logged(snakemake.log[0], main, snakemake.input.paper,  # noqa: F821
                      {name: getattr(o, name) for name in TABLES},
                      list(snakemake.input.runs), snakemake.input.scan, list(snakemake.input.latency))  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paper", help="workflows/data/openedge_paper.yaml")
    parser.add_argument("out_dir", help="directory for " + ", ".join(f"{n}.csv" for n in TABLES))
    parser.add_argument("scan", help="the scan workload's record (`dbrepro run openedge --workload scan`)")
    parser.add_argument("runs", nargs="+", help="raw-run records of the ladder (`dbrepro run openedge`, JSON)")
    parser.add_argument("--latency", nargs="*", default=[], help="the latency runs' records (--message-delay-us)")
    args = parser.parse_args()
    Path(args.out_dir).mkdir(parents=True, exist_ok=True)
    found = main(args.paper, {n: str(Path(args.out_dir) / f"{n}.csv") for n in TABLES}, args.runs, args.scan,
                 args.latency)
    print(found["ladder"].to_string(index=False))
