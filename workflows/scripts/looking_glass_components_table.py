"""Share of each component group in the step-0 instructions and cycles (Figure 8),
ours and the paper's, per transaction type.

A group's share is what its removal steps take off the step-0 total (the
total before its first step minus the total after its last), as a percentage
of the step-0 total; "remaining" is what is left after the last removal
(step 10). The six shares add up to 100%.

Run by Snakemake (rule looking_glass_components_table), or by hand:
    python workflows/scripts/looking_glass_components_table.py instructions.csv paper.yaml OUT.csv
"""

import argparse

import pandas as pd

import looking_glass_common as common


def components(instructions: pd.DataFrame, paper) -> pd.DataFrame:
    totals = {measure: common.totals(instructions, measure) for measure in ("instructions", "cycles")}
    groups = common.component_steps(instructions)
    cycles_source = "+".join(sorted(instructions["cycles_source"].dropna().unique()))
    rows = []
    for txn_type in common.TXN_TYPES:
        for component in (*common.COMPONENTS, common.REMAINING):
            steps = groups.get(component, [])
            row = {
                "txn_type": txn_type,
                "component": component,
                "steps": common.steps_text(steps) if steps else f"left at {common.STRIPPED_STEP}",
            }
            for measure, total in totals.items():
                start = total.at[common.FIRST_STEP, txn_type]
                if component == common.REMAINING:
                    amount = total.at[common.STRIPPED_STEP, txn_type]
                else:
                    amount = total.at[steps[0] - 1, txn_type] - total.at[steps[-1], txn_type]
                row[measure] = amount
                row[f"{measure}_share_pct"] = 100.0 * amount / start
            row["cycles_source"] = cycles_source
            row["backend"] = common.backend_of(instructions)
            for measure in ("instructions", "cycles"):
                row[f"theirs_{measure}_share_pct"] = common.paper_share(paper, txn_type, component, measure)
            rows.append(row)
    return pd.DataFrame(rows)


def main(instructions_path, paper_path, out_path) -> pd.DataFrame:
    table = components(pd.read_csv(instructions_path), common.load_paper(paper_path))
    table.to_csv(out_path, index=False, float_format="%.6g")
    return table


if "snakemake" in globals():
    inputs = snakemake.input  # noqa: F821 (defined by Snakemake)
    common.run_logged(snakemake.log[0], main, inputs.instructions, inputs.paper, snakemake.output[0])  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("instructions", help="instructions.csv")
    parser.add_argument("paper", help="the paper's numbers (workflows/data/looking_glass_paper.yaml)")
    parser.add_argument("out", help="CSV to write")
    args = parser.parse_args()
    print(main(args.instructions, args.paper, args.out).to_string(index=False))
