#!/usr/bin/env python3
"""E1: which functions a ladder switch removes, from callgrind.

Runs the native driver under callgrind on steps S-1 and S (one transaction
type, collecting inside its transaction function only), reads each
function's own instructions (callgrind_annotate, exclusive costs) and prints
the functions whose instructions per transaction changed most between the
two steps. Prints, never asserts: the docs' explanations of the switch
shares (docs/looking_glass_profiles.md) quote it.

With --seeds A B it compares one step on two seeds instead (the same
transaction code on two generated databases and transaction streams): which
functions make one seed's count differ from the other's.

    python benchmarks/looking_glass_profile.py --step 9 --txn new_order [--transactions 200] [--top 15]
    python benchmarks/looking_glass_profile.py --step 10 --seeds 1 3 [--transactions 1000]
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from dbrepro import callgrind, looking_glass

# "  53,760 ( 4.99%)  /path/to/page_cache.hpp:dbrepro::BTree<...>::lookup(...)": the source
# file whose code it is (inlined code keeps its own file) and the function it ran in.
LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S+?):(.+?)(?:\s+\[[^\]]*\])?$")


def self_costs(step: int, txn: str, transactions: int, seed: int = 1) -> dict[str, float]:
    """Function -> own instructions per transaction at `step` on `seed`."""
    config = {"step": step, "stack": looking_glass.stack_name(step), "txn_type": txn, "transactions": transactions,
              "warehouses": 1, "seed": seed, "variant": "paper"}
    command = looking_glass._native_command(config)
    function = looking_glass.TRANSACTION_FUNCTIONS[txn]
    with tempfile.TemporaryDirectory(prefix="dbrepro-profile-") as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--instr-atstart=no",
                        "--collect-atstart=no", f"--toggle-collect=*{function}*", *command],
                       check=True, capture_output=True, text=True)
        text = subprocess.run(["callgrind_annotate", "--inclusive=no", "--tree=none", "--threshold=100", str(out)],
                              check=True, capture_output=True, text=True).stdout
    costs: dict[str, float] = {}
    for line in text.splitlines():
        match = LINE.match(line)
        if match:
            name = f"{Path(match.group(2)).name}: {without_template_arguments(match.group(3).strip())}"
            costs[name] = costs.get(name, 0.0) + int(match.group(1).replace(",", "")) / transactions
    return costs


def without_template_arguments(name: str) -> str:
    """`BTree<IntegerKeyCompare, BufferPool<NoLatching>, NoLsn>::lookup(...)` -> `BTree<>::lookup(...)`,
    so that a function keeps its name across the two steps' stack types."""
    out, depth = [], 0
    for ch in name:
        if ch == "<":
            if depth == 0:
                out.append("<")
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
            if depth == 0:
                out.append(">")
        elif depth == 0:
            out.append(ch)
    return "".join(out)


def short(name: str, width: int = 130) -> str:
    name = re.sub(r"dbrepro::", "", name)
    return name if len(name) <= width else name[: width - 3] + "..."


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--step", type=int, required=True, help="the switch: compares step-1 with step")
    parser.add_argument("--seeds", type=int, nargs=2, metavar=("A", "B"),
                        help="compare --step on seed A with --step on seed B (default: step-1 with step, seed 1)")
    parser.add_argument("--txn", default="new_order", choices=sorted(looking_glass.TRANSACTION_FUNCTIONS))
    parser.add_argument("--transactions", type=int, default=200)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    if args.step < (0 if args.seeds else 1) or args.step > looking_glass.OPTIMAL_STEP or args.transactions < 1:
        parser.error(f"--step must be within the ladder (0..{looking_glass.OPTIMAL_STEP}; 1.. without --seeds) "
                     "and --transactions >= 1")
    if callgrind.available():
        print(callgrind.available(), file=sys.stderr)
        return 1
    if args.seeds:
        seed_a, seed_b = args.seeds
        before = self_costs(args.step, args.txn, args.transactions, seed_a)
        after = self_costs(args.step, args.txn, args.transactions, seed_b)
        what = f"step {args.step}, seed {seed_a} -> seed {seed_b}"
    else:
        before = self_costs(args.step - 1, args.txn, args.transactions)
        after = self_costs(args.step, args.txn, args.transactions)
        what = f"step {args.step - 1} -> {args.step}"
    names = set(before) | set(after)
    change = {name: after.get(name, 0.0) - before.get(name, 0.0) for name in names}
    total_before, total_after = sum(before.values()), sum(after.values())
    print(f"{args.txn}, {what}, {args.transactions} transactions: {total_before:,.0f} -> {total_after:,.0f} "
          f"instructions per transaction (functions above callgrind_annotate's threshold)")
    print(f"{'before':>9} {'after':>9} {'change':>9}  source file: function it ran in (own instructions per transaction)")
    for name in sorted(names, key=lambda n: -abs(change[n]))[: args.top]:
        print(f"{before.get(name, 0.0):>9,.0f} {after.get(name, 0.0):>9,.0f} {change[name]:>+9,.0f}  {short(name)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
