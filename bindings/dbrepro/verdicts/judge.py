"""Judging: a study's claims as rows (`ClaimResult`), counts judged on every
seed, each timed interval widened by the spread between runs that its own
repeats cannot see, findings decided at an earlier look kept, and
`judge_all`, the one step between a study's quantities and its tables.

Fourth link of the chain criteria -> stats -> outcome -> judge -> tables:
it decides every verdict; the tables only write them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Callable, Sequence

from .context import DEFAULT, Context, level_text
from .criteria import BETWEEN_RUNS_FILE, Criteria, Criterion, band_text, criterion_digest
from .outcome import (NOT_JUDGED, OUTCOMES, RERUN, TOO_FEW_SEEDS, WITHIN_RUN, Outcome, evaluate_count, far_beyond,
                      judge_interval, precision_note)
from .stats import from_scale, to_scale, z_of


def row_id(claim_id: str, variant: str = "", role: str = "finding") -> str:
    """A row's id: the claim's, and a check evaluated at several variants (E2's thread counts)
    keeps one id per variant (`id@variant`). The one place it is made."""
    return f"{claim_id}@{variant}" if variant and role == "check" else claim_id


def rounded_number(value: float):
    """A number to SIGNIFICANT digits (empty where missing)."""
    return "" if value is None or (isinstance(value, float) and not math.isfinite(value)) else \
        float(f"{value:.{SIGNIFICANT}g}")


SIGNIFICANT = 4  # the value and its interval rounded alike


@dataclass
class ClaimResult:
    """One row of claims.csv (tables.row_of), with the sentence claims.md adds for a claim not reproduced."""

    criterion: Criterion
    ours: str
    outcome: Outcome
    theirs: str | None = None  # default: the yaml's
    variant: str = ""  # a qualifier when a check is evaluated more than once (E4's schedulers)
    why: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def claim_id(self) -> str:
        return self.criterion.id

    @property
    def role(self) -> str:
        return self.criterion.role

    @property
    def row_id(self) -> str:
        return row_id(self.claim_id, self.variant, self.role)

    @property
    def text(self) -> str:
        return f"{self.variant}: {self.criterion.text}" if self.variant else self.criterion.text

    def explanation(self) -> str:
        parts = [p for p in (self.outcome.reason, self.why, far_beyond(self.outcome, self.criterion.band),
                             precision_note(self.outcome, self.criterion.band)) if p]
        return "; ".join(parts)



def across_seeds(per_seed: dict, min_seeds: int = 1) -> ClaimResult:
    """One count claim judged on several seeds ({seed: ClaimResult}, the seed shown first):
    a deterministic count is robust only if it holds on other inputs too. The row shows the
    first seed's result, its interval is the range of the value over the seeds, and it is
    `yes` only if every seed says yes, `no` only if every seed says no; seeds that disagree,
    or (for a finding) fewer than `min_seeds` (the criteria file's), make it `inconclusive`."""
    if not per_seed:
        raise ValueError("across_seeds: no seed")
    seeds = tuple(per_seed)
    first = per_seed[seeds[0]]
    if first.criterion.timed:
        raise ValueError(f"{first.claim_id}: across_seeds is for count claims; a timed claim pairs by repeat")
    values = [per_seed[s].outcome.value for s in seeds]
    finite = [v for v in values if math.isfinite(v)]
    low, high = (min(finite), max(finite)) if len(seeds) > 1 and finite else (math.nan, math.nan)
    verdicts = {s: per_seed[s].outcome.reproduced for s in seeds}
    kinds = set(verdicts.values())
    reasons = [per_seed[s].outcome.reason for s in seeds if per_seed[s].outcome.reason]
    if len(seeds) < min_seeds and first.role == "finding":
        verdict = "inconclusive"
        reason = (f"counted on {len(seeds)} seed(s) ({', '.join(map(str, seeds))}); a count finding needs "
                  f"{min_seeds} {TOO_FEW_SEEDS}")
    elif len(kinds) == 1:
        verdict = kinds.pop()
        reason = first.outcome.reason if verdict != "yes" else ""
        if verdict == "no" and len(seeds) > 1:
            reason = f"no on every seed ({', '.join(map(str, seeds))}); seed {seeds[0]}: {reason}"
    else:
        verdict = "inconclusive"
        groups = {k: [s for s in seeds if verdicts[s] == k] for k in OUTCOMES}
        reason = "the seeds disagree: " + "; ".join(
            f"{k} on seed{'s' if len(v) > 1 else ''} {', '.join(map(str, v))}" for k, v in groups.items() if v)
        reason += f" (range {rounded_number(low)}..{rounded_number(high)})"
        if reasons:
            reason += f"; {reasons[0]}"
    outcome = Outcome(verdict, first.outcome.value, low, high, reason=reason, seeds=seeds)
    ours = first.ours
    if len(seeds) > 1 and finite:
        ours += f" (seed {seeds[0]}; {len(seeds)} seeds: {rounded_number(low):g}..{rounded_number(high):g})"
    return ClaimResult(first.criterion, ours, outcome, theirs=first.theirs, variant=first.variant,
                       why=first.why if verdict == "no" else "", notes=list(first.notes))


def seeds_of(frame) -> set:
    """The seeds a frame's rows were counted on (its `seed` column), empty where it has none."""
    return {int(s) for s in frame["seed"].dropna().unique()} if "seed" in getattr(frame, "columns", ()) else set()


def judge_on_seeds(results: Sequence[ClaimResult], claims_of: Callable, seeds: Sequence,
                   min_seeds: int = 1) -> list[ClaimResult]:
    """`results` (every claim, judged on all the runs) with each count claim replaced by
    `across_seeds` over `claims_of(seed)` for every seed (the same claims, in the same
    order, judged on that seed's counts alone; None where that seed did not run what the
    claim counts). Timed claims stay as judged on all the runs: they pair by repeat."""
    lists = {seed: claims_of(seed) for seed in seeds}
    if any(len(found) != len(results) for found in lists.values()):
        raise ValueError("the seeds' claim lists differ from the runs'")
    out = []
    for n, result in enumerate(results):
        if result.criterion.timed:
            out.append(result)
            continue
        # None: that seed did not run what this claim counts (E5's scale sweep runs fewer seeds).
        same = {seed: found[n] for seed, found in lists.items() if found[n] is not None}
        if any(r.claim_id != result.claim_id or r.variant != result.variant for r in same.values()):
            raise ValueError(f"{result.claim_id}: the seeds' claim lists differ from the runs'")
        out.append(across_seeds(same, min_seeds) if same else result)
    return out


def count_result(criterion: Criterion, ours: str, value: float, why_not: str = "") -> ClaimResult:
    """A count claim: the exact comparison, and `why_not` (the computed reason) when it fails."""
    result = ClaimResult(criterion, ours, evaluate_count(value, criterion.band))
    if result.outcome.reproduced == "no":
        result.why = why_not
    return result


SCALE_WORDS = MappingProxyType({"linear": "", "log": " on the log of the ratio",
                                "log_pct": " on the log of 1 + change/100"})


def widen_for_reruns(results: Sequence[ClaimResult], criteria: Criteria,
                     context: Context = DEFAULT) -> list[ClaimResult]:
    """Each timed claim's interval widened by the spread between runs that its own repeats cannot
    see (tau, workflows/claims/between_runs.yaml, estimated from committed runs judged by the same
    criterion): each side's half-width h becomes sqrt(h^2 + (z tau)^2), z the context's level's
    normal quantile, on the estimate's scale (the log of a ratio, criteria.EFFECT_SCALES), so
    that the interval a run prints covers what a rerun on another machine of this kind measures.
    The spread is this kind of machine's, for the study's current method (`spread_for`): a verdict
    speaks for its kind. The verdict is judged again on the wider interval and may only weaken
    (yes or no to inconclusive), never strengthen. A claim with no estimate for its current
    criterion keeps its interval and says so."""
    out = []
    for result in results:
        o, c = result.outcome, result.criterion
        estimate = criteria.between_runs.get(result.row_id)
        if not c.timed or o.reproduced == NOT_JUDGED or not all(map(math.isfinite, (o.value, o.ci_low, o.ci_high))):
            out.append(result)
            continue
        spread, where = (None, "") if estimate is None else spread_for(estimate, context.kind, criteria.method)
        if spread is None or estimate["criterion_sha"] != criterion_digest(c.text_of_criterion()):
            o = replace(o, pairing=f"{o.pairing}; no between-run estimate for this criterion yet (the interval is "
                                   "the repeats' alone)")
            out.append(replace(result, outcome=o))
            continue
        out.append(replace(result, outcome=widened(o, c, {**spread, "scale": estimate.get("scale", "linear")},
                                                   where, context)))
    return out


def spread_for(estimate: dict, kind: str, method: str) -> tuple[dict | None, str]:
    """The between-run spread a run of `kind` is widened by, and where it comes from: its own kind's,
    estimated from at least two committed runs of that kind and the study's current method; else
    the stated default, the largest same-kind spread any kind has for the claim; never the spread
    across kinds; none where the estimate is of another method. (An estimate pooled over every kind,
    the file's form before issue 52: as it is.)"""
    if "kinds" not in estimate:
        return estimate, f"{estimate['runs']} runs, {estimate.get('source', BETWEEN_RUNS_FILE)}"
    if estimate.get("method") not in (None, method):
        return None, ""  # runs of another method (methods.yaml) say nothing of this one's spread
    own = (estimate.get("kinds") or {}).get(kind)
    if own is not None and int(own["runs"]) >= 2:
        return own, f"this kind's: {own['runs']} committed runs of {kind}, method {method}"
    default = estimate.get("default")
    if default is not None:
        return default, (f"no two committed runs of this kind and method yet, so the largest same-kind spread any "
                         f"kind has: {default['runs']} runs of {default['kind']}, method {method}")
    return None, ""


def widened(o: Outcome, c: Criterion, estimate: dict, where: str, context: Context) -> Outcome:
    """One timed outcome widened by one between-run estimate (`where`: whose it is), and judged again."""
    tau = float(estimate["tau"])
    scale = estimate.get("scale", "linear")
    value, own_low, own_high = (to_scale(x, scale) for x in (o.value, o.ci_low, o.ci_high))
    if not all(map(math.isfinite, (value, own_low, own_high))):  # outside the log's domain: as it is
        scale, value, own_low, own_high = "linear", o.value, o.ci_low, o.ci_high
    extra = (z_of(context.confidence) * tau) ** 2
    low = from_scale(value - math.sqrt((value - own_low) ** 2 + extra), scale)
    high = from_scale(value + math.sqrt((own_high - value) ** 2 + extra), scale)
    verdict = o.reproduced if judge_interval(low, high, c.band) == o.reproduced else "inconclusive"
    note = (f"widened for reruns: the repeats' interval [{o.ci_low:.4g}, {o.ci_high:.4g}] with the between-run "
            f"spread tau {tau:.4g}{SCALE_WORDS[scale]} ({where})")
    reason = o.reason
    if verdict != o.reproduced:
        reason = (f"the {level_text(context.confidence)} {RERUN} [{low:.4g}, {high:.4g}] straddles "
                  f"{band_text(c.band)} (within the run alone: {o.reproduced})")
    elif verdict != "yes":
        reason = reason.replace(f"{WITHIN_RUN} [{o.ci_low:.4g}, {o.ci_high:.4g}]", f"{RERUN} [{low:.4g}, {high:.4g}]")
    return replace(o, reproduced=verdict, ci_low=low, ci_high=high, reason=reason, within_low=o.ci_low,
                   within_high=o.ci_high, between_sd=tau, between_scale=scale, pairing=f"{o.pairing}; {note}",
                   between_source=where)


def keep_decided(results: Sequence[ClaimResult], context: Context) -> list[ClaimResult]:
    """A timed finding decided (yes or no) at an earlier look keeps that look's outcome
    (context.decided): the repeats added later for other findings of its grid do not reopen it.
    Every look's interval is at the same split level, so the earlier verdict is as covered as a
    later one would be (docs/verdicts.md)."""
    out = []
    for result in results:
        stored = context.decided.get(result.claim_id)
        if stored is None or result.role != "finding" or not result.criterion.timed:
            out.append(result)
            continue
        fields = {name: stored["outcome"][name] for name in Outcome.__dataclass_fields__ if name in stored["outcome"]}
        fields["seeds"] = tuple(fields.get("seeds") or ())
        for name in ("value", "ci_low", "ci_high", "within_low", "within_high", "between_sd"):
            fields[name] = math.nan if fields.get(name) is None else float(fields[name])
        fields["confidence"] = context.confidence  # every look's level is the same (the 5% split evenly)
        kept = Outcome(**fields)
        now = result.outcome
        note = (f"decided at look {kept.look} of at most {context.looks} ({kept.repeats} repeats); kept, as the "
                f"stopping rule has it (look {context.look} with {now.repeats} repeats read {now.reproduced})")
        out.append(replace(result, ours=stored.get("ours", result.ours),
                           outcome=replace(kept, pairing=f"{kept.pairing}; {note}")))
    return out


def judge_all(results: Sequence[ClaimResult], criteria: Criteria, context: Context) -> list[ClaimResult]:
    """A study's claims, each evaluated on the run's own repeats, made final: checked against the
    criteria file (every claim known, each finding once), findings first, every timed interval
    widened for reruns, findings decided at an earlier look kept. What the tables then write."""
    unknown = {r.claim_id for r in results} - set(criteria.claims)
    if unknown:
        raise ValueError(f"claims not in workflows/claims/{criteria.study}.yaml: {sorted(unknown)}")
    findings = [r.claim_id for r in results if r.role == "finding"]
    twice = sorted({f for f in findings if findings.count(f) > 1})
    if twice:
        raise ValueError(f"findings judged more than once (one row each, cells combined by the criterion): {twice}")
    ordered = [r for r in results if r.role == "finding"] + [r for r in results if r.role == "check"]
    return keep_decided(widen_for_reruns(ordered, criteria, context), context)
