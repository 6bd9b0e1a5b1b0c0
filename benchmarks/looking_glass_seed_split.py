"""Why E1's remaining_share_new_order splits by seed: New Order's instructions per
transaction, per phase, at step 0 and step 10 on each seed, at one or more counts of
transactions (callgrind, as the workflow counts them).

If the seeds differed only by which transactions were drawn, more transactions would
bring them together; if they stay apart, the seed's input decides the share.

    python benchmarks/looking_glass_seed_split.py [--transactions 1000 4000] [--seeds 1 2 3]

Prints numbers only (never asserts).
"""
from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transactions", type=int, nargs="+", default=[1000, 4000])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--warehouses", type=int, default=1)
    args = parser.parse_args(argv)
    if min(args.transactions) < 1 or min(args.seeds) < 0:
        print("looking_glass_seed_split: transactions >= 1 and seeds >= 0", file=sys.stderr)
        return 2
    from dbrepro import looking_glass as lg

    print("transactions seed step total aborts " + " ".join(lg.PHASES) + " share_%")
    for n in args.transactions:
        for seed in args.seeds:
            totals = {}
            for step in (0, 10):
                metrics = lg.count_instructions(step, "new_order", transactions=n, seed=seed,
                                                warehouses=args.warehouses, backend="callgrind",
                                                cycles=False).result.metrics
                totals[step] = metrics["instructions_total"]
                phases = " ".join(f"{metrics['instructions'].get(p, 0):.0f}" for p in lg.PHASES)
                share = f"{100 * totals[10] / totals[0]:.3f}" if step == 10 else ""
                print(f"{n} {seed} {step} {metrics['instructions_total']:.0f} {metrics['aborts']} {phases} {share}",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
