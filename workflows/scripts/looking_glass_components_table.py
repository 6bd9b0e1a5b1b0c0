"""Share of each component group in the step-0 instructions and cycles (Figure 8),
ours and the paper's, per transaction type.

A group's share is what its removal steps take off the step-0 total (the
total before its first step minus the total after its last), as a percentage
of the step-0 total; "remaining" is what is left after the last removal
(step 10). The six shares add up to 100%.

Run by Snakemake (rule looking_glass_components_table), or by hand:
    python workflows/scripts/looking_glass_components_table.py instructions.csv paper.yaml OUT.csv
"""


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


common.instructions_table_script(components, globals(), __doc__)
