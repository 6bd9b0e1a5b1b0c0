"""The claims evaluator shared by every study: criteria from
workflows/claims/<study>.yaml, effects with bootstrap confidence intervals,
three outcomes, and the one writer of claims.csv and claims.md.

A `count` claim (deterministic: instructions, hits, bytes) compares its value
with the band exactly: `yes` inside, `no` outside. A `timed` claim needs at
least `min_repeats` repeats per sample; its effect (a ratio or difference of
medians, or a statistic the study's script defines over several samples) gets
a 95% percentile bootstrap interval (scipy.stats.bootstrap, a fixed seed so a
rerun on the same data gives the same interval): `yes` when the interval lies
inside the band, `no` when it lies wholly outside, `inconclusive` when it
straddles a bound or the repeats are too few.

The criteria live only in the yaml; a script computes the quantity.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import yaml

CLAIM_COLUMNS = ["claim", "ours", "theirs", "reproduced", "ci_low", "ci_high", "repeats", "mechanism", "criterion"]
OUTCOMES = ("yes", "no", "inconclusive")
CRITERIA_DIR = Path(__file__).resolve().parents[1] / "claims"
REQUIRED_FIELDS = ("id", "text", "theirs", "source", "quantity", "direction", "band", "why_band", "kind", "mechanism")
BAND_KEYS = ("min", "max", "above", "below")
CONFIDENCE = 0.95
RESAMPLES = 4999
SEED = 20081  # any fixed number: the same data gives the same interval


# ---------------------------------------------------------------------------
# Criteria


def criteria_path(study: str) -> Path:
    return CRITERIA_DIR / f"{study}.yaml"


@dataclass
class Criterion:
    """One claim's criterion, as written in the study's yaml."""

    spec: dict

    def __getattr__(self, name):
        try:
            return self.__dict__["spec"][name]
        except KeyError as missing:
            raise AttributeError(name) from missing

    @property
    def timed(self) -> bool:
        return self.spec["kind"] == "timed"

    def get(self, name, default=None):
        return self.spec.get(name, default)

    def band_text(self, band: dict | None = None) -> str:
        return band_text(band if band is not None else self.spec["band"])

    def text_of_criterion(self) -> str:
        """claims.csv's `criterion`: the quantity, the band, and how it is judged."""
        if self.timed:
            how = (f"95% bootstrap CI of the {self.spec.get('effect', 'effect')} inside {self.band_text()}, "
                   f">= {self.spec['min_repeats']} repeats")
        else:
            how = f"exact value inside {self.band_text()}"
        text = f"{self.spec['quantity']}: {how}"
        saved = self.spec.get("work_saved")
        if saved:
            text += f"; and the {saved['column']} change inside {band_text(saved['band'])}"
        return text


@dataclass
class Criteria:
    study: str
    title: str
    paper_values: str
    claims: dict[str, Criterion]
    scope: dict = field(default_factory=dict)  # which runs the claims judge (the file's optional `scope`)
    attribution: dict = field(default_factory=dict)  # how claims.md names a mechanism (optional `attribution`)

    def __getitem__(self, claim_id: str) -> Criterion:
        return self.claims[claim_id]


REPO = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.]+)(:[^}]*)?\}")


def paper_value(paper: dict, dotted: str):
    """A number of the paper-values file by its dotted path (list items and integer keys by number)."""
    node = paper
    for part in dotted.split("."):
        if isinstance(node, list):
            node = node[int(part)]
        elif part in node:
            node = node[part]
        elif part.lstrip("-").isdigit() and int(part) in node:
            node = node[int(part)]
        else:
            raise KeyError(f"{dotted}: no {part!r} in the paper-values file")
    return node


def resolve_theirs(template: str, paper: dict) -> str:
    """`theirs` with each {dotted.path[:format]} replaced by that number of the paper-values file,
    so the original's numbers are written once, there."""
    def value(match):
        found = paper_value(paper, match.group(1))
        return format(found, match.group(2)[1:]) if match.group(2) else str(found)

    return PLACEHOLDER.sub(value, template)


