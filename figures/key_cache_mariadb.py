"""The real MariaDB's throughput with 32 and 64 key-cache segments relative to
segments off, per thread count (P = 10 where run), with its 95% bootstrap
intervals, beside the model's gain and the original's (the article's) pitbull and perro, points drawn
as the article's (special).

    python figures/key_cache_mariadb.py results/tables/key_cache/mariadb_gains.csv out.png out.pdf

Importable: `from figures.key_cache_mariadb import plot`.
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

if __package__:
    from . import style
else:
    import style

SEGMENTS = {32: {"alpha": 0.6, "offset": -0.04}, 64: {"alpha": 1.0, "offset": 0.04}}
REAL = style.real("MariaDB")
LINES = {
    "model_gain": {"color": "#56B4E9", "marker": "D", "linestyle": "-.", "label": style.MODEL},
    "pitbull": {"color": "#D55E00", "marker": "s", "linestyle": "--",
                "label": style.original(style.ARTICLE_MACHINES["pitbull"])},
    "perro": {"color": "#009E73", "marker": "^", "linestyle": ":",
              "label": style.original(style.ARTICLE_MACHINES["perro"])},
}


def plot(gains: pd.DataFrame):
    gains = style.article_distribution(gains)  # the article's draw; the other is in the tables
    points = 10 if 10 in set(gains["points"]) else int(gains["points"].min())
    table = gains[(gains["points"] == points) & gains["segments"].isin(SEGMENTS)].sort_values("threads")
    fig, ax = style.figure(figsize=(7.5, 5.4), layout="constrained")
    for segments, look in SEGMENTS.items():
        rows = table[table["segments"] == segments]
        if rows.empty:
            continue
        # Spread the two segment counts a little along the log axis so their intervals do not overlap.
        x = rows["threads"].to_numpy(dtype=float) * 2 ** look["offset"]
        y = rows["mariadb_gain"].to_numpy(dtype=float)
        low, high = rows["ci_low"].to_numpy(dtype=float), rows["ci_high"].to_numpy(dtype=float)
        errors = np.vstack([y - low, high - y])
        ax.errorbar(x, y, yerr=np.where(np.isfinite(errors), errors, 0), color="#0072B2", marker="o", capsize=3,
                    alpha=look["alpha"], label=f"{REAL}, {segments} segments (95% CI)")
        for column, line in LINES.items():
            values = rows[column].to_numpy(dtype=float)
            if np.isfinite(values).any():
                ax.plot(rows["threads"], values, alpha=look["alpha"], color=line["color"], marker=line["marker"],
                        linestyle=line["linestyle"], label=f"{line['label']}, {segments} segments")
    ax.axhline(0, color="#888888", linewidth=0.8)
    ax.set_xscale("log", base=2)
    ticks = sorted(int(t) for t in table["threads"].unique())
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.set_xlabel(style.LABELS["threads"])
    ax.set_ylabel("throughput vs segments off (%)")
    load = table["loadavg_1m_median"].median() if "loadavg_1m_median" in table else float("nan")
    ax.set_title(f"Real MariaDB key cache, select_random_points P = {points} (load average {load:.1f})\n"
                 f"{style.distribution_title(style.ARTICLE_DISTRIBUTION)}", fontsize=9)
    # Below the axes (the article's labels are long), the real system first, then the model, then the original.
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: (not labels[i].startswith("real"),
                                                      not labels[i].startswith(style.MODEL), i))
    fig.legend([handles[i] for i in order], [labels[i] for i in order], fontsize=6, ncol=2,
               loc="outside lower center")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/key_cache/mariadb_gains.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
