"""Figure: E4's mean session time against sessions per CPU, one line per
quantum, and the time a longer quantum saves beside the article's.

    python figures/quantum_mean_session_time.py results/tables/quantum/runs.csv \
        workflows/data/quantum_paper.yaml out.png out.pdf

One row per workload. Its panels: one per scheduler and placement the run
used (Solaris's TS class emulated, at the article's Q; os_ts_<reading>, the
same dispatcher under another reading of the article's "the quantum was set
to Q" with its start, issue 55; SCHED_RR; the engine's fibers; the fair
scheduler alone where it is the only one), points the medians
over repeats, bars the sessions' min to max, a dotted line of the same colour
the prediction (runs.csv predicted_mean_s: round robin's finishing order, for
os_ts the TS table's simulation, for os_ts_<reading> that reading's); os_fair
(the fair scheduler, no Q), where
run, drawn in every panel of its workload and placement as a dashed grey
reference. The row's last panel: the mean session time the longest Q saves
over the shortest, in %, per sessions per CPU, ours per scheduler and
placement beside the article's (workflows/data/quantum_paper.yaml: its
20 -> 400 ms; our sessions are ~100x shorter, so the article's seconds are
compared as this share, not drawn on our axes).
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
SCHEDULER_TITLES = {"os_ts": "Solaris TS (emulated)", "engine": "engine fibers", "os_rr": "OS SCHED_RR",
                    "os_fair": "OS fair",
                    "os_fair_q": "OS fair, base slice = Q"}
# The article's workload of each of ours (quantum_paper.yaml): workload 1 is CPU-bound, 2 memory-bound.
ARTICLE_WORKLOADS = {"cpu": ("workload1", "workload1_30_sessions"), "memory": ("workload2",)}
ORIGINAL_LOOK = {"color": "black", "marker": "*", "markersize": 11, "linestyle": "none"}


def article_gains(paper: dict, workload: str) -> tuple[dict[int, float], str]:
    """The article's mean session time saved by its longest Q over its shortest, in %, per sessions
    per CPU, and the quanta it compares (e.g. "20 -> 400 ms")."""
    gains, quanta = {}, set()
    for key in ARTICLE_WORKLOADS.get(workload, ()):
        entry = paper.get(key) or {}
        means = entry.get("mean_seconds") or {}
        if "gain_pct" in entry:  # workload 2: the article's own gains per sessions per CPU
            gains.update({int(spc): float(gain) for spc, gain in entry["gain_pct"].items()})
            quanta.add((min(entry["quanta_ms"]), max(entry["quanta_ms"])))
        elif means:  # workload 1: mean per Q at one sessions per CPU
            short, long = min(means, key=float), max(means, key=float)
            gains[int(entry["sessions_per_cpu"])] = 100.0 * (means[short] - means[long]) / means[short]
            quanta.add((short, long))
    words = ", ".join(f"{int(a)} -> {int(b)} ms" for a, b in sorted(quanta))
    return gains, words


def our_gains(rows: pd.DataFrame) -> pd.Series:
    """Our mean session time saved by the longest Q over the shortest, in %, per sessions per CPU."""
    q = rows["quantum_ms"].astype(float)
    short = rows[q == q.min()].set_index("sessions_per_cpu")["mean_seconds"]
    long = rows[q == q.max()].set_index("sessions_per_cpu")["mean_seconds"]
    return (100.0 * (short - long) / short).dropna().sort_index()


def scheduler_title(scheduler: str) -> str:
    """A panel's name for a scheduler: os_ts_<reading> by the reading's Solaris class (issue 55)."""
    if scheduler.startswith("os_ts_"):
        from dbrepro import _engine

        reading = scheduler.removeprefix("os_ts_")
        klass = {r["name"]: r["class"] for r in _engine.ts_dispatch_table()["readings"]}.get(reading, "?")
        return f"Solaris {klass} ({reading} reading, emulated)"
    return SCHEDULER_TITLES.get(scheduler, scheduler)


def plot(table: pd.DataFrame, paper: dict | None = None):
    table = table.assign(quantum_ms=table["quantum_ms"].astype(str))
    if "placement" not in table:
        table = table.assign(placement="pinned")
    workloads = sorted(table["workload"].unique())
    ran = set(table["scheduler"].astype(str))
    readings = sorted(s for s in ran if s.startswith("os_ts_"))
    schedulers = [s for s in ("os_ts", *readings, "engine", "os_rr", "os_fair_q") if s in ran] or ["os_fair"]
    panels = [(s, p) for s in schedulers for p in ("pinned", "unpinned")
              if len(table[(table["scheduler"] == s) & (table["placement"] == p)])]
    with_gains = paper is not None and schedulers != ["os_fair"]
    columns = len(panels) + int(with_gains)
    # The gains panels' legends lie beside them, in room of their own (3.6 in) on the right.
    fig, axes = style.figure(nrows=len(workloads), ncols=columns, squeeze=False, layout="constrained",
                             figsize=(4.2 * columns + 3.6 * int(with_gains), 3.6 * len(workloads)))
    for r, workload in enumerate(workloads):
        for c, (scheduler, placement) in enumerate(panels):
            ax = axes[r][c]
            here = (table["workload"] == workload) & (table["placement"] == placement)
            rows = table[here & (table["scheduler"] == scheduler)]
            quanta = sorted(rows["quantum_ms"].unique(), key=lambda q: float(q) if q != "fair" else 1e9)
            for q in quanta:
                line = rows[rows["quantum_ms"] == q].sort_values("sessions_per_cpu")
                spread = [line["mean_seconds"] - line["min_seconds"], line["max_seconds"] - line["mean_seconds"]]
                label = style.model("fair scheduler") if q == "fair" else style.model(f"Q = {q} ms")
                bars = ax.errorbar(line["sessions_per_cpu"], line["mean_seconds"], yerr=spread, marker="o",
                                   capsize=3, label=label)
                if "predicted_mean_s" in line:
                    ax.plot(line["sessions_per_cpu"], line["predicted_mean_s"], ":", color=bars[0].get_color())
            fair = table[here & (table["scheduler"] == "os_fair")]
            if len(fair) and scheduler != "os_fair":
                fair = fair.sort_values("sessions_per_cpu")
                ax.plot(fair["sessions_per_cpu"], fair["mean_seconds"], "--", color="grey",
                        label=style.model("OS fair scheduler"))
            ax.set_title(f"{scheduler_title(scheduler)}, {placement}\n"
                         f"{WORKLOAD_TITLES.get(workload, workload)}", fontsize="medium")
            if r == len(workloads) - 1:  # one axis label per column keeps rows apart
                ax.set_xlabel("sessions per CPU")
            ax.set_ylabel("mean session time (s)")
            # The panel's own sessions per CPU: a workload may run other counts than the next (quick: 5
            # CPU-bound, 1 and 6 memory-bound), and a tick without a point reads as a missing run.
            ax.set_xticks(sorted(table[here & (table["scheduler"].isin([scheduler, "os_fair"]))]
                                 ["sessions_per_cpu"].unique()))
            ax.set_ylim(bottom=0)
            ax.legend(loc="best", fontsize="small")  # off the points: one sessions-per-CPU count puts them mid-panel
        if with_gains:
            gains_panel(axes[r][-1], table, paper, workload, panels)
            if r == len(workloads) - 1:
                axes[r][-1].set_xlabel("sessions per CPU")
    fig.suptitle("E4: mean session time vs sessions per CPU\n(bars: min-max of sessions; dotted: the "
                 "scheduler's prediction; last column: the time the longest Q saves, beside the original's)")
    return fig


def gains_panel(ax, table: pd.DataFrame, paper: dict, workload: str, panels) -> None:
    """The mean session time the longest Q saves over the shortest, ours beside the article's."""
    ticks = set()
    for scheduler, placement in panels:
        rows = table[(table["workload"] == workload) & (table["scheduler"] == scheduler)
                     & (table["placement"] == placement)]
        quanta = sorted(rows["quantum_ms"].astype(float).unique())
        if len(quanta) < 2:
            continue
        gains = our_gains(rows)
        ticks.update(int(s) for s in gains.index)
        ax.plot(gains.index, gains.to_numpy(), marker="o",
                label=style.model(f"{scheduler_title(scheduler)}, {placement}, "
                                  f"{quanta[0]:g} -> {quanta[-1]:g} ms"))
    theirs, quanta = article_gains(paper, workload)
    if theirs:
        ticks.update(theirs)
        spcs = sorted(theirs)
        ax.plot(spcs, [theirs[s] for s in spcs], **ORIGINAL_LOOK, label=style.original(f"Oracle 10.2, {quanta}"))
    ax.axhline(0, color="#888888", linewidth=0.8)
    ax.set_xticks(sorted(ticks))
    ax.set_ylabel("mean session time saved (%)")
    ax.set_title(f"longest Q vs shortest\n{WORKLOAD_TITLES.get(workload, workload)}", fontsize="medium")
    drawn = [y for line in ax.get_lines() for y in line.get_ydata()]
    low, high = min([0.0, *drawn]), max([0.0, *drawn])
    ax.set_ylim(low - 0.05 * (high - low or 1), high + 0.1 * (high - low or 1))
    # Beside the panel, not over it: its labels (scheduler, placement, quanta) are wider than the panel.
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize="small")


def main(argv=None) -> int:
    return style.table_and_paper_main(plot, __doc__, "runs CSV (results/tables/quantum/runs.csv)",
                                      "the article's numbers (workflows/data/quantum_paper.yaml)", argv)


if __name__ == "__main__":
    sys.exit(main())
