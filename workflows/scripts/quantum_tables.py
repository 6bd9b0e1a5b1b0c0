"""E4's tables from the raw runs: every configuration's figures (median over
repeats) with the analytic round-robin prediction beside each, and the
article's two tables with its numbers beside ours.

  runs.csv       scheduler, placement, workload, quantum_ms ("fair" for os_fair), sessions_per_cpu,
                 sessions, repeats; medians over repeats of: mean/min/max/delta/makespan seconds,
                 delta_over_q, first_session_seconds, cpu_s_per_session (CPU time per session),
                 voluntary_switches and involuntary_switches (per session, getrusage RUSAGE_THREAD),
                 switch_cost_us and refill_s_per_session (what a switch costs a session and that
                 times its switches: in-run regression of each unit's CPU time on the switches
                 inside it, engine/src/sched/unit_meter.hpp), effective_quantum_ms (read back
                 with sched_rr_get_interval while the sessions ran; the engine's own quantum for
                 fibers; 0 under the fair scheduler), kernel/engine switches per second;
                 latch_acquisitions, latch_waits, latch_wait_ms and holder_preemptions per
                 session (the memory workload's shared table: its chain latches taken, found
                 held, the time waited, and the holds in which the session was switched out
                 involuntarily, engine/src/latch/holder_preemption.hpp; 0 for the CPU workload);
                 the lowest and highest over repeats of mean_seconds, cpu_s_per_session and
                 latch_waits (_lo, _hi); and predicted_mean_s, predicted_spread_s, residual_s (measured mean
                 minus predicted): quantum_prediction.round_robin with the session's time alone
                 (this configuration's one-session-per-CPU run), the quantum in effect and the
                 measured switch cost; os_fair as processor sharing.
  workload1.csv  the article's workload-1 table: one row per scheduler, placement and measure,
                 ours per Q and the article's per Q (ours mapped to the article's quantum of the
                 nearest fraction of the longest; sessions per CPU as the article's 5, or nearest)
  workload2.csv  the article's workload-2 table: mean session time per sessions per CPU at the
                 shortest and longest Q we ran (the article's 20 and 400 ms), and the gain

Run by Snakemake (rule quantum_tables), or by hand:
    python workflows/scripts/quantum_tables.py OUT_DIR paper.yaml RUN.json...
"""
import sys
from pathlib import Path

import pandas as pd
from script_common import load_paper, undisturbed, with_disturbed_cells
from quantum_prediction import round_robin

from dbrepro.host_load import row_columns
from dbrepro.records import load_result

MEASURES = ["mean_seconds", "min_seconds", "max_seconds", "delta_seconds", "makespan_seconds", "delta_over_q",
            "first_session_seconds", "cpu_s_per_session", "voluntary_switches", "involuntary_switches",
            "switch_cost_us", "refill_s_per_session", "effective_quantum_ms", "kernel_switches_per_second",
            "engine_switches_per_second", "latch_acquisitions", "latch_waits", "latch_wait_ms", "holder_preemptions"]
SPREAD_OVER_REPEATS = ["mean_seconds", "cpu_s_per_session", "latch_waits"]
KEYS = ["scheduler", "placement", "workload", "quantum_ms", "sessions_per_cpu", "sessions"]
CONFIG = ["scheduler", "placement", "workload", "quantum_ms"]


def run_row(path) -> dict:
    result = load_result(path)
    row = result.to_rows()[0]
    row["first_session_seconds"] = result.metrics["sessions"][0]["wall_seconds"]
    row.update(row_columns(result.metrics.get("host")))  # foreign load over the run, and its reruns
    if row["scheduler"] == "os_fair":
        row["quantum_ms"] = "fair"
    return row


def runs_table(paths) -> pd.DataFrame:
    rows = pd.DataFrame([run_row(p) for p in paths])
    rows["quantum_ms"] = rows["quantum_ms"].astype(str)
    for column in MEASURES:  # a record from before a measure was taken has it empty
        rows[column] = pd.to_numeric(rows[column], errors="coerce") if column in rows else float("nan")
    # Medians over the repeats' undisturbed runs; disturbed_cells counts those left out.
    grouped = undisturbed(rows, KEYS).groupby(KEYS, sort=False)
    table = grouped[MEASURES].median()
    for column in SPREAD_OVER_REPEATS:
        table[f"{column}_lo"] = grouped[column].min()
        table[f"{column}_hi"] = grouped[column].max()
    table["repeats"] = grouped.size()
    table["results_agree"] = grouped["results_agree"].all()
    table = with_disturbed_cells(table.reset_index(), rows, KEYS)
    table["repeats"] = table["repeats"].fillna(0).astype(int)
    table = add_prediction(table)
    return table.sort_values(["workload", "scheduler", "placement", "quantum_ms", "sessions_per_cpu"],
                             key=lambda c: c.map(_order_key)).reset_index(drop=True)


