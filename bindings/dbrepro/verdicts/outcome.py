"""Outcomes: one quantity judged against its band, `yes`, `no` or
`inconclusive` (or `not judged` where the profile did not run for it).

A count (deterministic: instructions, hits, bytes) is compared with the band
exactly. A timed effect needs at least `min_repeats` repeats per sample; its
percentile bootstrap interval at the context's level is `yes` inside the
band, `no` wholly outside it, `inconclusive` where it straddles a bound or
the repeats are too few.

Third link of the chain criteria -> stats -> outcome -> judge -> tables.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .context import CONFIDENCE, DEFAULT, Context, level_text
from .criteria import BAND_KEYS, Criterion, band_text, inside
from .stats import align, bootstrap_interval, median_effect, median_over_cells

# "not judged": the profile did not run what the claim needs (fewer repeats planned than the
# criterion's min_repeats, or a cell only another profile runs). It is no verdict: the headline
# counts the judged findings apart from these, so a profile's design is not read as a failure.
NOT_JUDGED = "not judged"
VERDICTS = ("yes", "no", "inconclusive")
OUTCOMES = (*VERDICTS, NOT_JUDGED)
# The three kinds of interval a row can carry, each named alike everywhere (claims.md, findings.csv's
# `interval_kind`, the report, the paper): the repeats' own bootstrap interval; that interval widened by
# the between-run spread, which decides a timed verdict; and a count's range over its seeds.
WITHIN_RUN = "within-run CI"
RERUN = "rerun interval"
SEED_RANGE = "seed range"
# How evaluate_statistic and judge.across_seeds word an outcome left inconclusive for the run's size.
TOO_FEW_REPEATS = "the criterion needs"
TOO_FEW_SEEDS = "(min_seeds in the criteria file)"


@dataclass
class Outcome:
    """What the evaluator decided for one quantity."""

    reproduced: str
    value: float = math.nan  # the effect (count: the value)
    ci_low: float = math.nan
    ci_high: float = math.nan
    repeats: int | None = None  # repeats the effect rests on (paired: the repeats every arm has; None for a count)
    reason: str = ""  # why inconclusive or no, in words
    pairing: str = ""  # how the repeats were used: "paired by repeat", or why not
    cells_dropped: int = 0  # disturbed cells left out of the interval
    seeds: tuple = ()  # a count judged on several seeds: which (its interval is the range over them)
    within_low: float = math.nan  # widened for reruns (judge.widen_for_reruns): the repeats' own interval
    within_high: float = math.nan
    between_sd: float = math.nan  # the between-run spread (tau) it was widened by
    between_scale: str = ""  # the scale tau is on (criteria.EFFECT_SCALES: "log" for a ratio), "" where not widened
    look: int | None = None  # timed: the look its verdict comes from (sequential.yaml; 1 without extra looks)
    confidence: float = CONFIDENCE  # the level of its interval (the context's: 95%, or a look's)
    between_source: str = ""  # where tau came from (the kind and method it was estimated for, or the default)


def judge_interval(low: float, high: float, band: dict) -> str:
    """yes: [low, high] inside the band; no: wholly outside it; else inconclusive."""
    if math.isnan(low) or math.isnan(high):
        return "inconclusive"
    if inside(low, band) and inside(high, band):
        return "yes"
    below_band = high < band.get("min", -math.inf) or high <= band.get("above", -math.inf)
    above_band = low > band.get("max", math.inf) or low >= band.get("below", math.inf)
    return "no" if below_band or above_band else "inconclusive"


def evaluate_count(value: float, band: dict) -> Outcome:
    """Exact comparison of a deterministic count."""
    value = float(value)
    if math.isnan(value):
        return Outcome("inconclusive", reason="the count is missing from the runs")
    ok = inside(value, band)
    return Outcome("yes" if ok else "no", value, reason="" if ok else f"{value:g} is outside {band_text(band)}")


def evaluate_statistic(samples: Sequence, statistic: Callable, band: dict, min_repeats: int,
                       context: Context = DEFAULT) -> Outcome:
    """A timed effect: statistic(*samples, axis=-1) with its bootstrap CI at the context's level,
    judged against the band. Samples from by_repeat are paired by repeat; plain arrays are
    resampled each on its own."""
    arrays = align(samples)
    repeats = min((len(a) for a in arrays), default=0)
    value = float(statistic(*arrays, axis=-1)) if repeats else math.nan
    common = {"repeats": repeats, "pairing": arrays.pairing, "cells_dropped": arrays.dropped, "look": context.look,
              "confidence": context.confidence}
    if context.planned_repeats is not None and context.planned_repeats < min_repeats:
        return not_judged(f"this profile ({context.profile}) plans {context.planned_repeats} repeat(s); the "
                          f"criterion needs {min_repeats}", context.judged_by, value=value, **common)
    if repeats < min_repeats:
        return Outcome("inconclusive", value, reason=f"{repeats} repeat(s), fewer than the {min_repeats} "
                                                     f"{TOO_FEW_REPEATS}", **common)
    if not math.isfinite(value):
        return Outcome("inconclusive", value, reason="the effect is undefined (a zero median)", **common)
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = bootstrap_interval(arrays, statistic, context.confidence, paired=arrays.paired)
    verdict = judge_interval(low, high, band)
    level = level_text(context.confidence)
    reason = {
        "yes": "",
        "no": f"the {level} {WITHIN_RUN} [{low:.4g}, {high:.4g}] lies outside {band_text(band)}",
        "inconclusive": f"the {level} {WITHIN_RUN} [{low:.4g}, {high:.4g}] straddles {band_text(band)}",
    }[verdict]
    return Outcome(verdict, value, low, high, reason=reason, **common)


def evaluate_medians(treatment, reference, criterion: Criterion, context: Context = DEFAULT,
                     band: dict | None = None, effect: str | None = None) -> Outcome:
    """A timed two-sample effect (ratio, pct_change or difference of medians) against the criterion."""
    return evaluate_statistic([treatment, reference], median_effect(effect or criterion.effect),
                              band if band is not None else criterion.band, int(criterion.min_repeats), context)


def evaluate_cells(cells: Sequence[Sequence], criterion: Criterion, context: Context = DEFAULT,
                   cell_statistic: Callable | None = None, band: dict | None = None) -> Outcome:
    """A timed claim judged at several cells, combined as its criterion's `combine` says
    (`median`: the median over the cells of each cell's effect, one paired bootstrap over the
    repeats all cells share). Each cell is a sequence of samples (treatment, reference)."""
    rule = (criterion.get("combine") or {}).get("rule")
    if len(cells) > 1 and rule != "median":
        raise ValueError(f"{criterion.id}: a timed claim at {len(cells)} cells needs combine: {{rule: median}} "
                         "in its criterion")
    arity = len(cells[0]) if cells else 2
    statistic = median_over_cells(cell_statistic or median_effect(criterion.effect), arity)
    samples = [sample for cell in cells for sample in cell]
    return evaluate_statistic(samples, statistic, band if band is not None else criterion.band,
                              int(criterion.min_repeats), context)


def inconclusive(reason: str, repeats: int | None = None, value: float = math.nan) -> Outcome:
    return Outcome("inconclusive", value, repeats=repeats, reason=reason)


def not_judged(reason: str, judged_by: str = "", value: float = math.nan, **fields) -> Outcome:
    """The profile did not run what the claim needs (`reason`); `judged_by` names the profile(s) that do."""
    where = f"; judged by the {judged_by} profile" if judged_by else ""
    fields.pop("look", None)  # no verdict, so no look
    return Outcome(NOT_JUDGED, value, reason=f"not judged here: {reason}{where}", **fields)


def combine_counts(outcomes: Sequence[Outcome], criterion: Criterion, value: float = math.nan) -> Outcome:
    """Several deterministic cells of one count claim, combined as its criterion's `combine`
    says: `all` (every cell inside the band) or `share` (at least that share of the cells);
    a cell that could not be counted makes the claim inconclusive."""
    spec = criterion.get("combine") or {}
    rule = spec.get("rule")
    if rule not in ("all", "share"):
        raise ValueError(f"{criterion.id}: count cells need combine: {{rule: all}} or {{rule: share, share: x}}")
    verdicts = [o.reproduced for o in outcomes]
    reasons = "; ".join(dict.fromkeys(o.reason for o in outcomes if o.reason and o.reproduced != "yes"))
    if verdicts and all(v == NOT_JUDGED for v in verdicts):
        return Outcome(NOT_JUDGED, value, reason=reasons)
    if not verdicts or "inconclusive" in verdicts or NOT_JUDGED in verdicts:
        return Outcome("inconclusive", value, reason=reasons or "no cell counted")
    needed = 1.0 if rule == "all" else float(spec["share"])
    share = verdicts.count("yes") / len(verdicts)
    verdict = "yes" if share >= needed - 1e-12 else "no"
    reason = "" if verdict == "yes" else f"{verdicts.count('yes')} of {len(verdicts)} cells inside the band " \
                                         f"(needs {needed:.0%}): {reasons}"
    return Outcome(verdict, value, reason=reason)


def missing_columns(criterion: Criterion, columns) -> list[str]:
    """Columns the claim's mechanism needs (`requires`) that the runs lack."""
    return [name for name in criterion.get("requires", []) if name not in set(columns)]