def load_criteria(path_or_study) -> Criteria:
    """A study's criteria file (a path, or a study name under workflows/claims/), checked."""
    path = Path(path_or_study)
    if not path.suffix:
        path = criteria_path(str(path_or_study))
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    paper = yaml.safe_load((REPO / data["paper_values"]).read_text(encoding="utf-8"))
    claims: dict[str, Criterion] = {}
    for spec in data["claims"]:
        missing = [name for name in REQUIRED_FIELDS if name not in spec]
        if missing:
            raise ValueError(f"{path}: claim {spec.get('id', '?')} lacks {missing}")
        if spec["id"] in claims:
            raise ValueError(f"{path}: claim {spec['id']} twice")
        check_band(spec["band"], f"{path}: {spec['id']}")
        if spec["kind"] == "timed":
            if int(spec.get("min_repeats", 0)) < 5 or "effect" not in spec:
                raise ValueError(f"{path}: timed claim {spec['id']} needs an effect and min_repeats >= 5")
        elif spec["kind"] != "count":
            raise ValueError(f"{path}: claim {spec['id']}: kind {spec['kind']!r} is neither count nor timed")
        spec = {**spec, "theirs": resolve_theirs(str(spec["theirs"]), paper)}
        claims[spec["id"]] = Criterion(spec)
    return Criteria(data["study"], data.get("title", data["study"]), data["paper_values"], claims,
                    dict(data.get("scope") or {}), dict(data.get("attribution") or {}))


def check_band(band: dict, where: str) -> None:
    unknown = set(band) - set(BAND_KEYS)
    if unknown or not band:
        raise ValueError(f"{where}: band {band} (keys: {', '.join(BAND_KEYS)})")


def band_text(band: dict) -> str:
    parts = []
    for key, sign in (("min", ">="), ("above", ">"), ("max", "<="), ("below", "<")):
        if key in band:
            parts.append(f"{sign} {band[key]:g}")
    return " and ".join(parts)


def _inside(value: float, band: dict) -> bool:
    return (value >= band.get("min", -math.inf) and value > band.get("above", -math.inf)
            and value <= band.get("max", math.inf) and value < band.get("below", math.inf))


def judge_interval(low: float, high: float, band: dict) -> str:
    """yes: [low, high] inside the band; no: wholly outside it; else inconclusive."""
    if math.isnan(low) or math.isnan(high):
        return "inconclusive"
    if _inside(low, band) and _inside(high, band):
        return "yes"
    below_band = high < band.get("min", -math.inf) or high <= band.get("above", -math.inf)
    above_band = low > band.get("max", math.inf) or low >= band.get("below", math.inf)
    return "no" if below_band or above_band else "inconclusive"


# ---------------------------------------------------------------------------
# Outcomes


@dataclass
class Outcome:
    """What the evaluator decided for one quantity."""

    reproduced: str
    value: float = math.nan  # the effect (count: the value)
    ci_low: float = math.nan
    ci_high: float = math.nan
    repeats: int | None = None  # fewest repeats of any sample (None for a count)
    reason: str = ""  # why inconclusive or no, in words


def evaluate_count(value: float, band: dict) -> Outcome:
    """Exact comparison of a deterministic count."""
    value = float(value)
    if math.isnan(value):
        return Outcome("inconclusive", reason="the count is missing from the runs")
    inside = _inside(value, band)
    return Outcome("yes" if inside else "no", value, reason="" if inside else f"{value:g} is outside {band_text(band)}")


def median_effect(effect: str) -> Callable:
    """The statistic of two samples (treatment, reference), vectorised over `axis`."""
    def ratio(a, b, axis=-1):
        return np.median(a, axis=axis) / np.median(b, axis=axis)

    def pct_change(a, b, axis=-1):
        return 100.0 * (np.median(a, axis=axis) / np.median(b, axis=axis) - 1.0)

    def difference(a, b, axis=-1):
        return np.median(a, axis=axis) - np.median(b, axis=axis)

    statistics = {"ratio": ratio, "pct_change": pct_change, "difference": difference}
    if effect not in statistics:
        raise ValueError(f"effect {effect!r}: a script-defined statistic needs evaluate_statistic")
    return statistics[effect]


