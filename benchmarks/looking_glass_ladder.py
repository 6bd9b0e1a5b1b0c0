#!/usr/bin/env python3
"""E1's removal ladder: instructions per transaction at every step.

Prints (never asserts) New Order's and Payment's instructions per
transaction, per phase, for steps 0..11 (11 = the optimal kernel), counted
with perf where the CPU has counters and callgrind where it does not, and
checks the optimal kernel against the paper's: <= 1,600 instructions per
Payment and <= 31,000 per New Order.

    python benchmarks/looking_glass_ladder.py [--transactions 1000] [--steps 0,5,10,11]
"""
from __future__ import annotations

import argparse
import sys

from dbrepro import looking_glass

PAPER_OPTIMAL = {"payment": 1_600, "new_order": 31_000}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--transactions", type=int, default=1000)
    parser.add_argument("--steps", default=",".join(str(s) for s in range(12)))
    args = parser.parse_args()
    steps = [int(s) for s in args.steps.split(",")]
    labels = {row["step"]: row["label"] for row in looking_glass.ladder()}

    header = f"{'step':>4} {'switch':<12} {'txn':<9} {'total':>9} " + " ".join(
        f"{phase:>9}" for phase in looking_glass.PHASES)
    print(header)
    totals: dict[tuple[int, str], float] = {}
    backend = ""
    for step in steps:
        for txn in ("payment", "new_order"):
            count = looking_glass.count_instructions(step, txn, transactions=args.transactions, cycles=False)
            backend = count.result.metrics["backend"]
            totals[(step, txn)] = count.total
            phases = " ".join(f"{count.per_phase[p]:>9,.0f}" for p in looking_glass.PHASES)
            print(f"{step:>4} {labels[step]:<12} {txn:<9} {count.total:>9,.0f} {phases}", flush=True)
    print(f"(instructions per transaction, counted by {backend})")
    if looking_glass.OPTIMAL_STEP in steps:
        for txn, target in PAPER_OPTIMAL.items():
            ours = totals[(looking_glass.OPTIMAL_STEP, txn)]
            verdict = "meets" if ours <= target else "MISSES"
            print(f"optimal kernel, {txn}: {ours:,.0f} instructions per transaction; "
                  f"paper's optimal {target:,}: {verdict} it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
