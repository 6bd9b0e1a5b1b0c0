"""Shared by the looking_glass table and claim scripts: the ladder's component
groups, per-step totals of instructions.csv, and the paper's numbers.

The paper's numbers are read from workflows/data/looking_glass_paper.yaml (the
one place they are written down); nothing here repeats them.
"""

import math
from typing import Any

import pandas as pd
# The ladder's named steps, as the Python API names them (step 10: all removals done, what
# is left is "remaining"; 11: the optimal kernel; 2: the first without a log flush at commit).
from dbrepro.looking_glass import FIRST_STEP, IN_MEMORY_STEP, OPTIMAL_STEP, STRIPPED_STEP  # noqa: F401
from script_common import (  # noqa: F401 (scripts call common.load_paper, common.run_logged, ...)
    load_paper,
    run_logged,
    undisturbed,
    with_disturbed_cells,
)

TXN_TYPES = ("new_order", "payment")
# Figure 8's groups, in the paper's order; "remaining" is what is left after
# the last removal (step 10), not a removal.
COMPONENTS = ("btree_keys", "logging", "locking", "latching", "buffer_manager")
REMAINING = "remaining"
COMPONENT_LABELS = {
    "btree_keys": "B-tree keys",
    "logging": "logging",
    "locking": "locking",
    "latching": "latching",
    "buffer_manager": "buffer manager",
    REMAINING: "remaining",
}



def ladder_frame(instructions: pd.DataFrame) -> pd.DataFrame:
    """step, label, component: one row per step of instructions.csv."""
    return instructions[["step", "label", "component"]].drop_duplicates("step").sort_values("step").reset_index(drop=True)


def component_steps(instructions: pd.DataFrame) -> dict[str, list[int]]:
    """Component group -> the ladder steps that remove it (from the engine's ladder)."""
    ladder = ladder_frame(instructions)
    return {
        component: sorted(ladder.loc[ladder["component"] == component, "step"].astype(int))
        for component in COMPONENTS
    }


def steps_text(steps: list[int]) -> str:
    if not steps:
        return ""
    return str(steps[0]) if len(steps) == 1 else f"{steps[0]}-{steps[-1]}"


def totals(instructions: pd.DataFrame, value: str = "instructions") -> pd.DataFrame:
    """Per-transaction total of `value` (instructions or cycles): rows step, columns txn_type.

    A step whose cycles were not counted gives NaN, not 0.
    """
    frame = instructions.groupby(["step", "txn_type"])[value].sum(min_count=1)
    return frame.unstack("txn_type").sort_index()


def backend_of(instructions: pd.DataFrame) -> str:
    """The counter backend(s) of the counts, e.g. 'callgrind' (joined if mixed)."""
    return "+".join(sorted(instructions["backend"].dropna().unique()))


def cycles_estimated(instructions: pd.DataFrame) -> bool:
    return "callgrind" in set(instructions["backend"])


def paper_totals(paper: dict[str, Any], txn_type: str) -> dict[int, float]:
    """The paper's instructions per transaction (not thousands) after each row's step."""
    return {int(row["step"]): float(row["total"]) * 1000 for row in paper["phases_thousands"][txn_type]}


def paper_share(paper: dict[str, Any], txn_type: str, component: str, measure: str = "instructions") -> float:
    """The paper's share (percent) of `component` in `txn_type`'s step-0 `measure`; NaN if not given."""
    shares = paper.get("component_shares_percent", {}).get(txn_type, {})
    value = shares.get(component, {}).get(measure)
    return float(value) if value is not None else math.nan


def paper_tps(paper: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """Ladder step -> the paper's throughput entry (tps, configuration)."""
    return {int(entry["step"]): entry for entry in paper.get("throughput_tps", [])}



def instructions_table_script(build, namespace: dict, doc: str) -> None:
    """The entry point of a table built from instructions.csv and the paper's
    numbers: `build(instructions, paper) -> DataFrame`, written as CSV. Runs
    under Snakemake's `script:` (its `snakemake` object in `namespace`) or from
    the command line: INSTRUCTIONS PAPER OUT."""

    def main(instructions_path, paper_path, out_path) -> pd.DataFrame:
        table = build(pd.read_csv(instructions_path), load_paper(paper_path))
        table.to_csv(out_path, index=False, float_format="%.6g")
        return table

    if "snakemake" in namespace:
        smk = namespace["snakemake"]
        run_logged(smk.log[0], main, smk.input.instructions, smk.input.paper, smk.output[0])
    elif namespace.get("__name__") == "__main__":
        import argparse

        parser = argparse.ArgumentParser(description=doc.splitlines()[0])
        parser.add_argument("instructions", help="instructions.csv")
        parser.add_argument("paper", help="the paper's numbers (workflows/data/looking_glass_paper.yaml)")
        parser.add_argument("out", help="CSV to write")
        args = parser.parse_args()
        print(main(args.instructions, args.paper, args.out).to_string(index=False))
