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
                 measured switch cost; os_fair as processor sharing; os_ts (Solaris's TS class
                 emulated; quantum_ms is the article's Q, acting times ts_time_scale) the TS
                 table's simulation, quantum_prediction.time_sharing, with the session's time alone,
                 and beside it predicted_boosts, predicted_expiries, predicted_switches_per_s and
                 residual_spread_s; os_ts_<reading> rows (issue 55: os_ts under another reading
                 of the article's "the quantum was set to Q", with its start) that reading's
                 simulation with the run's start and placement (pinned: a queue per CPU;
                 unpinned: one queue), the median over PREDICTION_PHASES draws of the update's
                 phase. os_ts rows also have ts_boosts and ts_expiries (per session:
                 raises to ts_lwait, quanta used up), their rates per second of the run, and the
                 dispatcher's own CPU time per second (dispatcher_cpu_ms_per_second). Every
                 session's time is its own, from its start (staggered under os_ts_<reading>);
                 last_started_seconds is the session started last (the article's one timed
                 session), first_finisher_cpu_share and last_finisher_cpu_share the share of a
                 CPU the first and the last to finish had over their own time.
  workload1.csv  the article's workload-1 table: one row per scheduler, placement and measure,
                 ours per Q and the article's per Q (ours mapped to the article's quantum of the
                 nearest fraction of the longest; sessions per CPU as the article's 5, or nearest)
  workload2.csv  the article's workload-2 table: mean session time per sessions per CPU at the
                 shortest and longest Q we ran (the article's 20 and 400 ms), and the gain
  ts.csv         os_ts (and os_ts_<reading>, its `scheduler`) beside os_rr, cell by cell (workload,
                 placement, sessions per CPU, the
                 article's Q; os_rr at the Q that stands for it, where one does): mean, spread,
                 boosts, quanta expired, switches per second, each scheduler's prediction and
                 residual, the dispatcher's cost, and the article's numbers where it has them;
                 switches per second are the scheduler's (os_ts: the kernel's less the dispatcher's
                 tick preemptions, dispatcher_preemptions: Solaris's clock is an interrupt, ours a
                 thread), and ts_switches_per_article_s puts os_ts's in the article's seconds
                 (times ts_time_scale)

Run by Snakemake (rule quantum_tables), or by hand:
    python workflows/scripts/quantum_tables.py OUT_DIR paper.yaml RUN.json...
"""
import sys
from pathlib import Path

import pandas as pd
from script_common import load_paper, undisturbed, with_disturbed_cells
from quantum_prediction import over_phases, round_robin, time_sharing

from dbrepro.host_load import row_columns
from dbrepro.records import load_result

MEASURES = ["mean_seconds", "min_seconds", "max_seconds", "delta_seconds", "makespan_seconds", "delta_over_q",
            "first_session_seconds", "cpu_s_per_session", "voluntary_switches", "involuntary_switches",
            "switch_cost_us", "refill_s_per_session", "effective_quantum_ms", "kernel_switches_per_second",
            "engine_switches_per_second", "latch_acquisitions", "latch_waits", "latch_wait_ms", "holder_preemptions",
            "ts_boosts", "ts_expiries", "ts_boosts_per_second", "ts_expiries_per_second",
            "dispatcher_cpu_ms_per_second", "dispatcher_preemptions", "scheduler_switches_per_second", "ts_time_scale",
            "last_started_seconds", "first_finisher_cpu_share", "last_finisher_cpu_share", "start_gap_ms",
            "ts_entry_level"]
SPREAD_OVER_REPEATS = ["mean_seconds", "cpu_s_per_session", "latch_waits"]
KEYS = ["scheduler", "placement", "workload", "quantum_ms", "sessions_per_cpu", "sessions"]
PREDICTION_PHASES = 8  # draws of the update's phase for an os_ts_<reading> row's prediction
TS_PREFIX = "os_ts_"
CONFIG = ["scheduler", "placement", "workload", "quantum_ms"]


def run_row(path) -> dict:
    result = load_result(path)
    row = result.to_rows()[0]
    row["first_session_seconds"] = result.metrics["sessions"][0]["wall_seconds"]
    row.update(row_columns(result.metrics.get("host")))  # foreign load over the run, and its reruns
    # A record from before the TS dispatcher: the scheduler's switches are all the kernel's.
    row.setdefault("scheduler_switches_per_second", row.get("kernel_switches_per_second"))
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
    ts_columns = {"predicted_boosts": [], "predicted_expiries": [], "predicted_switches_per_s": []}
    for _, row in table.iterrows():
        same = table[(table[CONFIG] == row[CONFIG]).all(axis=1)]
        alone = same[same["sessions_per_cpu"] == 1]["mean_seconds"]
        session = float(alone.iloc[0]) if len(alone) else float(row["cpu_s_per_session"])
        spc = int(row["sessions_per_cpu"])
        ts = None
        if row["scheduler"] == "os_ts":
            # Solaris's table simulated: Q in every level, every time (and so the tick) scaled.
            ts = time_sharing(spc, float(row["quantum_ms"]) / 1000, session, scale=float(row["ts_time_scale"]))
            mean, spread = ts.mean_s, ts.spread_s
        elif str(row["scheduler"]).startswith(TS_PREFIX):
            ts = reading_prediction(row, session)
            mean, spread = ts.mean_s, ts.spread_s
        elif row["scheduler"] == "os_fair" or not row["effective_quantum_ms"] > 0:
            mean, spread = spc * session, 0.0  # the fair scheduler's ideal: processor sharing
        else:
            cost = row["switch_cost_us"]
            switch = max(0.0, float(cost)) * 1e-6 if cost == cost else 0.0  # NaN: not measured
            p = round_robin(spc, row["effective_quantum_ms"] / 1000, session, switch)
            mean, spread = p.mean_s, p.spread_s
        predicted_mean.append(mean)
        predicted_spread.append(spread)
        for column, value in zip(ts_columns, (ts.boosts, ts.expiries, ts.switches_per_s) if ts else (None,) * 3):
            ts_columns[column].append(value)
    table["predicted_mean_s"] = predicted_mean
    table["predicted_spread_s"] = predicted_spread
    table["residual_s"] = table["mean_seconds"] - table["predicted_mean_s"]
    table["residual_spread_s"] = table["delta_seconds"] - table["predicted_spread_s"]
    for column, values in ts_columns.items():
        table[column] = pd.to_numeric(pd.Series(values, index=table.index), errors="coerce")
    return table


def reading_prediction(row, session_s: float):
    """An os_ts_<reading> row's simulation: the reading's table on the run's CPUs (2: the article's and
    ours) with the run's start (its gap and level), pinned as a queue per CPU or unpinned as one queue,
    the median over PREDICTION_PHASES draws of the update's phase (each session's CPU need as
    measured: no jitter added)."""
    from types import SimpleNamespace

    import numpy as np

    runs = over_phases(str(row["scheduler"]).removeprefix(TS_PREFIX),
                       "pinned" if row["placement"] == "pinned" else "global",
                       int(row["sessions"]) // int(row["sessions_per_cpu"]), int(row["sessions_per_cpu"]),
                       float(row["quantum_ms"]), session_s, start_gap_s=float(row["start_gap_ms"]) / 1000,
                       entry_level=int(row["ts_entry_level"]), need_jitter=0.0, phases=PREDICTION_PHASES,
                       scale=float(row["ts_time_scale"]))
    median = {name: float(np.median([getattr(r, name) for r in runs]))
              for name in ("mean_s", "spread_s", "boosts", "expiries", "switches_per_s")}
    return SimpleNamespace(**median)


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
        "spread (s)": ("delta_seconds", None),
        "predicted spread (s)": ("predicted_spread_s", None),
        "CPU time per session (s)": ("cpu_s_per_session", None),
        "boosts per session (os_ts)": ("ts_boosts", None),
        "quanta expired per session (os_ts)": ("ts_expiries", None),
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
                    # os_ts: the kernel's less the dispatcher's own tick preemptions (an interrupt on Solaris).
                    column = "engine_switches_per_second" if scheduler == "engine" else "scheduler_switches_per_second"
                aq = article_quantum(q, ours_q, article["quanta_ms"])
                # os_ts runs at the article's Q (times its ts_time_scale): its columns say so.
                label = f"Q={q} ms x scale" if scheduler.startswith("os_ts") else f"Q={q} ms"
                row[f"{label} ours (article {aq} ms)"] = by_q[column].get(q) if column in by_q else None
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


TS_SIDE = {"mean_s": "mean_seconds", "spread_s": "delta_seconds", "switches_per_s": "scheduler_switches_per_second",
           "predicted_mean_s": "predicted_mean_s", "predicted_spread_s": "predicted_spread_s",
           "residual_s": "residual_s", "residual_spread_s": "residual_spread_s", "cpu_s_per_session": "cpu_s_per_session",
           "holder_preemptions": "holder_preemptions", "latch_waits": "latch_waits", "repeats": "repeats"}
TS_ONLY = {"boosts": "ts_boosts", "quanta_expired": "ts_expiries", "predicted_boosts": "predicted_boosts",
           "predicted_quanta_expired": "predicted_expiries", "predicted_switches_per_s": "predicted_switches_per_s",
           "dispatcher_cpu_ms_per_s": "dispatcher_cpu_ms_per_second", "time_scale": "ts_time_scale",
           "quantum_acting_ms": "effective_quantum_ms", "kernel_switches_per_s": "kernel_switches_per_second",
           "dispatcher_preemptions": "dispatcher_preemptions"}


def ts_table(runs: pd.DataFrame, paper: dict) -> pd.DataFrame:
    """os_ts beside os_rr for the same cells (see the module's docstring)."""
    ts = runs[runs["scheduler"].astype(str).str.startswith("os_ts")]
    rr = runs[runs["scheduler"] == "os_rr"]
    article = paper["workload1"]
    rows = []
    for _, t in ts.iterrows():
        aq = float(t["quantum_ms"])
        row = {"scheduler": t["scheduler"], "workload": t["workload"], "placement": t["placement"],
               "sessions_per_cpu": t["sessions_per_cpu"], "article_quantum_ms": aq}
        row.update({f"ts_{name}": t[column] for name, column in {**TS_SIDE, **TS_ONLY}.items() if column in t})
        same = rr[(rr["workload"] == t["workload"]) & (rr["placement"] == t["placement"])
                  & (rr["sessions_per_cpu"] == t["sessions_per_cpu"])]
        rr_quanta = sorted({int(float(q)) for q in same["quantum_ms"]})
        match = [q for q in rr_quanta if article_quantum(q, rr_quanta, article["quanta_ms"]) == aq]
        row["rr_quantum_ms"] = match[0] if match else None
        if match:
            r = same[same["quantum_ms"].astype(float).astype(int) == match[0]].iloc[0]
            row.update({f"rr_{name}": r[column] for name, column in TS_SIDE.items() if column in r})
        cpu_cell = t["workload"] == "cpu" and t["sessions_per_cpu"] == article["sessions_per_cpu"]
        q_key = int(aq) if aq.is_integer() else aq
        row["article_mean_s"] = article["mean_seconds"].get(q_key) if cpu_cell else None
        row["article_spread_s"] = (article["max_seconds"][q_key] - article["min_seconds"][q_key]
                                   if cpu_cell and q_key in article["max_seconds"] else None)
        row["article_switches_per_s"] = article["context_switches_per_second"].get(q_key) if cpu_cell else None
        # Our seconds are 1/scale of the article's: its switches per second at our times.
        row["ts_switches_per_article_s"] = row.get("ts_switches_per_s", float("nan")) * float(t["ts_time_scale"])
        rows.append(row)
    return pd.DataFrame(rows, columns=None if rows else ["scheduler", "workload", "placement", "sessions_per_cpu",
                                                         "article_quantum_ms"])


def main(run_paths, paper_path, outputs) -> None:
    paper = load_paper(paper_path)
    runs = runs_table(run_paths)
    tables = {"runs": runs, "workload1": workload1_table(runs, paper), "workload2": workload2_table(runs, paper),
              "ts": ts_table(runs, paper)}
    for name, table in tables.items():
        Path(outputs[name]).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(outputs[name], index=False, float_format="%.6g")
        print(f"{name}: {len(table)} rows -> {outputs[name]}", file=sys.stderr)


if "snakemake" in globals():
    with open(snakemake.log[0], "w") as log:  # noqa: F821 (defined by Snakemake)
        sys.stderr = log
        main(list(snakemake.input.runs), snakemake.input.paper,  # noqa: F821
             {name: snakemake.output[name] for name in ("runs", "workload1", "workload2", "ts")})  # noqa: F821
elif __name__ == "__main__":
    out_dir = Path(sys.argv[1])
    main(sys.argv[3:], sys.argv[2], {name: out_dir / f"{name}.csv" for name in ("runs", "workload1", "workload2", "ts")})