def add_prediction(table: pd.DataFrame) -> pd.DataFrame:
    """predicted_mean_s, predicted_spread_s, residual_s for every row (see the module's docstring)."""
    predicted_mean, predicted_spread = [], []
    for _, row in table.iterrows():
        same = table[(table[CONFIG] == row[CONFIG]).all(axis=1)]
        alone = same[same["sessions_per_cpu"] == 1]["mean_seconds"]
        session = float(alone.iloc[0]) if len(alone) else float(row["cpu_s_per_session"])
        spc = int(row["sessions_per_cpu"])
        if row["scheduler"] == "os_fair" or not row["effective_quantum_ms"] > 0:
            mean, spread = spc * session, 0.0  # the fair scheduler's ideal: processor sharing
        else:
            cost = row["switch_cost_us"]
            switch = max(0.0, float(cost)) * 1e-6 if cost == cost else 0.0  # NaN: not measured
            p = round_robin(spc, row["effective_quantum_ms"] / 1000, session, switch)
            mean, spread = p.mean_s, p.spread_s
        predicted_mean.append(mean)
        predicted_spread.append(spread)
    table["predicted_mean_s"] = predicted_mean
    table["predicted_spread_s"] = predicted_spread
    table["residual_s"] = table["mean_seconds"] - table["predicted_mean_s"]
    return table


def _order_key(value):
    # Q sorts numerically with "fair" last.
    try:
        return (0, float(value))
    except (TypeError, ValueError):
        return (1, str(value))


def nearest(values, wanted):
    return min(values, key=lambda v: (abs(v - wanted), v))


def article_quantum(ours: int, our_quanta, article_quanta) -> int:
    """The article's quantum at the nearest fraction of its longest to ours of our longest."""
    fraction = ours / max(our_quanta)
    return min(article_quanta, key=lambda q: (abs(q / max(article_quanta) - fraction), q))


def workload1_table(runs: pd.DataFrame, paper: dict) -> pd.DataFrame:
    article = paper["workload1"]
    cpu = runs[(runs["workload"] == "cpu") & (runs["scheduler"] != "os_fair")]
    if cpu.empty:
        return pd.DataFrame(columns=["scheduler", "placement", "measure", "sessions_per_cpu"])
    spc = nearest(sorted(cpu["sessions_per_cpu"].unique()), article["sessions_per_cpu"])
    measures = {
        "context switches / s": ("switches_per_second", "context_switches_per_second"),
        "one session (s)": ("first_session_seconds", "one_session_seconds"),
        "mean (s)": ("mean_seconds", "mean_seconds"),
        "predicted mean (s)": ("predicted_mean_s", None),
        "min (s)": ("min_seconds", "min_seconds"),
        "max (s)": ("max_seconds", "max_seconds"),
        "CPU time per session (s)": ("cpu_s_per_session", None),
    }
    rows = []
    for (scheduler, placement), group in cpu[cpu["sessions_per_cpu"] == spc].groupby(["scheduler", "placement"]):
        by_q = group.set_index(group["quantum_ms"].astype(float).astype(int))
        ours_q = sorted(by_q.index)
        for label, (ours, theirs) in measures.items():
            row = {"scheduler": scheduler, "placement": placement, "measure": label, "sessions_per_cpu": spc,
                   "article_sessions_per_cpu": article["sessions_per_cpu"]}
            for q in ours_q:
                column = ours
                if ours == "switches_per_second":
                    # The engine's own switches are what its quantum controls; the OS's are the kernel's.
                    column = "engine_switches_per_second" if scheduler == "engine" else "kernel_switches_per_second"
                aq = article_quantum(q, ours_q, article["quanta_ms"])
                row[f"Q={q} ms ours (article {aq} ms)"] = by_q[column].get(q)
            for aq in article["quanta_ms"]:
                row[f"Q={aq} ms article"] = article[theirs].get(aq) if theirs else None
            rows.append(row)
    return pd.DataFrame(rows)


def workload2_table(runs: pd.DataFrame, paper: dict) -> pd.DataFrame:
    article = paper["workload2"]
    memory = runs[(runs["workload"] == "memory") & (runs["scheduler"] != "os_fair")]
    rows = []
    for (scheduler, placement), group in memory.groupby(["scheduler", "placement"], sort=True):
        q_of = group["quantum_ms"].astype(float).astype(int)
        quanta = sorted(q_of.unique())
        short, long = quanta[0], quanta[-1]
        means = {q: group[q_of == q].set_index("sessions_per_cpu")["mean_seconds"] for q in (short, long)}
        spcs = sorted(group["sessions_per_cpu"].unique())
        for q, theirs_q in ((short, min(article["quanta_ms"])), (long, max(article["quanta_ms"]))):
            row = {"scheduler": scheduler, "placement": placement, "row": f"Q = {q} ms",
                   "article_row": f"Q = {theirs_q} ms"}
            for spc in spcs:
                row[f"{spc} per CPU ours (s)"] = means[q].get(spc)
                row[f"{spc} per CPU article (s)"] = article["mean_seconds"][theirs_q].get(spc)
            rows.append(row)
        row = {"scheduler": scheduler, "placement": placement, "row": "gain (%)", "article_row": "gain (%)"}
        for spc in spcs:
            a, b = means[short].get(spc), means[long].get(spc)
            row[f"{spc} per CPU ours (s)"] = 100 * (a - b) / a if a else None
            row[f"{spc} per CPU article (s)"] = article["gain_pct"].get(spc)
        rows.append(row)
    return pd.DataFrame(rows)


def main(run_paths, paper_path, outputs) -> None:
    paper = load_paper(paper_path)
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
