"""Shared by the key_cache table and claim scripts: the article's numbers and
the relative gain of a segments value over segments off.

The article's numbers are read from workflows/data/key_cache_paper.yaml (the
one place they are written down); nothing here repeats them.
"""

from typing import Any

import pandas as pd
from script_common import load_paper, run_logged  # noqa: F401 (scripts call common.load_paper, common.run_logged)

OFF = 0
ARTICLE_SEGMENTS = (32, 64)
MACHINES = ("pitbull", "perro")



def paper_relative(paper: dict[str, Any]) -> pd.DataFrame:
    """machine, points, segments, threads, percent: every number of the article's tables."""
    rows = []
    for machine, entry in paper["machines"].items():
        for p_key, by_segments in entry["relative_percent"].items():
            for segments, by_threads in by_segments.items():
                for threads, percent in by_threads.items():
                    rows.append({"machine": machine, "points": int(str(p_key).lstrip("p")),
                                 "segments": int(segments), "threads": int(threads), "percent": float(percent)})
    return pd.DataFrame(rows)


def relative_gains(throughput: pd.DataFrame) -> pd.DataFrame:
    """segments, threads, points, percent: (median q/s with N segments / with segments off - 1) x 100."""
    off = throughput[throughput["segments"] == OFF].set_index(["threads", "points"])["qps_median"]
    on = throughput[throughput["segments"] != OFF].copy()
    base = on.set_index(["threads", "points"]).index.map(off)
    on["percent"] = (on["qps_median"].to_numpy() / base.to_numpy() - 1.0) * 100.0
    return on[["segments", "threads", "points", "percent"]].reset_index(drop=True)


