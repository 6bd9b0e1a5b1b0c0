#!/usr/bin/env python3
"""E3's ladder on this machine: records/s and time for the same remote work
at each step (baseline, + latch factor and optimistic index access, +
multi-threaded servers, + server-side join), each step's change in time
beside the article's, and the traffic on the wire.

Prints (never asserts) medians over interleaved repeats, with the spread, CPU
time and load average, so a noisy machine shows as such.

    python benchmarks/openedge.py [--rows 20000] [--servers 2] [--users 16] [--repeats 3]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

import yaml

from dbrepro import openedge

PAPER = Path(__file__).resolve().parents[1] / "workflows" / "data" / "openedge_paper.yaml"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--fanout", type=int, default=1)
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--users", type=int, default=16)
    parser.add_argument("--prefetch", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    paper = yaml.safe_load(PAPER.read_text())

    result = openedge.run_ladder(rows=args.rows, fanout=args.fanout, servers=args.servers, users=args.users,
                                 prefetch=args.prefetch, repeats=args.repeats)
    runs = result.metrics["runs"]
    host = result.metrics["host"]
    print(f"E3 ladder: {args.users} users on {args.servers} servers, {args.rows:,} rows of Table1, "
          f"{args.repeats} interleaved repeats, {os.cpu_count()} CPUs, "
          f"load average {host['loadavg_before']} -> {host['loadavg_after']}")
    print(f"{'step':<9} {'records/s':>11} {'seconds':>9} {'min-max':>15} {'cpu s':>7} "
          f"{'vs previous':>11} {'article':>8} {'user sd ms':>10} {'MB wire':>8} {'messages':>9}")
    previous = None
    for name in openedge.STEP_NAMES:
        mine = [r for r in runs if r["name"] == name]
        if not mine:
            continue
        seconds = statistics.median(r["wall_seconds"] for r in mine)
        change = "" if previous is None else f"{100 * (seconds - previous) / previous:+.1f}%"
        theirs = paper["time_reduction_percent"].get(name)
        print(f"{name:<9} {statistics.median(r['records_per_second'] for r in mine):>11,.0f} {seconds:>9.3f} "
              f"{min(r['wall_seconds'] for r in mine):>7.3f}-{max(r['wall_seconds'] for r in mine):<7.3f} "
              f"{statistics.median(r['cpu_seconds'] for r in mine):>7.2f} {change:>11} "
              f"{'' if theirs is None else f'-{theirs}%':>8} "
              f"{1000 * statistics.median(r['user_stddev_seconds'] for r in mine):>10.1f} "
              f"{statistics.median(r['bytes_on_wire'] for r in mine) / 1e6:>8.2f} "
              f"{statistics.median(r['messages_on_wire'] for r in mine):>9,.0f}")
        previous = seconds
    if not result.metrics["results_agree"]:
        print("warning: the steps returned different tuples", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