def bootstrap_interval(samples: Sequence[np.ndarray], statistic: Callable, seed: int = SEED) -> tuple[float, float]:
    """95% percentile bootstrap interval of statistic(*samples), each sample resampled on its own."""
    from scipy.stats import bootstrap

    import inspect

    # SciPy >= 1.15 takes a Generator as `rng`; older ones a seed as `random_state`.
    seeded = ({"rng": np.random.default_rng(seed)} if "rng" in inspect.signature(bootstrap).parameters
              else {"random_state": seed})
    result = bootstrap(tuple(samples), statistic, n_resamples=RESAMPLES, confidence_level=CONFIDENCE,
                       method="percentile", vectorized=True, paired=False, **seeded)
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def evaluate_statistic(samples: Sequence, statistic: Callable, band: dict, min_repeats: int) -> Outcome:
    """A timed effect: statistic(*samples, axis=-1) with its bootstrap CI, judged against the band."""
    arrays = [np.asarray(s, dtype=float) for s in samples]
    arrays = [a[~np.isnan(a)] for a in arrays]
    repeats = min((len(a) for a in arrays), default=0)
    value = float(statistic(*arrays, axis=-1)) if repeats else math.nan
    if repeats < min_repeats:
        return Outcome("inconclusive", value, repeats=repeats,
                       reason=f"{repeats} repeat(s), fewer than the {min_repeats} the criterion needs")
    if not math.isfinite(value):
        return Outcome("inconclusive", value, repeats=repeats, reason="the effect is undefined (a zero median)")
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = bootstrap_interval(arrays, statistic)
    verdict = judge_interval(low, high, band)
    reason = {
        "yes": "",
        "no": f"the 95% CI [{low:.4g}, {high:.4g}] lies outside {band_text(band)}",
        "inconclusive": f"the 95% CI [{low:.4g}, {high:.4g}] straddles {band_text(band)}",
    }[verdict]
    return Outcome(verdict, value, low, high, repeats, reason)


def evaluate_medians(treatment, reference, criterion: Criterion, band: dict | None = None,
                     effect: str | None = None) -> Outcome:
    """A timed two-sample effect (ratio, pct_change or difference of medians) against the criterion."""
    return evaluate_statistic([treatment, reference], median_effect(effect or criterion.effect),
                              band if band is not None else criterion.band, int(criterion.min_repeats))


def inconclusive(reason: str, repeats: int | None = None, value: float = math.nan) -> Outcome:
    return Outcome("inconclusive", value, repeats=repeats, reason=reason)


def combine(outcomes: Sequence[Outcome]) -> Outcome:
    """Several cells of one claim: yes if every one is, no if any is, else inconclusive.
    The interval reported is the envelope of the cells' intervals."""
    verdicts = [o.reproduced for o in outcomes]
    verdict = "yes" if verdicts and all(v == "yes" for v in verdicts) else (
        "no" if "no" in verdicts else "inconclusive")
    lows = [o.ci_low for o in outcomes if not math.isnan(o.ci_low)]
    highs = [o.ci_high for o in outcomes if not math.isnan(o.ci_high)]
    repeats = [o.repeats for o in outcomes if o.repeats is not None]
    reasons = [o.reason for o in outcomes if o.reason and o.reproduced != "yes"]
    return Outcome(verdict, math.nan, min(lows, default=math.nan), max(highs, default=math.nan),
                   min(repeats, default=None), "; ".join(dict.fromkeys(reasons)))


def missing_columns(criterion: Criterion, columns) -> list[str]:
    """Columns the claim's mechanism needs (`requires`) that the runs lack."""
    return [name for name in criterion.get("requires", []) if name not in set(columns)]


# ---------------------------------------------------------------------------
# Rows and the writer


@dataclass
class ClaimResult:
    """One row of claims.csv, with the sentence claims.md adds for a claim not reproduced."""

    criterion: Criterion
    ours: str
    outcome: Outcome
    theirs: str | None = None  # default: the yaml's
    variant: str = ""  # a qualifier when one criterion is evaluated more than once (E4's schedulers)
    why: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def claim_id(self) -> str:
        return self.criterion.id

    @property
    def text(self) -> str:
        return f"{self.variant}: {self.criterion.text}" if self.variant else self.criterion.text

    def row(self) -> dict:
        o = self.outcome
        return {
            "claim": self.text, "ours": self.ours,
            "theirs": self.theirs if self.theirs is not None else self.criterion.theirs,
            "reproduced": o.reproduced,
            "ci_low": _number(o.ci_low), "ci_high": _number(o.ci_high),
            "repeats": "" if o.repeats is None else int(o.repeats),
            "mechanism": self.criterion.mechanism, "criterion": self.criterion.text_of_criterion(),
        }

    def explanation(self) -> str:
        parts = [p for p in (self.outcome.reason, self.why) if p]
        return "; ".join(parts)


