"""Figure: E4's mean session time against sessions per CPU, one line per quantum.

    python figures/quantum_mean_session_time.py results/tables/quantum/runs.csv out.png out.pdf

One panel per workload (rows) and scheduler (columns); points are medians
over repeats, bars span the sessions' min to max (the spread). os_fair
(the fair scheduler, no Q) is drawn in every panel of its workload as a
dashed grey reference.
Importable: `from figures.quantum_mean_session_time import plot`.
"""
from __future__ import annotations

import sys

import pandas as pd

if __package__:  # imported as figures.quantum_mean_session_time
    from . import style
else:  # run as a script: this file's folder is on sys.path
    import style

WORKLOAD_TITLES = {"cpu": "CPU-bound (sqrt loop)", "memory": "memory-bound (25 scans)"}
SCHEDULER_TITLES = {"engine": "engine fibers", "os_rr": "OS SCHED_RR", "os_fair": "OS fair",
                    "os_fair_q": "OS fair, base slice = Q"}


def plot(table: pd.DataFrame):
    table = table.assign(quantum_ms=table["quantum_ms"].astype(str))
    workloads = sorted(table["workload"].unique())
    schedulers = [s for s in ("engine", "os_rr", "os_fair_q") if s in set(table["scheduler"])] or ["os_fair"]
    fig, axes = style.figure(nrows=len(workloads), ncols=len(schedulers), squeeze=False, layout="constrained",
                             figsize=(4.2 * len(schedulers), 3.6 * len(workloads)))
    for r, workload in enumerate(workloads):
        for c, scheduler in enumerate(schedulers):
            ax = axes[r][c]
            rows = table[(table["workload"] == workload) & (table["scheduler"] == scheduler)]
            quanta = sorted(rows["quantum_ms"].unique(), key=lambda q: float(q) if q != "fair" else 1e9)
            for q in quanta:
                line = rows[rows["quantum_ms"] == q].sort_values("sessions_per_cpu")
                spread = [line["mean_seconds"] - line["min_seconds"], line["max_seconds"] - line["mean_seconds"]]
                ax.errorbar(line["sessions_per_cpu"], line["mean_seconds"], yerr=spread, marker="o",
                            capsize=3, label=f"Q = {q} ms")
            fair = table[(table["workload"] == workload) & (table["scheduler"] == "os_fair")]
            if len(fair) and scheduler != "os_fair":
                fair = fair.sort_values("sessions_per_cpu")
                ax.plot(fair["sessions_per_cpu"], fair["mean_seconds"], "--", color="grey", label="fair scheduler")
            ax.set_title(f"{SCHEDULER_TITLES.get(scheduler, scheduler)}, {WORKLOAD_TITLES.get(workload, workload)}",
                         fontsize="medium")
            if r == len(workloads) - 1:  # one axis label per column keeps rows apart
                ax.set_xlabel("sessions per CPU")
            ax.set_ylabel("mean session time (s)")
            ax.set_xticks(sorted(table["sessions_per_cpu"].unique()))
            ax.set_ylim(bottom=0)
            ax.legend(loc="upper left", fontsize="small")
    fig.suptitle("E4: mean session time vs sessions per CPU (bars: min-max of sessions)")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "runs CSV (results/tables/quantum/runs.csv)", argv)


if __name__ == "__main__":
    sys.exit(main())
