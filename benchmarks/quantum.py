#!/usr/bin/env python3
"""E4's memory-bound table on this machine: mean session time (s) for
Q = 20 and 400 ms and 1, 5, 10, 15 sessions per CPU, and the gain of the long
quantum, beside the article's (Oracle 10.2, 2-CPU SunFire V240, 2008).

Prints (never asserts). Runs are interleaved (every Q and S once, then again)
and the median over repeats is shown, with the load average, because this
machine is shared. os_rr needs root (it sets kernel.sched_rr_timeslice_ms and
restores it); without root only the engine's scheduler runs.

    python benchmarks/quantum.py [--table-mb 8] [--passes 25] [--repeats 1]
"""
from __future__ import annotations

import argparse
import os
import statistics
from collections import defaultdict

from dbrepro import quantum

QUANTA = (20, 400)
SESSIONS_PER_CPU = (1, 5, 10, 15)
ARTICLE = {20: (33.98, 173.12, 346.68, 519.98), 400: (33.96, 161.58, 305.62, 422.64)}
ARTICLE_GAIN = (0.06, 6.7, 11.8, 18.7)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table-mb", type=float, default=8.0)
    parser.add_argument("--passes", type=int, default=25)
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    schedulers = ["engine"] + (["os_rr"] if os.access(quantum.TIMESLICE_PATH, os.W_OK) else [])
    means = defaultdict(list)
    print(f"{quantum.available_cpus()} CPUs, table {args.table_mb} MiB x {args.passes} passes, "
          f"load average {os.getloadavg()[0]:.2f}; schedulers: {', '.join(schedulers)}")
    for _ in range(args.repeats):
        for scheduler in schedulers:
            for q in QUANTA:
                for spc in SESSIONS_PER_CPU:
                    run = quantum.run_sessions(scheduler=scheduler, workload="memory", quantum_ms=q,
                                               sessions_per_cpu=spc, table_mb=args.table_mb, passes=args.passes)
                    means[scheduler, q, spc].append(run.metrics["mean_seconds"])
    header = "".join(f"{f'{spc}/CPU':>16}" for spc in SESSIONS_PER_CPU)
    for scheduler in schedulers:
        print(f"\n{scheduler}: mean session time, s (ours | article)\n{'':12}{header}")
        median = {(q, spc): statistics.median(means[scheduler, q, spc]) for q in QUANTA for spc in SESSIONS_PER_CPU}
        for q in QUANTA:
            cells = "".join(f"{median[q, spc]:>8.3f} |{ARTICLE[q][i]:>6.1f}" for i, spc in enumerate(SESSIONS_PER_CPU))
            print(f"{f'Q = {q} ms':12}{cells}")
        gains = "".join(
            f"{100 * (median[20, spc] - median[400, spc]) / median[20, spc]:>7.1f}% |{ARTICLE_GAIN[i]:>5.1f}%"
            for i, spc in enumerate(SESSIONS_PER_CPU))
        print(f"{'gain':12}{gains}")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}; kernel.sched_rr_timeslice_ms now "
          f"{quantum.read_timeslice()} (restored)")


if __name__ == "__main__":
    main()