def too_small_to_judge(reason: str) -> bool:
    """Whether an inconclusive outcome's reason is that the run had fewer repeats or seeds than
    the criterion needs (not that the interval straddled the band)."""
    return TOO_FEW_REPEATS in str(reason) or TOO_FEW_SEEDS in str(reason)


def far_beyond(outcome: Outcome, band: dict) -> str:
    """Where a one-sided band is passed by at least double its bound, say so: a bare `yes`
    would hide that ours is far from the original's number."""
    if outcome.reproduced != "yes" or not math.isfinite(outcome.value):
        return ""
    lower = [band[k] for k in ("min", "above") if k in band]
    upper = [band[k] for k in ("max", "below") if k in band]
    if lower and not upper and lower[0] > 0 and outcome.value >= 2 * lower[0]:
        return f"far beyond the original: {outcome.value / lower[0]:.1f}x the band's lower bound {lower[0]:g}"
    if upper and not lower and upper[0] < 0 and outcome.value <= 2 * upper[0]:
        return f"far beyond the original: {outcome.value / upper[0]:.1f}x the band's bound {upper[0]:g}"
    return ""


def precision_note(outcome: Outcome, band: dict) -> str:
    """For an interval that straddles its band: the half-width it reached beside the one the band
    needs (the effect's distance to its nearest bound), so a reader sees how far from a verdict."""
    if outcome.reproduced != "inconclusive" or not all(map(math.isfinite, (outcome.value, outcome.ci_low,
                                                                           outcome.ci_high))):
        return ""
    bounds = [band[k] for k in BAND_KEYS if k in band]
    if not bounds:
        return ""
    needed = min(abs(outcome.value - b) for b in bounds)
    reached = max(outcome.value - outcome.ci_low, outcome.ci_high - outcome.value)
    return f"precision reached +-{reached:.3g}, the band needs +-{needed:.3g}"


def number(value: float, digits: int = 1, suffix: str = "") -> str:
    """A number for `ours`: 'n/a' when missing."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:,.{digits}f}{suffix}"


def interval(outcome: Outcome, digits: int = 1, suffix: str = "") -> str:
    """' (95% within-run CI a..b)' when there is one, at the outcome's own level (a look's where the
    profile takes several): the repeats' own interval, as `ours` shows it."""
    if math.isnan(outcome.ci_low):
        return ""
    return (f" ({level_text(outcome.confidence)} {WITHIN_RUN} "
            f"{outcome.ci_low:,.{digits}f}..{outcome.ci_high:,.{digits}f}{suffix})")
