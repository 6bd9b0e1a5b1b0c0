"""E3's ladder: time for the same remote work at each step (median of the
repeats, min-max bars), and each step's change in time beside the article's.

    python figures/openedge_ladder.py results/tables/openedge/ladder.csv out.png out.pdf

Importable: `from figures.openedge_ladder import plot`.
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd
from matplotlib.patches import Patch

if __package__:
    from . import style
else:
    import style

OURS = "#0072B2"
THEIRS = "#D55E00"
# What each step adds (the article's features, in the ladder's order), named in the key.
STEP_WORDS = {"baseline": "OpenEdge 11's server", "bht": "hash-table latch factor, optimistic index access",
              "mtdbs": "multi-threaded servers", "ssj": "server-side join"}


def plot(ladder: pd.DataFrame):
    ladder = ladder.sort_values("step")
    names = list(ladder["name"])
    x = np.arange(len(names))
    fig, (left, right) = style.figure(ncols=2, figsize=(12.4, 3.8))  # 3.4 in of it: the key, beside

    median = ladder["seconds_median"].to_numpy()
    errors = [median - ladder["seconds_min"].to_numpy(), ladder["seconds_max"].to_numpy() - median]
    left.bar(x, median, yerr=errors, color=OURS, capsize=3)
    left.set_xticks(x, names)
    left.set_ylabel(style.LABELS["seconds"])
    left.set_title(f"{style.MODEL}: time for the same work (median, min-max)")

    # Change from the step before; the last pair of bars is the total (last step vs baseline).
    ours = list(ladder["change_vs_previous_pct"].iloc[1:]) + [ladder["change_vs_baseline_pct"].iloc[-1]]
    theirs = list(ladder["paper_change_vs_previous_pct"].iloc[1:]) + [ladder["paper_total_change_pct"].iloc[-1]]
    labels = [f"+{n}" for n in names[1:]] + ["in all"]
    xs = np.arange(len(labels))
    width = 0.38
    ours_bars = right.bar(xs - width / 2, ours, width, color=OURS, label=style.MODEL)
    theirs_bars = right.bar(xs + width / 2, pd.to_numeric(pd.Series(theirs), errors="coerce"), width, color=THEIRS,
                           label=style.original("OpenEdge 12"))
    for bars in (ours_bars, theirs_bars):
        right.bar_label(bars, fmt="%+.0f%%", fontsize=7, padding=2)
    right.axhline(0, color="#888888", linewidth=0.8)
    right.set_xticks(xs, labels)
    right.set_ylabel("change in time (%)")
    right.set_title("each feature's change, and in all")
    # Beside the panel: its bars and their labels fill it, whichever corner a legend took. The key
    # says what each step's name adds.
    handles, words = right.get_legend_handles_labels()
    steps = [Patch(visible=False, label=f"{n}: {STEP_WORDS.get(n, n)}") for n in names]
    right.legend(handles + steps, words + [h.get_label() for h in steps], fontsize=7, loc="upper left",
                 bbox_to_anchor=(1.0, 1.0), handlelength=1.2)
    fig.suptitle("E3: OpenEdge 12 server features, stacked")
    fig.tight_layout()
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/openedge/ladder.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
