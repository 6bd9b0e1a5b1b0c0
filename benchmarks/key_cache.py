#!/usr/bin/env python3
"""E2's segmented key cache on this machine: the article's relative table for
P = 10, and the key cache's mutex waits per segments value.

Prints (never asserts) throughput with 32 and 64 segments relative to
segments off per thread count, beside the article's pitbull (24 hardware
threads) and perro (4 cores), then the contended mutex acquisitions of each
segments value at the most threads: they should fall as segments grow, even
where few cores keep the throughput gain small.

    python benchmarks/key_cache.py [--rows 200000] [--seconds 1] [--threads 1,4,8,16,32,64,128]
                                   [--distribution special|uniform]

With sysbench's "special" distribution (the article's) a query reads
hundreds of rows through the OS and touches the key cache comparatively
rarely; "uniform" makes the key cache's share, and its contention, larger.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import yaml

from dbrepro import key_cache

PAPER = Path(__file__).resolve().parents[1] / "workflows" / "data" / "key_cache_paper.yaml"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--warmup-seconds", type=float, default=0.3)
    parser.add_argument("--threads", default="1,4,8,16,32,64,128")
    parser.add_argument("--segments", default="0,1,4,16,32,64", help="must include 0, 32 and 64")
    parser.add_argument("--distribution", choices=key_cache.DISTRIBUTIONS, default="special")
    parser.add_argument("--mode", default="client_server",
                        help="how the clients reach the cache: client_server (default), client_server_in_process, direct")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    segments = [int(s) for s in args.segments.split(",")]
    paper = yaml.safe_load(PAPER.read_text())["machines"]

    cells = {}
    with tempfile.TemporaryDirectory(prefix="dbrepro_kc_bench_") as table:
        key_cache.build_table(table, rows=args.rows, distribution=args.distribution)
        # Interleaved: each thread count runs every segments value back to back (one run does it per cell).
        result = key_cache.run(table_dir=table, segments=segments, threads=threads, points=[10], mode=args.mode,
                               seconds=args.seconds, warmup_seconds=args.warmup_seconds)
        for cell in result.metrics["cells"]:
            cells[cell["segments"], cell["threads"]] = cell

    print(f"select_random_points P=10, {args.rows:,} rows ({args.distribution}), mode {args.mode}, "
          f"{os.cpu_count()} hardware threads, "
          f"{args.seconds:g} s per cell, load average {os.getloadavg()[0]:.1f}")
    print(f"{'':22}" + "".join(f"{t:>8}" for t in threads))
    print(f"{'off (queries/s)':22}" + "".join(f"{cells[0, t]['queries_per_second']:>8.0f}" for t in threads))
    for s in (32, 64):
        if s not in segments:
            continue
        gains = [(cells[s, t]["queries_per_second"] / cells[0, t]["queries_per_second"] - 1) * 100 for t in threads]
        print(f"{f'ours {s}/off':22}" + "".join(f"{g:>7.0f}%" for g in gains))
        for machine in ("pitbull", "perro"):
            theirs = paper[machine]["relative_percent"]["p10"][s]
            print(f"{f'{machine} {s}/off':22}" + "".join(
                f"{theirs[t]:>7.0f}%" if t in theirs else f"{'':>8}" for t in threads))
    top = threads[-1]
    print(f"\nmutex waits at {top} threads (contended acquisitions in the timed run):")
    for s in segments:
        c = cells[s, top]
        print(f"  segments {s:>3}: {c['mutex_waits']:>10,} waits, {c['mutex_waits'] / max(c['queries'], 1):.3f} per query, "
              f"{c['mutex_long_holds']:,} holds in which the holder lost its CPU, "
              f"{c['involuntary_switches']:,} involuntary context switches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
