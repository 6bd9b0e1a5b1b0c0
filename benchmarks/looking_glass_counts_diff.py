#!/usr/bin/env python3
"""E1's callgrind counts of two builds of dbrepro-native, side by side.

Counts every ladder step and both transaction types with each binary (callgrind,
the count's own collection: `looking_glass.count_instructions`), prints every
per-phase total that differs and how many of the 192 moved. With --explain,
each moved count is taken apart: the functions whose own (self) instructions
differ, and whether the move remains when the dynamic linker binds every
symbol at start (LD_BIND_NOW=1: a move that vanishes is ld.so's lazy binding of
a first call inside the counted window, not engine code).

    python benchmarks/looking_glass_counts_diff.py OLD_NATIVE [NEW_NATIVE] [--explain]

OLD_NATIVE: another build's dbrepro-native (e.g. a worktree of an older commit
built with `cmake -S . -B build -G Ninja -DDBREPRO_BUILD_PYTHON=OFF && ninja -C
build dbrepro-native`); NEW_NATIVE defaults to this checkout's. Prints, never
asserts: a moved count is a finding to explain (DEVELOPERS.md).
"""
from __future__ import annotations

import argparse
import os
from contextlib import contextmanager
from pathlib import Path

from dbrepro import callgrind, looking_glass

STEPS = range(looking_glass.OPTIMAL_STEP + 1)


@contextmanager
def native(path: Path, bind_now: bool = False):
    """Counts made inside run `path` (and with LD_BIND_NOW=1 where asked)."""
    saved_path, saved_env = callgrind.native_path, os.environ.get("LD_BIND_NOW")
    callgrind.native_path = lambda: path
    if bind_now:
        os.environ["LD_BIND_NOW"] = "1"
    try:
        yield
    finally:
        callgrind.native_path = saved_path
        if saved_env is None:
            os.environ.pop("LD_BIND_NOW", None)
        else:
            os.environ["LD_BIND_NOW"] = saved_env


def phase_totals(step: int, txn: str, transactions: int) -> dict[str, int]:
    """Instructions per phase over the whole count (not per transaction: a one-time move stays whole)."""
    count = looking_glass.count_instructions(step, txn, transactions=transactions, cycles=False, backend="callgrind")
    attempted = count.result.metrics["attempted"]
    return {phase: round(value * attempted) for phase, value in count.per_phase.items()}


def self_instructions(step: int, txn: str, transactions: int) -> dict[str, int]:
    """Each collected function's own instructions in one count's profile."""
    config = {"stack": looking_glass.stack_name(step), "warehouses": 1, "transactions": transactions,
              "variant": "paper", "seed": 1, "txn_type": txn}
    function = looking_glass.TRANSACTION_FUNCTIONS[txn]
    profile = callgrind.profile(looking_glass._native_command(config), collect=[f"*{function}*"])
    own = {name: costs["Ir"] for name, costs in profile.functions.items()}
    for (caller, _), costs in profile.calls.items():
        own[caller] -= costs["Ir"]
    return own


def short(name: str, width: int = 150) -> str:
    return name if len(name) <= width else f"{name[:45]} ... {name[-(width - 50):]}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", type=Path, help="the other build's dbrepro-native")
    parser.add_argument("new", type=Path, nargs="?", default=None, help="default: this checkout's")
    parser.add_argument("--transactions", type=int, default=200, help="transactions per count (default 200)")
    parser.add_argument("--explain", action="store_true", help="take every moved count apart")
    args = parser.parse_args()
    old = args.old.resolve()
    new = (args.new or callgrind.native_path()).resolve()
    print(f"old: {old}\nnew: {new}\ncallgrind counts of {args.transactions} transactions per step and type")

    moved: list[tuple[int, str]] = []
    values = moved_values = 0
    for step in STEPS:
        for txn in looking_glass.TRANSACTION_FUNCTIONS:
            with native(old):
                before = phase_totals(step, txn, args.transactions)
            with native(new):
                after = phase_totals(step, txn, args.transactions)
            values += len(before)
            for phase in before:
                delta = after[phase] - before[phase]
                if delta:
                    moved_values += 1
                    share = 100.0 * delta / before[phase] if before[phase] else float("nan")
                    per_txn = delta / args.transactions
                    print(f"  step {step:>2} {txn:<9} {phase:<9} {before[phase]:>11,} -> {after[phase]:>11,} "
                          f"({delta:+,}; {per_txn:+.2f}/txn; {share:+.2f}%)", flush=True)
                    if (step, txn) not in moved:
                        moved.append((step, txn))
    print(f"{moved_values} of {values} per-phase values moved, in {len(moved)} (step, type) counts")

    if args.explain:
        for step, txn in moved:
            print(f"\nstep {step} {txn}:")
            with native(old, bind_now=True):
                before = phase_totals(step, txn, args.transactions)
            with native(new, bind_now=True):
                after = phase_totals(step, txn, args.transactions)
            left = {phase: after[phase] - before[phase] for phase in before if after[phase] != before[phase]}
            print(f"  with LD_BIND_NOW=1 the moves left are {left or 'none (all were lazy binding)'}")
            if not left:
                continue
            with native(old, bind_now=True):
                own_before = self_instructions(step, txn, args.transactions)
            with native(new, bind_now=True):
                own_after = self_instructions(step, txn, args.transactions)
            rows = [(own_after.get(name, 0) - own_before.get(name, 0), name)
                    for name in own_before.keys() | own_after.keys() if own_after.get(name, 0) != own_before.get(name, 0)]
            for delta, name in sorted(rows, key=lambda row: -abs(row[0]))[:8]:
                print(f"  {delta:>+9,} self  {short(name)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
