"""E4's readings of "the quantum was set to Q" (issue 55), simulated beside the
article's numbers: readings.csv, in every profile.

The article does not print its table or say how it set Q. Each reading the
engine holds (engine/src/sched/ts_table.hpp's kTsReadings: its class, its
table and the levels Q goes in) is simulated (quantum_prediction.over_phases)
on the article's 2 CPUs with sessions of the article's CPU time, as
  start=article   the article's start (dbrepro.quantum.article_start: a start
                  every 78 ms, each statement at the woken level, the update's
                  phase and each session's CPU need drawn per phase), under
                  its class's own queues (queues=per_cpu for TS and FX,
                  Solaris's queue per CPU with affinity and migration; global
                  for RT): the candidates, which the selection compares;
                  and pinned (each session on its CPU): how our runs run it
                  (Linux's SCHED_FIFO keeps a queue per CPU and does not move
                  threads of equal priority to even them out, so an unpinned
                  run is not RT's one queue either);
  start=together  the reading and start our runs used until issue 55 (all,
                  pinned, every session at level 29 at once, the update a
                  whole period later): one phase, nothing to draw.
Cells: workload 1 at 5 per CPU at the article's four quanta and at 15 per CPU
at its two; workload 2 (CPU-bound sessions of its one session's time: no
latches here) at each sessions per CPU of its table at 20 and 400 ms.

Per cell, over the phases, the median and the 10th and 90th percentiles
(`_lo`, `_hi`) of: mean_s and spread_s (each session's own time, from its
start, as the article's sqlplus timed it), spread_over_q, switches_per_s (all
CPUs), last_started_s (the session started last, the article's one timed
session), drop_pct (the mean's fall from the shortest quantum at the same
sessions per CPU, phase by phase), boosts (raises per session); the
article's numbers beside (article_*: empty where it gives none). `role`: the
cells whose article numbers select the reading (`select`) and those that only
judge it (`judge`), as workflows/claims/quantum.yaml's `readings` says;
distance_s: the candidate's distance from the article on the selecting cells
(the sum of |median - article| over their quanta and measures, seconds);
selected: the candidate nearest.

Run by Snakemake (rule quantum_readings), or by hand:
    python workflows/scripts/quantum_readings.py paper.yaml quantum.yaml readings.csv PHASES [PROCESSES]
"""
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
from quantum_prediction import over_phases, ts_dispatch_table
from script_common import load_paper

from dbrepro import yaml_text
from dbrepro.quantum import article_start
from dbrepro.quantum_sizing import article_session_seconds

CPUS_ARTICLE_KEY = "cpus"
MEASURES = ["mean_s", "spread_s", "spread_over_q", "switches_per_s", "last_started_s", "drop_pct", "boosts"]
QUANTILES = (10, 90)


def variants(readings: list[dict], candidates: list[str]) -> list[dict]:
    """Every simulated row's reading, queues and start (see the module's docstring)."""
    out = [{"reading": "all", "queues": "pinned", "start": "together", "candidate": False}]
    for r in readings:
        own = r["queues"]
        out.append({"reading": r["name"], "queues": own, "start": "article", "candidate": r["name"] in candidates})
        if own != "pinned":  # and pinned: how our runs run it
            out.append({"reading": r["name"], "queues": "pinned", "start": "article", "candidate": False})
    return out


def cells(paper: dict, select_on: dict) -> list[dict]:
    """The article's cells, each with its numbers and its role."""
    w1, w30, w2 = paper["workload1"], paper["workload1_30_sessions"], paper["workload2"]
    found = []

    def add(workload, spc, q, role, **article):
        found.append({"workload": workload, "sessions_per_cpu": spc, "quantum_ms": q, "role": role, **article})

    for q in w1["quanta_ms"]:
        selecting = (select_on.get("workload", "cpu") == "cpu" and select_on["sessions_per_cpu"] == w1["sessions_per_cpu"]
                     and q in select_on["quanta_ms"])
        add("cpu", w1["sessions_per_cpu"], q, "select" if selecting else "judge",
            article_mean_s=w1["mean_seconds"][q], article_spread_s=w1["max_seconds"][q] - w1["min_seconds"][q],
            article_switches_per_s=w1["context_switches_per_second"][q],
            article_last_started_s=w1["one_session_seconds"][q])
    for q in sorted(w30["mean_seconds"]):
        add("cpu", w30["sessions_per_cpu"], q, "judge", article_mean_s=w30["mean_seconds"][q],
            article_spread_s=w30["spread_seconds"][q], article_switches_per_s=w30["context_switches_per_second"][q],
            article_last_started_s=w30["one_session_seconds"][q])
    for q in w2["quanta_ms"]:
        for spc, mean in sorted(w2["mean_seconds"][q].items()):
            spread = None
            if spc in w2.get("max_seconds", {}).get(q, {}):
                spread = w2["max_seconds"][q][spc] - w2["min_seconds"][q][spc]
            add("memory", spc, q, "judge", article_mean_s=mean, article_spread_s=spread)
    for cell in found:
        spread = cell.get("article_spread_s")
        cell["article_spread_over_q"] = None if spread is None else spread / (cell["quantum_ms"] / 1000)
        same = [c for c in found if (c["workload"], c["sessions_per_cpu"]) == (cell["workload"], cell["sessions_per_cpu"])]
        shortest = min(same, key=lambda c: c["quantum_ms"])
        cell["article_drop_pct"] = 100 * (1 - cell["article_mean_s"] / shortest["article_mean_s"])
    return found


