"""E4's tables from the raw runs: every configuration's figures (median over
repeats), and the article's two tables with its numbers beside ours.

  runs.csv       scheduler, workload, quantum_ms ("fair" for os_fair), sessions_per_cpu, sessions,
                 repeats, mean/min/max/delta/makespan seconds, delta_over_q, first_session_seconds,
                 mean_cpu_seconds, kernel/engine switches per second (medians over repeats)
  workload1.csv  the article's workload-1 table: one row per scheduler and measure, ours and the
                 article's per Q (sessions per CPU as in the article, 5, or the nearest we ran)
  workload2.csv  the article's workload-2 table: mean session time per sessions per CPU at the
                 shortest and longest Q we ran (the article's 20 and 400 ms), and the gain

Run by Snakemake (rule quantum_tables), or by hand:
    python workflows/scripts/quantum_tables.py OUT_DIR paper.yaml RUN.json...
"""
import sys
from pathlib import Path

import pandas as pd
import yaml

from dbrepro.records import load_result

MEASURES = ["mean_seconds", "min_seconds", "max_seconds", "delta_seconds", "makespan_seconds", "delta_over_q",
            "first_session_seconds", "mean_cpu_seconds", "kernel_switches_per_second",
            "engine_switches_per_second"]
KEYS = ["scheduler", "workload", "quantum_ms", "sessions_per_cpu", "sessions"]


def run_row(path) -> dict:
    result = load_result(path)
    row = result.to_rows()[0]
    row["first_session_seconds"] = result.metrics["sessions"][0]["wall_seconds"]
    if row["scheduler"] == "os_fair":
        row["quantum_ms"] = "fair"
    return row


def runs_table(paths) -> pd.DataFrame:
    rows = pd.DataFrame([run_row(p) for p in paths])
    rows["quantum_ms"] = rows["quantum_ms"].astype(str)
    grouped = rows.groupby(KEYS, sort=False)
    table = grouped[MEASURES].median()
    table["repeats"] = grouped.size()
    table["results_agree"] = grouped["results_agree"].all()
    table = table.reset_index()
    return table.sort_values(["workload", "scheduler", "quantum_ms", "sessions_per_cpu"],
                             key=lambda c: c.map(_order_key)).reset_index(drop=True)


def _order_key(value):
    # Q sorts numerically with "fair" last.
    try:
        return (0, float(value))
    except (TypeError, ValueError):
        return (1, str(value))


def nearest(values, wanted):
    return min(values, key=lambda v: (abs(v - wanted), v))


def workload1_table(runs: pd.DataFrame, paper: dict) -> pd.DataFrame:
    article = paper["workload1"]
    cpu = runs[(runs["workload"] == "cpu") & (runs["scheduler"] != "os_fair")]
    rows = []
    if cpu.empty:
        return pd.DataFrame(columns=["scheduler", "measure", "sessions_per_cpu"])
    spc = nearest(sorted(cpu["sessions_per_cpu"].unique()), article["sessions_per_cpu"])
    measures = {
        "context switches / s": ("switches_per_second", "context_switches_per_second"),
        "one session (s)": ("first_session_seconds", "one_session_seconds"),
        "mean (s)": ("mean_seconds", "mean_seconds"),
        "min (s)": ("min_seconds", "min_seconds"),
        "max (s)": ("max_seconds", "max_seconds"),
    }
    for scheduler, group in cpu[cpu["sessions_per_cpu"] == spc].groupby("scheduler", sort=True):
        by_q = group.set_index(group["quantum_ms"].astype(float).astype(int))
        for label, (ours, theirs) in measures.items():
            row = {"scheduler": scheduler, "measure": label, "sessions_per_cpu": spc,
                   "article_sessions_per_cpu": article["sessions_per_cpu"]}
            for q in sorted(set(by_q.index) | set(article["quanta_ms"])):
                if ours == "switches_per_second":
                    # The engine's own switches are what its quantum controls; the OS's are the kernel's.
                    column = "engine_switches_per_second" if scheduler == "engine" else "kernel_switches_per_second"
                    value = by_q[column].get(q)
                else:
                    value = by_q[ours].get(q)
                row[f"Q={q} ms ours"] = value
                row[f"Q={q} ms article"] = article[theirs].get(q)
            rows.append(row)
    return pd.DataFrame(rows)


def workload2_table(runs: pd.DataFrame, paper: dict) -> pd.DataFrame:
    article = paper["workload2"]
    memory = runs[(runs["workload"] == "memory") & (runs["scheduler"] != "os_fair")]
    rows = []
    for scheduler, group in memory.groupby("scheduler", sort=True):
        quanta = sorted(group["quantum_ms"].astype(float).astype(int).unique())
        short, long = quanta[0], quanta[-1]
        means = {q: group[group["quantum_ms"].astype(float).astype(int) == q].set_index("sessions_per_cpu")["mean_seconds"]
                 for q in (short, long)}
        spcs = sorted(group["sessions_per_cpu"].unique())
        for label, q, theirs_q in (("short Q", short, article["quanta_ms"][0]), ("long Q", long, article["quanta_ms"][-1])):
            row = {"scheduler": scheduler, "row": f"Q = {q} ms", "article_row": f"Q = {theirs_q} ms"}
            for spc in spcs:
                row[f"{spc} per CPU ours (s)"] = means[q].get(spc)
                row[f"{spc} per CPU article (s)"] = article["mean_seconds"][theirs_q].get(spc)
            rows.append(row)
        row = {"scheduler": scheduler, "row": "gain (%)", "article_row": "gain (%)"}
        for spc in spcs:
            a, b = means[short].get(spc), means[long].get(spc)
            row[f"{spc} per CPU ours (s)"] = 100 * (a - b) / a if a else None
            row[f"{spc} per CPU article (s)"] = article["gain_pct"].get(spc)
        rows.append(row)
    return pd.DataFrame(rows)


def main(run_paths, paper_path, outputs) -> None:
    paper = yaml.safe_load(Path(paper_path).read_text())
    runs = runs_table(run_paths)
    tables = {"runs": runs, "workload1": workload1_table(runs, paper), "workload2": workload2_table(runs, paper)}
    for name, table in tables.items():
        Path(outputs[name]).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(outputs[name], index=False, float_format="%.6g")
        print(f"{name}: {len(table)} rows -> {outputs[name]}", file=sys.stderr)


if "snakemake" in globals():
    with open(snakemake.log[0], "w") as log:  # noqa: F821 (defined by Snakemake)
        sys.stderr = log
        main(list(snakemake.input.runs), snakemake.input.paper,  # noqa: F821
             {name: snakemake.output[name] for name in ("runs", "workload1", "workload2")})  # noqa: F821
elif __name__ == "__main__":
    out_dir = Path(sys.argv[1])
    main(sys.argv[3:], sys.argv[2], {name: out_dir / f"{name}.csv" for name in ("runs", "workload1", "workload2")})
