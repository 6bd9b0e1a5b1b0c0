"""Repeats where a verdict is still open (issue 40, item 6): the plan a profile declares in
workflows/claims/sequential.yaml, the makeups of repeats with a disturbed cell, and the
decision a look makes.

A look judges a study's claims on the repeats run so far, every interval at the split level
1 - 0.05/L (L: the profile's maximum number of looks, Bonferroni). A timed finding decided
there (yes or no) stays decided; one whose interval still straddles its band (or that has
too few repeats) is open, and the grids it reads get `repeats_per_look` more repeats before
the next look, unless the profile's time for extra repeats would be passed. A finding that
the next look's repeats cannot be expected to decide is left open without spending on them:
its interval's between-run part alone (z tau) reaches the band, or the half-width it would
have with them (its repeats' part shrinking as 1 / sqrt(repeats), the between-run part as it
is) still does. Both on the scale its tau is on (the log of a ratio: dbrepro.verdicts.
EFFECT_SCALES). Leaving a finding open never changes a look's level (Bonferroni over the
planned looks holds whichever are taken); it only keeps the time for findings it can close.

The workflow (workflows/sequential.smk) runs this through two checkpoints:
sequential_makeups.py and sequential_look.py.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

from dbrepro import yaml_text


CRITERIA = Path(__file__).resolve().parents[1] / "claims" / "sequential.yaml"
RULES = ("bonferroni",)


@dataclass(frozen=True)
class Plan:
    """One profile's sequential plan (zero everywhere: the workflow as before the file)."""

    profile: str
    extra_looks: int = 0
    repeats_per_look: int = 0
    max_makeups: int = 0
    max_extra_seconds: float = 0.0
    confidence: float = 0.95  # overall, across every look

    @property
    def looks(self) -> int:
        """L: the most looks a run takes, the first (after the planned repeats) included."""
        return 1 + self.extra_looks

    @property
    def alpha_per_look(self) -> float:
        return (1.0 - self.confidence) / self.looks

    @property
    def confidence_per_look(self) -> float:
        return 1.0 - self.alpha_per_look

    @property
    def active(self) -> bool:
        """Whether the run's graph has a checkpoint at all (extra looks or makeups)."""
        return self.extra_looks > 0 or self.max_makeups > 0


