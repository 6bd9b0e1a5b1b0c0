#!/usr/bin/env python3
"""E5 on this machine: TPC-C (full mix) on the disk-backed pool at 10% of the
database, per replacement policy: hit ratio, locks taken on hits, page reads
and write-backs per transaction, and NOPM / TPM (HammerDB's definitions: New
Orders committed per minute; committed and rolled-back transactions per
minute), beside SoQoL's numbers.

Prints, never asserts. Runs are interleaved (every policy once per repeat)
and each line gives the median and range over the repeats, with CPU time and
the load average, since timings on a shared machine drift.

    python benchmarks/fifo_cache.py [--warehouses 1] [--transactions 5000] [--warmup-transactions N] [--repeats 3] [--terminals 1]
"""
from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path

import yaml

from dbrepro import fifo_cache, registry

PAPER = Path(__file__).resolve().parents[1] / "workflows" / "data" / "fifo_cache_paper.yaml"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--warehouses", type=int, default=1)
    parser.add_argument("--transactions", type=int, default=5000)
    parser.add_argument("--warmup-transactions", type=int, default=None,
                        help="uncounted, before each run's measured phase (default: as many as --transactions, as the workflow)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--fraction", type=float, default=0.1)
    parser.add_argument("--terminals", type=int, default=1)
    parser.add_argument("--policies", default=",".join(registry.policies()))
    args = parser.parse_args()
    policies = args.policies.split(",")
    engine = {"terminals": args.terminals} if args.terminals != 1 else {}
    warmup = args.transactions if args.warmup_transactions is None else args.warmup_transactions
    paper = yaml.safe_load(PAPER.read_text())

    runs: dict[str, list] = {p: [] for p in policies}
    for _ in range(args.repeats):
        for policy in policies:  # interleaved: A B C, A B C, ...
            result = fifo_cache.run(policy, args.fraction, warehouses=args.warehouses,
                                    transactions=args.transactions, warmup_transactions=warmup, progress=False,
                                    **engine)
            runs[policy].append(result)

    print(f"TPC-C full mix, {args.warehouses} warehouse(s), {args.transactions:,} transactions after {warmup:,} "
          "of warm-up, "
          f"{args.terminals} terminal(s), pool at {args.fraction:.0%}, {args.repeats} repeats, "
          f"{os.cpu_count()} CPUs, O_DIRECT {runs[policies[0]][0].metrics['pool']['o_direct']}")
    print(f"{'policy':8} {'hit ratio':>9} {'hit locks':>10} {'reads/txn':>9} {'writes/txn':>10} "
          f"{'NOPM median [min-max]':>26} {'TPM median':>11} {'CPU/wall':>8} {'load':>5}  consistent")
    for policy in policies:
        frames = [r.to_frame().iloc[0] for r in runs[policy]]
        pools = [r.metrics["pool"] for r in runs[policy]]
        nopm = [f["nopm"] for f in frames]
        done = runs[policy][0].metrics["transactions"]
        cpu = statistics.median(r.metrics["cpu_seconds"] / r.metrics["elapsed_seconds"] for r in runs[policy])
        load = statistics.median((r.metrics["host"].get("loadavg_before") or [float("nan")])[0] for r in runs[policy])
        print(f"{policy:8} {statistics.median(p['hit_ratio'] for p in pools):9.4f} "
              f"{statistics.median(p['hit_locks'] for p in pools):10,.0f} "
              f"{statistics.median(p['reads'] for p in pools) / done:9.2f} "
              f"{statistics.median(p['writes'] for p in pools) / done:10.2f} "
              f"{statistics.median(nopm):12,.0f} [{min(nopm):,.0f}-{max(nopm):,.0f}] "
              f"{statistics.median(f['tpm'] for f in frames):11,.0f} {cpu:8.2f} {load:5.1f}  "
              f"{all(r.consistent for r in runs[policy])}")
    before, after = paper["before"], paper["after"]
    print(f"SoQoL ({paper['setup']['warehouses']} warehouses, {paper['setup']['clients']} clients, 10% memory): "
          f"{before['nopm']:,} -> {after['nopm']:,} NOPM ({after['nopm'] / before['nopm']:.1f}x), "
          f"{before['tpm']:,} -> {after['tpm']:,} TPM, hit ratio {after['hit_ratio']:.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