def _simulate(task: dict) -> dict:
    """One row's cell over its phases: the per-phase values (drop_pct is filled in later)."""
    runs = over_phases(task["reading"], task["queues"], task["cpus"], task["sessions_per_cpu"], task["quantum_ms"],
                       task["session_s"], start_gap_s=task["start_gap_s"], entry_level=task["entry_level"],
                       need_jitter=task["need_jitter"], phases=task["phases"])
    q_s = task["quantum_ms"] / 1000
    return {"mean_s": [r.mean_s for r in runs], "spread_s": [r.spread_s for r in runs],
            "spread_over_q": [r.spread_s / q_s for r in runs], "switches_per_s": [r.switches_per_s for r in runs],
            "last_started_s": [r.last_started_s for r in runs], "boosts": [r.boosts for r in runs]}


def tasks(paper: dict, rows: list[dict], found: list[dict], phases: int) -> list[dict]:
    start = article_start(paper)
    out = []
    for row in rows:
        article = row["start"] == "article"
        for cell in found:
            out.append({**row, **{k: cell[k] for k in ("workload", "sessions_per_cpu", "quantum_ms")},
                        "cpus": paper[CPUS_ARTICLE_KEY], "session_s": article_session_seconds(paper, cell["workload"]),
                        "start_gap_s": start["start_gap_ms"] / 1000 if article else 0.0,
                        "entry_level": start["ts_entry_level"] if article else None,
                        "need_jitter": start["need_jitter"] if article else 0.0,
                        "phases": phases if article else 1})
    return out


def readings_table(paper: dict, rule: dict, phases: int, processes: int = 1) -> pd.DataFrame:
    catalog = ts_dispatch_table()["readings"]
    rows = variants(catalog, list(rule["candidates"]))
    found = cells(paper, rule["select_on"])
    work = tasks(paper, rows, found, phases)
    if processes > 1:
        with ProcessPoolExecutor(processes) as pool:
            results = list(pool.map(_simulate, work, chunksize=1))
    else:
        results = [_simulate(t) for t in work]
    keys = ["reading", "queues", "start", "workload", "sessions_per_cpu"]
    by_cell = {tuple(t[k] for k in (*keys, "quantum_ms")): r for t, r in zip(work, results)}
    classes = {r["name"]: r["class"] for r in catalog}
    out = []
    for task, values in zip(work, results):
        shortest = min(c["quantum_ms"] for c in found
                       if (c["workload"], c["sessions_per_cpu"]) == (task["workload"], task["sessions_per_cpu"]))
        base = np.array(by_cell[tuple(task[k] for k in keys) + (shortest,)]["mean_s"])
        values["drop_pct"] = list(100 * (1 - np.array(values["mean_s"]) / base))  # paired by phase
        cell = next(c for c in found if all(c[k] == task[k] for k in ("workload", "sessions_per_cpu", "quantum_ms")))
        row = {k: task[k] for k in ("reading", "queues", "start", "candidate")}
        row.update({"class": classes[task["reading"]], "role": cell["role"],
                    **{k: task[k] for k in ("workload", "sessions_per_cpu", "quantum_ms")},
                    "phases": len(values["mean_s"]), "session_s": task["session_s"]})
        for m in MEASURES:
            low, mid, high = np.percentile(values[m], [QUANTILES[0], 50, QUANTILES[1]])
            row.update({m: mid, f"{m}_lo": low, f"{m}_hi": high})
        row.update({k: v for k, v in cell.items() if k.startswith("article_")})
        out.append(row)
    table = pd.DataFrame(out)
    return with_selection(table, rule["select_on"])


def with_selection(table: pd.DataFrame, select_on: dict) -> pd.DataFrame:
    """distance_s per candidate (its selecting cells: the sum over quanta and measures of
    |median - article|, seconds) and `selected`, the candidate nearest."""
    selecting = table[(table["role"] == "select") & table["candidate"]]
    distance = {}
    for reading, group in selecting.groupby("reading"):
        distance[reading] = float(sum((group[m] - group[f"article_{m}"]).abs().sum() for m in select_on["measures"]))
    nearest = min(distance, key=distance.get) if distance else None
    table["distance_s"] = [distance.get(r) if c else None for r, c in zip(table["reading"], table["candidate"])]
    table["selected"] = table["candidate"] & (table["reading"] == nearest)
    return table


def selected_reading(table: pd.DataFrame) -> str | None:
    """The reading readings.csv selects (None where it selects none)."""
    chosen = table.loc[table["selected"].astype(bool), "reading"].unique()
    return str(chosen[0]) if len(chosen) else None


def main(paper_path, criteria_path, out_path, phases, processes=1) -> pd.DataFrame:
    paper = load_paper(paper_path)
    rule = yaml_text.safe_load(Path(criteria_path).read_text(encoding="utf-8"))["readings"]
    table = readings_table(paper, rule, int(phases), int(processes))
    Path(out_path).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(out_path, index=False, float_format="%.6g")
    distances = table[table["candidate"]].groupby("reading")["distance_s"].first().sort_values()
    print(f"readings: {len(table)} rows -> {out_path}; distance from the article (s): "
          + ", ".join(f"{r} {d:.1f}" for r, d in distances.items()) + f"; selected: {selected_reading(table)}",
          file=sys.stderr)
    return table


if "snakemake" in globals():
    with open(snakemake.log[0], "w") as log:  # noqa: F821 (defined by Snakemake)
        sys.stderr = log
        main(snakemake.input.paper, snakemake.input.criteria, snakemake.output.readings,  # noqa: F821
             snakemake.params.phases, snakemake.threads)  # noqa: F821
elif __name__ == "__main__":
    main(*sys.argv[1:6])