def _count(value, name: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{where}: {name} must be an integer >= 0, got {value!r}")
    return value


def load_plan(profile: str, path: str | os.PathLike = CRITERIA) -> Plan:
    """The profile's plan from the criteria file, checked; a profile the file does not name plans nothing."""
    data = yaml_text.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    if data.get("rule") not in RULES:
        raise ValueError(f"{path}: rule {data.get('rule')!r} (allowed: {', '.join(RULES)})")
    confidence = data.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 < confidence < 1:
        raise ValueError(f"{path}: confidence must be in (0, 1), got {confidence!r}")
    spec = (data.get("profiles") or {}).get(profile)
    if spec is None:
        return Plan(profile, confidence=float(confidence))
    where = f"{path}: {profile}"
    looks, per_look = _count(spec.get("extra_looks"), "extra_looks", where), _count(
        spec.get("repeats_per_look"), "repeats_per_look", where)
    if looks and not per_look:
        raise ValueError(f"{where}: extra looks need repeats_per_look >= 1")
    seconds = spec.get("max_extra_seconds", 0)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds < 0:
        raise ValueError(f"{where}: max_extra_seconds must be a number >= 0, got {seconds!r}")
    return Plan(profile, looks, per_look, _count(spec.get("max_makeups"), "max_makeups", where), float(seconds),
                float(confidence))


# ---------------------------------------------------------------------------
# Makeups


def disturbed(record) -> bool:
    """Whether a raw record holds a cell still disturbed after its reruns (a `disturbed: true`
    anywhere in it: a cell's dict, a run's host dict, a duet's arm)."""
    if isinstance(record, dict):
        if record.get("disturbed") is True:
            return True
        return any(disturbed(value) for value in record.values())
    if isinstance(record, list):
        return any(disturbed(value) for value in record)
    return False


def disturbed_repeats(paths_by_repeat: dict[int, list[str]]) -> list[int]:
    """The repeats whose records hold a disturbed cell."""
    found = []
    for rep, paths in sorted(paths_by_repeat.items()):
        for path in paths:
            if disturbed(json.loads(Path(path).read_text(encoding="utf-8"))):
                found.append(int(rep))
                break
    return found


def makeups_record(paths_by_repeat: dict[int, list[str]], plan: Plan) -> dict:
    """What the makeup checkpoint writes: the disturbed repeats and how many are made up."""
    found = disturbed_repeats(paths_by_repeat)
    return {"disturbed_repeats": found, "makeups": min(len(found), plan.max_makeups),
            "max_makeups": plan.max_makeups}


# ---------------------------------------------------------------------------
# Looks


def seconds_per_repeat(paths_by_repeat: dict[int, list[str]]) -> float | None:
    """A grid's time per repeat from its records' times: the median gap between the last
    record of one repeat and the last of the next (each repeat waits for the previous one);
    None where fewer than two repeats are on disk."""
    ends = []
    for rep in sorted(paths_by_repeat):
        times = [os.path.getmtime(p) for p in paths_by_repeat[rep] if os.path.exists(p)]
        if times:
            ends.append(max(times))
    gaps = sorted(b - a for a, b in zip(ends, ends[1:]) if b >= a)
    if not gaps:
        return None
    middle = len(gaps) // 2
    return gaps[middle] if len(gaps) % 2 else (gaps[middle - 1] + gaps[middle]) / 2


def _finite(value) -> bool:
    return value is not None and isinstance(value, (int, float)) and math.isfinite(value)


def open_reason(entry: dict, confidence: float, more_repeats: int = 0) -> tuple[bool, str]:
    """Whether one claim (an entry of write_claims' outcomes) is open: a timed finding, inconclusive
    because its interval straddles the band or its repeats are too few, that `more_repeats` more
    repeats can be expected to decide: neither its between-run part alone nor the half-width it
    would have with them reaches the band (0 more: the between-run part only). The reason in words."""
    from dbrepro.verdicts.judge import SCALE_WORDS
    from dbrepro.verdicts.outcome import too_small_to_judge
    from dbrepro.verdicts.stats import to_scale, z_of

    outcome = entry["outcome"]
    if entry["role"] != "finding" or not entry["timed"]:
        return False, "not a timed finding"
    if outcome["reproduced"] != "inconclusive":
        return False, outcome["reproduced"]
    reason = str(outcome.get("reason", ""))
    too_few = too_small_to_judge(reason)  # no interval to project: more repeats are what it needs
    if not ("straddles" in reason or too_few):
        return False, f"inconclusive for a reason repeats cannot change: {reason}"
    tau, value = outcome.get("between_sd"), outcome.get("value")
    tau = float(tau) if _finite(tau) else 0.0
    scale = outcome.get("between_scale") or "linear"
    bounds = [entry["band"][k] for k in ("min", "max", "above", "below") if k in entry["band"]]
    if not (_finite(value) and bounds):
        return True, reason
    at = lambda x: to_scale(float(x), scale)
    if not all(math.isfinite(at(x)) for x in [value, *bounds]):
        scale, at = "linear", float
    nearest = min(bounds, key=lambda b: abs(at(value) - at(b)))
    needed = abs(at(value) - at(nearest))
    words = SCALE_WORDS[scale]
    floor = z_of(confidence) * tau
    if floor >= needed:
        return False, (f"more repeats cannot decide it: the between-run part of its interval alone "
                       f"(+-{floor:.3g}{words}) reaches the band ({needed:.3g} away)")
    low = outcome.get("within_low") if _finite(outcome.get("within_low")) else outcome.get("ci_low")
    high = outcome.get("within_high") if _finite(outcome.get("within_high")) else outcome.get("ci_high")
    repeats = outcome.get("repeats")
    if more_repeats > 0 and not too_few and _finite(low) and _finite(high) and _finite(repeats) and repeats > 0:
        own = (at(value) - at(low)) if at(nearest) < at(value) else (at(high) - at(value))
        if math.isfinite(own) and own > 0:
            expected = math.hypot(own * math.sqrt(repeats / (repeats + more_repeats)), floor)
            if expected >= needed:
                return False, (f"{more_repeats} more repeats cannot be expected to decide it: with them its "
                               f"half-width would be about +-{expected:.3g}{words}, the band is {needed:.3g} away")
    return True, reason


def decide_look(look: int, plan: Plan, outcomes: dict, previous: dict | None, grids: dict[str, list | None],
                seconds: dict[str, float | None], repeats: dict[str, int]) -> dict:
    """The record of look `look` (1 = after the planned repeats and makeups).

    outcomes: write_claims' outcomes of this look ({row id: {role, timed, band, ours, outcome}});
    previous: the last look's record (None at look 1); grids: {grid: the findings it serves, None
    for every timed finding of the study}; seconds: each grid's time per repeat (None: unknown);
    repeats: each grid's repeats at this look. A finding decided at an earlier look stays decided;
    an open finding's grids get `repeats_per_look` more repeats while a later look is left and the
    profile's max_extra_seconds allows."""
    previous = previous or {}
    decided = dict(previous.get("decided") or {})
    for row_id, entry in outcomes.items():
        if (entry["role"] == "finding" and entry["timed"] and row_id not in decided
                and entry["outcome"]["reproduced"] in ("yes", "no")):
            decided[row_id] = {"look": look, "ours": entry.get("ours", ""), "outcome": entry["outcome"]}
    open_ids, closed = [], {}
    for row_id, entry in sorted(outcomes.items()):
        if row_id in decided:
            continue
        is_open, why = open_reason(entry, plan.confidence_per_look,
                                   plan.repeats_per_look if look < plan.looks else 0)
        if is_open:
            open_ids.append(row_id)
        elif entry["role"] == "finding" and entry["timed"]:
            closed[row_id] = why
    spent = float(previous.get("spent_seconds", 0.0))
    extend, skipped = {}, {}
    if look < plan.looks:
        left = plan.max_extra_seconds - spent
        for grid, serves in sorted(grids.items()):
            wanted = [f for f in open_ids if serves is None or f in serves]
            if not wanted:
                continue
            cost = plan.repeats_per_look * (seconds.get(grid) or 0.0)
            if cost > left:
                skipped[grid] = (f"{plan.repeats_per_look} more repeats take about {cost:.0f} s, more than the "
                                 f"{max(left, 0):.0f} s left of max_extra_seconds ({plan.max_extra_seconds:g} s)")
                continue
            extend[grid] = plan.repeats_per_look
            left -= cost
            spent += cost
    return {"look": look, "looks": plan.looks, "confidence": plan.confidence_per_look,
            "alpha_per_look": plan.alpha_per_look, "repeats": dict(repeats), "decided": decided, "open": open_ids,
            "left_open": closed, "extend": extend, "skipped": skipped, "spent_seconds": round(spent, 3),
            "extended_before": {g: int(n) for g, n in (previous.get("extended_total") or {}).items()},
            "extended_total": {g: int((previous.get("extended_total") or {}).get(g, 0)) + extend.get(g, 0)
                               for g in grids}}


def judging_params(plan: Plan, look: int, previous_look: str = "", makeups: dict | None = None,
                   outcomes_out: str = "") -> dict:
    """The sequential part of the claims rule's `judging` params (dbrepro.verdicts.Context.from_judging)."""
    if not plan.active:
        return {}
    return {"confidence": plan.confidence_per_look, "look": look, "looks": plan.looks,
            "previous_look": previous_look, "makeups": makeups or {}, "outcomes_out": outcomes_out}
