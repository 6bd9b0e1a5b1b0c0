#!/usr/bin/env python3
"""Single-thread TPC-C baseline: throughput and instructions per transaction.

Prints (never asserts) two numbers for the paper's 50/50 New Order / Payment
mix on one warehouse:
  * throughput, from repeated timed runs through the Python API (median and
    spread, with CPU time and load average, because this machine is noisy);
  * instructions per transaction of each type, counted by callgrind on the
    native driver (deterministic: the same binary and seed give the same count).

    python benchmarks/tpcc_single_thread.py [--repeats 5] [--transactions 40000]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys

import dbrepro.provenance
from dbrepro import callgrind, tpcc

MIX = {"new_order": 0.5, "payment": 0.5}
TIMED_SYMBOLS = {"new_order": "execute_new_order", "payment": "execute_payment"}


def measure_throughput(repeats: int, transactions: int, warehouses: int) -> None:
    runs = []
    for r in range(repeats):
        result = tpcc.run(warehouses=warehouses, transactions=transactions, mix=MIX, variant="paper",
                          seed=1, progress=False)
        metrics = result.to_dict()["metrics"]
        runs.append(metrics)
        print(f"  run {r + 1}/{repeats}: {metrics['throughput_tps']:,.0f} tps "
              f"(cpu {metrics['cpu_seconds']:.3f} s of {metrics['elapsed_seconds']:.3f} s wall)", flush=True)
    tps = [m["throughput_tps"] for m in runs]
    print(f"throughput: median {statistics.median(tps):,.0f} tps, min {min(tps):,.0f}, max {max(tps):,.0f} "
          f"over {repeats} runs; load average {os.getloadavg()[0]:.2f}")
    for name in MIX:
        per_txn_us = [m["per_type"][name]["seconds"] / max(1, m["per_type"][name]["commits"] +
                                                           m["per_type"][name]["aborts"]) * 1e6 for m in runs]
        print(f"  {name}: median {statistics.median(per_txn_us):.2f} us per transaction")


def count_instructions(transactions: int, warehouses: int) -> None:
    why = callgrind.available()
    if why:
        print(f"instructions: skipped ({why})")
        return
    command = [str(callgrind.native_path()), "tpcc", "--warehouses", str(warehouses),
               "--transactions", str(transactions), "--variant", "paper", "--seed", "1", "--no-consistency",
               "--mix", ",".join(f"{k}={v}" for k, v in MIX.items())]
    print(f"instructions: callgrind on dbrepro-native ({transactions} transactions)...", flush=True)
    profile = callgrind.profile(command, collect=[f"*{symbol}*" for symbol in TIMED_SYMBOLS.values()])
    result = callgrind.native_json(profile)
    for name, symbol in TIMED_SYMBOLS.items():
        instructions = profile.inclusive(rf"::{symbol}<")
        stats = result["per_type"][name]
        attempted = stats["commits"] + stats["aborts"]
        print(f"  {name}: {instructions / attempted:,.0f} instructions per transaction "
              f"({attempted} attempted, {stats['aborts']} user aborts)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--transactions", type=int, default=40_000)
    parser.add_argument("--callgrind-transactions", type=int, default=4_000)
    parser.add_argument("--warehouses", type=int, default=1)
    args = parser.parse_args()
    print(f"machine: {dbrepro.provenance.cpu_model()}, {os.cpu_count()} cores")
    measure_throughput(args.repeats, args.transactions, args.warehouses)
    count_instructions(args.callgrind_transactions, args.warehouses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
