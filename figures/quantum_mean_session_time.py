"""Figure: E4's mean session time against sessions per CPU, one line per quantum.

    python figures/quantum_mean_session_time.py results/tables/quantum/runs.csv out.png out.pdf

One panel per workload (rows) and scheduler and placement (columns); points
are medians over repeats, bars span the sessions' min to max (the spread);
a dotted line of the same colour is the round-robin prediction from
finishing order (runs.csv predicted_mean_s). os_fair (the fair scheduler, no
Q) is drawn in every panel of its workload and placement as a dashed grey
reference.
Importable: `from figures.quantum_mean_session_time import plot`.
"""
from __future__ import annotations

import sys

import pandas as pd

if __package__:  # imported as figures.quantum_mean_session_time
    from . import style
else:  # run as a script: this file's folder is on sys.path
    import style

WORKLOAD_TITLES = {"cpu": "CPU-bound (sqrt loop)", "memory": "memory-bound (scans of one shared table)"}
SCHEDULER_TITLES = {"engine": "engine fibers", "os_rr": "OS SCHED_RR", "os_fair": "OS fair",
                    "os_fair_q": "OS fair, base slice = Q"}


def plot(table: pd.DataFrame):
    table = table.assign(quantum_ms=table["quantum_ms"].astype(str))
    if "placement" not in table:
        table = table.assign(placement="pinned")
    workloads = sorted(table["workload"].unique())
    schedulers = [s for s in ("engine", "os_rr", "os_fair_q") if s in set(table["scheduler"])] or ["os_fair"]
    panels = [(s, p) for s in schedulers for p in ("pinned", "unpinned")
              if len(table[(table["scheduler"] == s) & (table["placement"] == p)])]
    fig, axes = style.figure(nrows=len(workloads), ncols=len(panels), squeeze=False, layout="constrained",
                             figsize=(4.2 * len(panels), 3.6 * len(workloads)))
    for r, workload in enumerate(workloads):
        for c, (scheduler, placement) in enumerate(panels):
            ax = axes[r][c]
            here = (table["workload"] == workload) & (table["placement"] == placement)
            rows = table[here & (table["scheduler"] == scheduler)]
            quanta = sorted(rows["quantum_ms"].unique(), key=lambda q: float(q) if q != "fair" else 1e9)
            for q in quanta:
                line = rows[rows["quantum_ms"] == q].sort_values("sessions_per_cpu")
                spread = [line["mean_seconds"] - line["min_seconds"], line["max_seconds"] - line["mean_seconds"]]
                bars = ax.errorbar(line["sessions_per_cpu"], line["mean_seconds"], yerr=spread, marker="o",
                                   capsize=3, label=f"Q = {q} ms")
                if "predicted_mean_s" in line:
                    ax.plot(line["sessions_per_cpu"], line["predicted_mean_s"], ":", color=bars[0].get_color())
            fair = table[here & (table["scheduler"] == "os_fair")]
            if len(fair) and scheduler != "os_fair":
                fair = fair.sort_values("sessions_per_cpu")
                ax.plot(fair["sessions_per_cpu"], fair["mean_seconds"], "--", color="grey", label="fair scheduler")
            ax.set_title(f"{SCHEDULER_TITLES.get(scheduler, scheduler)}, {placement}\n"
                         f"{WORKLOAD_TITLES.get(workload, workload)}", fontsize="medium")
            if r == len(workloads) - 1:  # one axis label per column keeps rows apart
                ax.set_xlabel("sessions per CPU")
            ax.set_ylabel("mean session time (s)")
            ax.set_xticks(sorted(table["sessions_per_cpu"].unique()))
            ax.set_ylim(bottom=0)
            ax.legend(loc="upper left", fontsize="small")
    fig.suptitle("E4: mean session time vs sessions per CPU\n(bars: min-max of sessions; dotted: round-robin prediction)")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "runs CSV (results/tables/quantum/runs.csv)", argv)


if __name__ == "__main__":
    sys.exit(main())
