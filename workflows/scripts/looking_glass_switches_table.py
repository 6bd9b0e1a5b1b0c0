"""Instructions removed by each of the ladder's 11 switches (Figure 7), ours and
the paper's, per transaction and as a share of the step-0 total.

"Removed by switch s" is the step s-1 total minus the step s total, so a
switch that adds instructions has a negative number. The paper's New Order
numbers come from Figure 7 (switches 1-10) and Figure 6 (switch 11: the
"- buffer manager" row minus the optimal kernel); its Payment numbers exist
only where Figure 5 has a row on both sides of the switch.

Run by Snakemake (rule looking_glass_switches_table), or by hand:
    python workflows/scripts/looking_glass_switches_table.py instructions.csv paper.yaml OUT.csv
"""

import math

import pandas as pd

import looking_glass_common as common


def paper_removed(paper, txn_type: str, step: int) -> float:
    """The paper's instructions removed by switch `step` (per transaction), NaN if unknown."""
    if txn_type == "new_order":
        for switch in paper.get("switches_thousands", []):
            if int(switch["step"]) == step and "removed" in switch:
                return float(switch["removed"]) * 1000
    after = common.paper_totals(paper, txn_type)
    if step in after and step - 1 in after:
        return after[step - 1] - after[step]
    return math.nan


def switches(instructions: pd.DataFrame, paper) -> pd.DataFrame:
    totals = common.totals(instructions)
    ladder = common.ladder_frame(instructions)
    rows = []
    for entry in ladder.itertuples(index=False):
        step = int(entry.step)
        if step == common.FIRST_STEP:
            continue
        row = {"step": step, "label": entry.label, "component": entry.component}
        for txn_type in common.TXN_TYPES:
            start = totals.at[common.FIRST_STEP, txn_type]
            removed = totals.at[step - 1, txn_type] - totals.at[step, txn_type]
            row[f"{txn_type}_removed"] = removed
            row[f"{txn_type}_removed_pct"] = 100.0 * removed / start
            row[f"{txn_type}_after"] = totals.at[step, txn_type]
        for txn_type in common.TXN_TYPES:
            theirs = paper_removed(paper, txn_type, step)
            theirs_start = common.paper_totals(paper, txn_type)[common.FIRST_STEP]
            row[f"theirs_{txn_type}_removed"] = theirs
            row[f"theirs_{txn_type}_removed_pct"] = 100.0 * theirs / theirs_start
        rows.append(row)
    return pd.DataFrame(rows)


common.instructions_table_script(switches, globals(), __doc__)
