"""Statistics: effect scales, the effects of two samples, samples paired by
repeat, and the percentile bootstrap interval at a level the caller gives.

The repeat is the unit: the configurations of one repeat run back to back,
so samples given as Series indexed by repeat (`by_repeat`) are aligned on the
repeats every arm has and resampled together (a paired bootstrap), and drift
of the machine between repeats stays out of the interval. Cells marked
`disturbed` (foreign load above workflows/claims/foreign_load.yaml's limit
after its reruns) are dropped first and counted.

Second link of the chain criteria -> stats -> outcome -> judge -> tables:
nothing here judges against a band.
"""
from __future__ import annotations

import inspect
import math
from statistics import NormalDist
from types import MappingProxyType
from typing import Callable, Sequence

import numpy as np

RESAMPLES = 4999
SEED = 20081  # any fixed number: the same data gives the same interval


def to_scale(x: float, scale: str) -> float:
    """x on `scale` (nan where x is outside the scale's domain: a ratio <= 0, a change <= -100%)."""
    if scale == "log":
        return math.log(x) if x > 0 else math.nan
    if scale == "log_pct":
        return math.log1p(x / 100.0) if x > -100.0 else math.nan
    return float(x)


def from_scale(y: float, scale: str) -> float:
    if scale == "log":
        return math.exp(y)
    if scale == "log_pct":
        return 100.0 * math.expm1(y)
    return float(y)


def z_of(confidence: float) -> float:
    """The two-sided normal quantile of a confidence level (1.96 at 95%)."""
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def _pct_change(a, b, axis=-1):
    return 100.0 * (np.median(a, axis=axis) / np.median(b, axis=axis) - 1.0)


EFFECTS = MappingProxyType({
    "ratio": lambda a, b, axis=-1: np.median(a, axis=axis) / np.median(b, axis=axis),
    "pct_change": _pct_change,
    "difference": lambda a, b, axis=-1: np.median(a, axis=axis) - np.median(b, axis=axis),
})


def median_effect(effect: str) -> Callable:
    """The statistic of two samples (treatment, reference), vectorised over `axis`."""
    if effect not in EFFECTS:
        raise ValueError(f"effect {effect!r}: a script-defined statistic needs evaluate_statistic")
    return EFFECTS[effect]


def median_over_cells(cell_statistic: Callable, arity: int = 2) -> Callable:
    """The statistic of several cells' samples (laid out cell after cell, `arity` samples each):
    the median over the cells of cell_statistic, so a claim judged at several cells has one
    effect and one interval."""
    def statistic(*samples, axis=-1):
        per_cell = [cell_statistic(*samples[i:i + arity], axis=axis) for i in range(0, len(samples), arity)]
        return np.median(np.stack(per_cell, axis=-1), axis=-1)

    return statistic


class Samples(list):
    """Arrays of one effect, aligned by repeat when `paired`, with what was dropped on the way."""

    paired: bool = False
    pairing: str = ""
    dropped: int = 0


def by_repeat(frame, column: str, repeat_column: str = "repeat"):
    """One sample for the paired bootstrap: `column` of a cell's rows as a Series indexed by
    repeat (the median where a repeat has several rows), disturbed rows left out. The number
    of disturbed rows dropped is in the Series' attrs["dropped"]."""
    import pandas as pd

    rows = frame
    dropped = 0
    if "disturbed" in rows.columns:
        disturbed = rows["disturbed"].astype(str).str.lower().isin(["true", "1", "yes"])
        dropped, rows = int(disturbed.sum()), rows[~disturbed]
    # The workflow's repeat is the one in the record's path (rep<r>): a `repeat` column can be
    # something else (E3's records number their passes within one repeat, every one 1).
    derived = repeat_of(rows)
    if (len(rows) and derived.notna().all()) or repeat_column not in rows.columns:
        rows = rows.assign(**{repeat_column: derived})
    if column not in rows.columns:
        series = pd.Series(dtype=float)
    elif rows[repeat_column].notna().all():
        series = rows.groupby(repeat_column)[column].median().astype(float)
    else:
        series = pd.Series(rows[column].to_numpy(dtype=float))
        series.attrs["unpaired"] = f"no {repeat_column} column"
    series.attrs["dropped"] = dropped
    return series


REPEAT_IN_PATH = r"(?:^|[/\\])rep(\d+)(?:[/\\]|$)"


def repeat_of(rows):
    """Each row's repeat where the rows carry none of their own: from `repeat_file` (rep<r>) or
    from the record's path (`source`, results/raw/<study>/rep<r>/...); NaN where neither says."""
    import pandas as pd

    for column in ("repeat_file", "source"):
        if column in rows.columns:
            found = ("/" + rows[column].astype(str) + "/").str.extract(REPEAT_IN_PATH)[0]
            if found.notna().all():
                return found.astype(int)
    return pd.Series(np.nan, index=rows.index)


def align(samples: Sequence) -> Samples:
    """The samples as arrays: aligned on the repeats every one of them has (a paired design)
    when each is a Series from by_repeat, else each on its own, saying why."""
    import pandas as pd

    dropped = sum(int(getattr(s, "attrs", {}).get("dropped", 0)) for s in samples)
    series = all(isinstance(s, pd.Series) and not s.attrs.get("unpaired") for s in samples)
    if series and samples:
        joined = pd.concat([s.rename(i) for i, s in enumerate(samples)], axis=1, join="inner").dropna()
        out = Samples(joined[i].to_numpy(dtype=float) for i in range(len(samples)))
        out.paired = len(samples) > 1
        out.pairing = (f"paired by repeat ({len(joined)} repeats in every arm)" if out.paired
                       else f"one sample ({len(joined)} repeats)")
    else:
        why = next((s.attrs["unpaired"] for s in samples if isinstance(s, pd.Series) and s.attrs.get("unpaired")),
                   "the samples carry no repeat")
        out = Samples(a[~np.isnan(a)] for a in (np.asarray(s, dtype=float) for s in samples))
        out.pairing = f"unpaired: {why}" if len(samples) > 1 else "one sample"
    out.dropped = dropped
    return out


def bootstrap_interval(samples: Sequence[np.ndarray], statistic: Callable, confidence: float,
                       seed: int = SEED, paired: bool = False) -> tuple[float, float]:
    """Percentile bootstrap interval of statistic(*samples) at `confidence` (the run's level:
    95%, or 1 - 0.05/L where the profile takes L looks). Paired: the repeats are resampled
    together (the same repeats drawn for every sample), so what one repeat shares across its
    arms (the machine's load at the time) cancels; else each sample on its own."""
    from scipy.stats import bootstrap

    # SciPy >= 1.15 takes a Generator as `rng`; older ones a seed as `random_state`.
    seeded = ({"rng": np.random.default_rng(seed)} if "rng" in inspect.signature(bootstrap).parameters
              else {"random_state": seed})
    result = bootstrap(tuple(samples), statistic, n_resamples=RESAMPLES, confidence_level=confidence,
                       method="percentile", vectorized=True, paired=paired and len(samples) > 1, **seeded)
    return float(result.confidence_interval.low), float(result.confidence_interval.high)
