#!/usr/bin/env python3
"""E4's memory-bound table on this machine: mean session time (s) and CPU
time per session for a short and a long quantum and 1, 5, 10, 15 sessions per
CPU, and the gain of the long quantum, beside the article's (Oracle 10.2,
2-CPU SunFire V240, 2008; its numbers read from workflows/data/quantum_paper.yaml).

Sessions are sized as the workflow sizes them: the longest quantum stands for
the article's 400 ms, at its ratio of quantum to session
(workflows/scripts/quantum_sizing.py). Prints (never asserts). Runs are
interleaved (every Q and S once, then again) and the median over repeats is
shown, with the load average, because this machine is shared. os_rr needs root
(it sets kernel.sched_rr_timeslice_ms and restores it); without root only the
engine's scheduler runs.

    python benchmarks/quantum.py [--quanta 4 20] [--table-mb 46] [--repeats 1] [--placement pinned]
"""
from __future__ import annotations

import argparse
import os
import statistics
from collections import defaultdict
from pathlib import Path

import yaml

from dbrepro import quantum
from dbrepro.quantum_sizing import session_seconds

ROOT = Path(__file__).resolve().parents[1]

SESSIONS_PER_CPU = (1, 5, 10, 15)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quanta", type=int, nargs=2, default=[4, 20], metavar=("SHORT", "LONG"))
    parser.add_argument("--table-mb", type=float, default=46.0)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--placement", choices=quantum.PLACEMENTS, default="pinned")
    args = parser.parse_args()
    paper = yaml.safe_load((ROOT / "workflows" / "data" / "quantum_paper.yaml").read_text())["workload2"]
    article_q = (min(paper["quanta_ms"]), max(paper["quanta_ms"]))
    short, long = args.quanta
    sizing = quantum.size_sessions({"memory": session_seconds({"workload2": paper}, "memory", long)},
                                   table_mb=args.table_mb)["memory"]
    schedulers = ["engine"] + (["os_rr"] if os.access(quantum.TIMESLICE_PATH, os.W_OK) else [])
    means, cpu = defaultdict(list), defaultdict(list)
    print(f"{quantum.available_cpus()} CPUs, one shared table of {args.table_mb} MiB x {sizing['passes']} passes "
          f"(~{sizing['session_seconds']:.2f} s alone), {args.placement}, load average {os.getloadavg()[0]:.2f}; "
          f"schedulers: {', '.join(schedulers)}")
    for _ in range(args.repeats):
        for scheduler in schedulers:
            for q in (short, long):
                for spc in SESSIONS_PER_CPU:
                    run = quantum.run_sessions(scheduler=scheduler, workload="memory", quantum_ms=q, cpus=0,
                                               placement=args.placement, sessions_per_cpu=spc,
                                               table_mb=args.table_mb, passes=sizing["passes"])
                    means[scheduler, q, spc].append(run.metrics["mean_seconds"])
                    cpu[scheduler, q, spc].append(run.metrics["cpu_s_per_session"])
    header = "".join(f"{f'{spc}/CPU':>24}" for spc in SESSIONS_PER_CPU)
    for scheduler in schedulers:
        print(f"\n{scheduler}: mean session time, s (ours | article), CPU s per session\n{'':16}{header}")
        median = {(q, spc): statistics.median(means[scheduler, q, spc]) for q in (short, long)
                  for spc in SESSIONS_PER_CPU}
        for q, aq in zip((short, long), article_q):
            cells = "".join(f"{median[q, spc]:>8.3f} |{paper['mean_seconds'][aq][spc]:>6.1f} |"
                            f"{statistics.median(cpu[scheduler, q, spc]):>6.3f}" for spc in SESSIONS_PER_CPU)
            print(f"{f'Q = {q} ({aq}) ms':16}{cells}")
        gains = "".join(
            f"{100 * (median[short, spc] - median[long, spc]) / median[short, spc]:>7.1f}% |"
            f"{paper['gain_pct'][spc]:>5.1f}%{'':7}" for spc in SESSIONS_PER_CPU)
        print(f"{'gain':16}{gains}")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}; kernel.sched_rr_timeslice_ms now "
          f"{quantum.read_timeslice()} (restored)")


if __name__ == "__main__":
    main()
