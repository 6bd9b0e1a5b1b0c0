"""E3: per-user time at each ladder step - the mean over users and its
standard deviation across users (medians of the repeats; bars: the deviation's
min-max over the repeats).

    python figures/openedge_user_stddev.py results/tables/openedge/users.csv out.png out.pdf

Importable: `from figures.openedge_user_stddev import plot`.
"""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd

if __package__:
    from . import style
else:
    import style


def plot(users: pd.DataFrame):
    users = users.sort_values("step")
    x = np.arange(len(users))
    fig, (left, right) = style.figure(ncols=2, figsize=(9.0, 3.6))
    left.bar(x, users["user_mean_seconds"], color="#0072B2")
    left.set_xticks(x, users["name"])
    left.set_ylabel("mean time per user (s)")
    left.set_title("per-user time")
    sd = users["user_stddev_seconds"].to_numpy() * 1000
    errors = [sd - users["user_stddev_min"].to_numpy() * 1000, users["user_stddev_max"].to_numpy() * 1000 - sd]
    right.bar(x, sd, yerr=errors, color="#009E73", capsize=3)
    right.set_xticks(x, users["name"])
    right.set_ylabel("standard deviation across users (ms)")
    right.set_title("spread between users")
    first = users.iloc[0]
    users, servers = int(first["users"]), int(first["servers"])
    fig.suptitle(f"E3, {style.MODEL}: {users} user{'s' * (users != 1)} on {servers} server{'s' * (servers != 1)}")
    fig.tight_layout()
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "results/tables/openedge/users.csv", argv)


if __name__ == "__main__":
    sys.exit(main())
