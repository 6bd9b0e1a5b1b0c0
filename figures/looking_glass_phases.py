"""Figures 5 and 6 of the looking glass: instructions per transaction phase after
each group of removals, ours beside the paper's (one transaction type).

    python figures/looking_glass_phases.py payment instructions.csv paper.yaml out.png out.pdf

Two panels with their own x scales (the paper's Shore ran ~10x our
instructions): stacked horizontal bars, one per removal row of the paper's
figure (Shore = our step 0, - B-tree keys = step 1, - logging = step 4,
- locking = step 5, - latching = step 6, - buffer manager = step 10,
optimal = step 11). The paper gives only a total for its optimal kernel.
Importable: `from figures.looking_glass_phases import plot`.
"""
from __future__ import annotations

import argparse
import sys

import pandas as pd
import yaml

if __package__:  # imported as figures.looking_glass_phases
    from . import style
else:  # run as a script: this file's folder is on sys.path
    import style

PHASES = ["begin", "lookup", "pin_unpin", "update", "create", "insert", "commit", "other"]
PHASE_LABELS = {"pin_unpin": "pin/unpin", "other": "other (outside the phases)"}
PHASE_COLORS = {
    "begin": "#56B4E9", "lookup": "#0072B2", "pin_unpin": "#009E73", "update": "#E69F00",
    "create": "#CC79A7", "insert": "#D55E00", "commit": "#F0E442", "other": "#999999",
}
TOTAL_ONLY = {"facecolor": "#eeeeee", "edgecolor": "#666666", "hatch": "///", "label": "total only (no phase split)"}
TITLES = {"payment": "Payment", "new_order": "New Order"}
FIGURE_NUMBER = {"payment": 5, "new_order": 6}


def _row_label(row: dict) -> str:
    name = "full stack (Shore)" if row["step"] == 0 else str(row["row"]).replace("- ", "\u2212 ")
    return f"{name}  [step {row['step']}]"


def _thousands(value: float) -> str:
    return f"{value:,.1f}" if value < 100 else f"{value:,.0f}"


def _stack(ax, y, values: dict[str, float], scale: float) -> float:
    """One stacked bar; returns its total (unscaled)."""
    left = 0.0
    for phase in PHASES:
        value = values.get(phase, 0.0) or 0.0
        if value > 0:
            ax.barh(y, value / scale, left=left / scale, color=PHASE_COLORS[phase], height=0.7, linewidth=0)
            left += value
    return left


def plot(instructions: pd.DataFrame, paper: dict, txn_type: str):
    rows = paper["phases_thousands"][txn_type]
    ours = instructions[instructions["txn_type"] == txn_type]
    per_step = ours.pivot_table(index="step", columns="phase", values="instructions", aggfunc="sum")
    backend = "+".join(sorted(ours["backend"].unique()))
    transactions = int(ours["transactions"].median())

    fig, (mine, theirs) = style.figure(ncols=2, figsize=(10.0, 3.9), sharey=True)
    positions = list(range(len(rows)))[::-1]  # first row on top
    for y, row in zip(positions, rows):
        step = int(row["step"])
        if step in per_step.index:
            values = per_step.loc[step].to_dict()
            if sum(values.get(p, 0.0) for p in PHASES if p != "other") > 0:
                total = _stack(mine, y, values, 1000.0)
            else:  # the optimal kernel: no phases, all of it counted as one
                total = sum(values.values())
                mine.barh(y, total / 1000.0, height=0.7, **{k: v for k, v in TOTAL_ONLY.items() if k != "label"})
            mine.annotate(_thousands(total / 1000), (total / 1000, y), xytext=(3, 0), textcoords="offset points",
                          va="center", fontsize=8)
        phases = {p: float(row[p]) * 1000 for p in PHASES if p in row}
        if phases and sum(phases.values()) > 0:
            _stack(theirs, y, phases, 1000.0)
        else:
            theirs.barh(y, float(row["total"]), height=0.7, **{k: v for k, v in TOTAL_ONLY.items() if k != "label"})
        theirs.annotate(_thousands(float(row["total"])), (float(row["total"]), y), xytext=(3, 0),
                        textcoords="offset points", va="center", fontsize=8)

    mine.set_yticks(positions, [_row_label(row) for row in rows])
    mine.set_title(style.model(f"{backend}, {transactions:,} transactions"))
    theirs.set_title(style.original(f"Shore, Figure {FIGURE_NUMBER[txn_type]}"))
    for ax in (mine, theirs):
        ax.set_xlabel("instructions per transaction (thousands)")
        ax.grid(axis="x", color="#dddddd", linewidth=0.6)
        ax.grid(axis="y", visible=False)
        ax.set_xlim(0, ax.get_xlim()[1] * 1.12)  # room for the totals
        style.thousands(ax.xaxis)

    handles = [style.plt.Rectangle((0, 0), 1, 1, color=PHASE_COLORS[p]) for p in PHASES]
    labels = [PHASE_LABELS.get(p, p) for p in PHASES]
    handles.append(style.plt.Rectangle((0, 0), 1, 1, **{k: v for k, v in TOTAL_ONLY.items() if k != "label"}))
    labels.append(TOTAL_ONLY["label"])
    fig.legend(handles, labels, loc="lower center", ncol=5, bbox_to_anchor=(0.5, -0.15))
    fig.suptitle(f"{TITLES[txn_type]}: instructions per transaction phase as components are removed "
                 "(numbers: totals)")
    return fig


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("txn_type", choices=sorted(TITLES), help="transaction type")
    parser.add_argument("instructions", help="results/tables/looking_glass/instructions.csv")
    parser.add_argument("paper", help="the paper's numbers (workflows/data/looking_glass_paper.yaml)")
    parser.add_argument("outputs", nargs="+", help="figure files to write; format from the suffix (.png, .pdf)")
    args = parser.parse_args(argv)
    with open(args.paper, encoding="utf-8") as file:
        paper = yaml.safe_load(file)
    style.save(plot(pd.read_csv(args.instructions), paper, args.txn_type), args.outputs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