def count_result(criterion: Criterion, ours: str, value: float, why_not: str = "") -> ClaimResult:
    """A count claim: the exact comparison, and `why_not` (the computed reason) when it fails."""
    result = ClaimResult(criterion, ours, evaluate_count(value, criterion.band))
    if result.outcome.reproduced == "no":
        result.why = why_not
    return result


def _number(value: float):
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else float(f"{value:.6g}")


def claims_frame(results: Sequence[ClaimResult]):
    import pandas as pd

    frame = pd.DataFrame([r.row() for r in results], columns=CLAIM_COLUMNS)
    if not frame["reproduced"].isin(OUTCOMES).all():
        raise ValueError(f"outcomes outside {OUTCOMES}: {sorted(set(frame['reproduced']))}")
    return frame


def counts(results_or_frame) -> dict[str, int]:
    """How many claims are yes, no and inconclusive."""
    column = (results_or_frame["reproduced"] if hasattr(results_or_frame, "columns")
              else [r.outcome.reproduced for r in results_or_frame])
    values = list(column)
    return {outcome: values.count(outcome) for outcome in OUTCOMES}


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def claims_markdown(results: Sequence[ClaimResult], criteria: Criteria, preamble: str = "") -> str:
    """claims.md: the table, each claim's criterion and source, and why the others differ."""
    found = counts(results)
    lines = [f"# {criteria.title}", ""]
    if preamble:
        lines += [preamble, ""]
    lines += [f"{found['yes']} yes, {found['no']} no, {found['inconclusive']} inconclusive of {len(results)} claims. "
              f"Criteria: `workflows/claims/{criteria.study}.yaml` (fixed before the data); the original's numbers: "
              f"`{criteria.paper_values}`.", ""]
    shown = ["claim", "ours", "theirs", "reproduced", "ci_low", "ci_high", "repeats"]
    lines += ["| " + " | ".join(shown) + " |", "|" + "---|" * len(shown)]
    for result in results:
        row = result.row()
        lines.append("| " + " | ".join(_cell(row[c]) for c in shown) + " |")
    lines += ["", "## Criteria", ""]
    for n, result in enumerate(results, 1):
        c = result.criterion
        lines.append(f"{n}. **{result.text}** ({c.kind}; source: {c.source}): {c.text_of_criterion()}. "
                     f"Why this band: {c.why_band}. Mechanism: {c.mechanism}.")
    differ = [(n, r) for n, r in enumerate(results, 1) if r.outcome.reproduced != "yes"]
    lines += ["", "## Not reproduced or inconclusive", ""]
    if differ:
        lines += [f"{n}. **{r.text}** ({r.outcome.reproduced}): {r.explanation() or 'see the criterion'}."
                  for n, r in differ]
    else:
        lines.append("Every claim reproduced.")
    notes = [note for r in results for note in r.notes]
    if notes:
        lines += ["", "## Notes", ""] + [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def write_claims(results: Sequence[ClaimResult], criteria: Criteria, csv_path, md_path, preamble: str = "",
                 extra_markdown: str = ""):
    """Writes claims.csv (CLAIM_COLUMNS) and claims.md; returns the table."""
    emitted = {r.claim_id for r in results}
    unknown = emitted - set(criteria.claims)
    if unknown:
        raise ValueError(f"claims not in workflows/claims/{criteria.study}.yaml: {sorted(unknown)}")
    table = claims_frame(results)
    Path(csv_path).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(csv_path, index=False)
    text = claims_markdown(results, criteria, preamble)
    if extra_markdown:
        text += "\n" + extra_markdown.rstrip("\n") + "\n"
    Path(md_path).write_text(text, encoding="utf-8")
    return table


def number(value: float, digits: int = 1, suffix: str = "") -> str:
    """A number for `ours`: 'n/a' when missing."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:,.{digits}f}{suffix}"


def interval(outcome: Outcome, digits: int = 1, suffix: str = "") -> str:
    """' (95% CI a..b)' when there is one."""
    if math.isnan(outcome.ci_low):
        return ""
    return f" (95% CI {outcome.ci_low:,.{digits}f}..{outcome.ci_high:,.{digits}f}{suffix})"
