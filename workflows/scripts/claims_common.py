"""The claims evaluator shared by every study: criteria from
workflows/claims/<study>.yaml, effects with bootstrap confidence intervals,
three outcomes, and the one writer of claims.csv, findings.csv, checks.csv
and claims.md.

A `count` claim (deterministic: instructions, hits, bytes) compares its value
with the band exactly: `yes` inside, `no` outside. A `timed` claim needs at
least `min_repeats` repeats per sample; its effect (a ratio or difference of
medians, or a statistic the study's script defines over several samples) gets
a 95% percentile bootstrap interval (scipy.stats.bootstrap, a fixed seed so a
rerun on the same data gives the same interval): `yes` when the interval lies
inside the band, `no` when it lies wholly outside, `inconclusive` when it
straddles a bound or the repeats are too few.

The repeat is the unit: the configurations of one repeat run back to back,
so samples given as Series indexed by repeat (`by_repeat`) are aligned on
the repeats every arm has and resampled together (a paired bootstrap), and
drift of the machine between repeats stays out of the interval. Cells marked
`disturbed` (foreign load above workflows/claims/foreign_load.yaml's limit
after its reruns) are dropped first and counted.

Each criterion has a `role`: a `finding` of the original (the headline counts
these) or a `check` of our own (a hypothesis, a mechanism or design check,
shown beside). A claim judged at several cells says in its `combine` how
they combine (the median over the cells of the per-cell effect, one
bootstrap; or, for counts, every cell or a stated share).

The criteria live only in the yaml; a script computes the quantity.
"""
from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import yaml

CLAIM_COLUMNS = ["study", "id", "role", "claim", "setting", "setting_note", "ours", "theirs", "reproduced", "effect",
                 "ci_low", "ci_high", "repeats", "pairing", "cells_dropped", "criterion", "mechanism", "reason",
                 "within_ci_low", "within_ci_high", "between_run_sd", "looks", "alpha_per_look"]
# "not judged": the profile did not run what the claim needs (fewer repeats planned than the
# criterion's min_repeats, or a cell only another profile runs). It is no verdict: the headline
# counts the judged findings apart from these, so a profile's design is not read as a failure.
NOT_JUDGED = "not judged"
VERDICTS = ("yes", "no", "inconclusive")
OUTCOMES = (*VERDICTS, NOT_JUDGED)
ROLES = ("finding", "check")
SETTINGS = ("original", "scaled")
COMBINE_RULES = ("median", "all", "share")
CRITERIA_DIR = Path(__file__).resolve().parents[1] / "claims"
REQUIRED_FIELDS = ("id", "text", "role", "setting", "theirs", "source", "quantity", "direction", "band", "why_band",
                   "kind", "mechanism")
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
        if saved:  # one measure, or a list of which any one will do (E4)
            alternatives = saved if isinstance(saved, list) else [saved]
            text += "; and " + " or ".join(f"the {s['column']} change inside {band_text(s['band'])}"
                                           for s in alternatives)
        return text


@dataclass
class Criteria:
    study: str
    title: str
    paper_values: str
    claims: dict[str, Criterion]
    scope: dict = field(default_factory=dict)  # which runs the claims judge (the file's optional `scope`)
    attribution: dict = field(default_factory=dict)  # how claims.md names a mechanism (optional `attribution`)
    min_seeds: int = 1  # a count finding counted on fewer seeds is inconclusive (the file's optional `min_seeds`)
    between_runs: dict = field(default_factory=dict)  # {row id: estimate} from between_runs.yaml (widen_for_reruns)

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


def run_setting(config: dict, dotted: str):
    """A setting of the run's config by its dotted path (a KeyError naming it where the config lacks it)."""
    node = config
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            raise KeyError(f"{dotted}: no {part!r} in the run's config")
        node = node[part]
    return node


SETTING_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.]+(?:\|[A-Za-z0-9_.]+)*)(:[^}]*)?\}")


def resolve_setting_note(template: str, config: dict | None) -> str:
    """A `setting_note` with each {dotted.path[:format]} replaced by that setting of the run's own
    config (a list as its items, comma-separated; {a|b}: a, or b where a is null), so the note says
    what this run ran, never a profile's words; without a config (a script run by hand) each
    names its setting instead."""
    def value(match):
        paths = match.group(1).split("|")
        if config is None:
            return f"the profile's {paths[0]}"
        for path in paths:  # the first set: a later one stands in where an earlier one is missing or null
            try:
                found = run_setting(config, path)
            except KeyError:
                if path == paths[-1]:
                    raise
                continue
            if found is not None or path == paths[-1]:
                break

        def shown(item):
            return format(item, match.group(2)[1:]) if match.group(2) else str(item)

        return ", ".join(map(shown, found)) if isinstance(found, list) else shown(found)

    return SETTING_PLACEHOLDER.sub(value, template)


def load_criteria(path_or_study, run_config: dict | None = None) -> Criteria:
    """A study's criteria file (a path, or a study name under workflows/claims/), checked; its
    setting notes filled from `run_config`, the run's config (the workflow's)."""
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
        check_role_and_setting(spec, f"{path}: {spec['id']}")
        if spec["kind"] == "timed":
            if int(spec.get("min_repeats", 0)) < 5 or "effect" not in spec:
                raise ValueError(f"{path}: timed claim {spec['id']} needs an effect and min_repeats >= 5")
        elif spec["kind"] != "count":
            raise ValueError(f"{path}: claim {spec['id']}: kind {spec['kind']!r} is neither count nor timed")
        spec = {**spec, "theirs": resolve_theirs(str(spec["theirs"]), paper)}
        if spec.get("setting_note"):
            spec["setting_note"] = resolve_setting_note(str(spec["setting_note"]), run_config)
        claims[spec["id"]] = Criterion(spec)
    min_seeds = data.get("min_seeds", 1)
    if isinstance(min_seeds, bool) or not isinstance(min_seeds, int) or min_seeds < 1:
        raise ValueError(f"{path}: min_seeds must be an integer >= 1, got {min_seeds!r}")
    return Criteria(data["study"], data.get("title", data["study"]), data["paper_values"], claims,
                    dict(data.get("scope") or {}), dict(data.get("attribution") or {}), min_seeds,
                    between_run_estimates(data["study"], path.parent / BETWEEN_RUNS_FILE))


BETWEEN_RUNS_FILE = "between_runs.yaml"


def criterion_digest(text: str) -> str:
    """A short digest of a criterion's text: a between-run estimate holds only for the criterion it was made for."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


# The scale a timed effect's between-run spread is estimated on and added on (benchmarks/between_runs.py,
# widen_for_reruns). A ratio of two positive rates moves by a factor between runs (a slower disk or
# CPU scales the arm it slows), so its log; a percentage change is such a ratio minus one, so the log
# of 1 + change/100. Anything else (slopes, differences of points) as it is. On the log scale a
# widened ratio interval stays positive (on the linear one, E1's step 10 / step 0 read [-3.3, 36.6]).
EFFECT_SCALES = {"ratio": "log", "pct_change": "log_pct"}
SCALES = ("linear", "log", "log_pct")


def effect_scale(effect: str | None) -> str:
    return EFFECT_SCALES.get(effect or "", "linear")


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


def between_run_estimates(study: str, path: Path) -> dict:
    """`study`'s between-run estimates (workflows/claims/between_runs.yaml, written by
    benchmarks/between_runs.py), {row id: {tau, runs, within_se, source, criterion_sha}}; none where
    the file is absent."""
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    found = dict((data.get("estimates") or {}).get(study) or {})
    for row_id, estimate in found.items():
        tau = estimate.get("tau")
        if isinstance(tau, bool) or not isinstance(tau, (int, float)) or tau < 0 or not estimate.get("criterion_sha"):
            raise ValueError(f"{path}: {study}/{row_id}: an estimate needs tau >= 0 and criterion_sha")
        if estimate.get("scale", "linear") not in SCALES:
            raise ValueError(f"{path}: {study}/{row_id}: scale {estimate['scale']!r} (allowed: {', '.join(SCALES)})")
    return found


def check_role_and_setting(spec: dict, where: str) -> None:
    if spec["role"] not in ROLES:
        raise ValueError(f"{where}: role {spec['role']!r} (allowed: {', '.join(ROLES)})")
    if spec["setting"] not in SETTINGS:
        raise ValueError(f"{where}: setting {spec['setting']!r} (allowed: {', '.join(SETTINGS)})")
    if spec["setting"] == "scaled" and not spec.get("setting_note"):
        raise ValueError(f"{where}: a scaled setting needs a setting_note saying what moved where")
    rule = (spec.get("combine") or {}).get("rule")
    if spec.get("combine") is not None and rule not in COMBINE_RULES:
        raise ValueError(f"{where}: combine rule {rule!r} (allowed: {', '.join(COMBINE_RULES)})")
    if rule == "share" and not 0 < float(spec["combine"].get("share", 0)) <= 1:
        raise ValueError(f"{where}: combine share must be in (0, 1]")


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
    repeats: int | None = None  # repeats the effect rests on (paired: the repeats every arm has; None for a count)
    reason: str = ""  # why inconclusive or no, in words
    pairing: str = ""  # how the repeats were used: "paired by repeat", or why not
    cells_dropped: int = 0  # disturbed cells left out of the interval
    seeds: tuple = ()  # a count judged on several seeds: which (its interval is the range over them)
    within_low: float = math.nan  # widened for reruns (widen_for_reruns): the repeats' own interval
    within_high: float = math.nan
    between_sd: float = math.nan  # the between-run spread (tau) it was widened by
    between_scale: str = ""  # the scale tau is on (EFFECT_SCALES: "log" for a ratio), "" where not widened
    look: int | None = None  # timed: the look its verdict comes from (sequential.yaml; 1 without extra looks)


def evaluate_count(value: float, band: dict) -> Outcome:
    """Exact comparison of a deterministic count."""
    value = float(value)
    if math.isnan(value):
        return Outcome("inconclusive", reason="the count is missing from the runs")
    inside = _inside(value, band)
    return Outcome("yes" if inside else "no", value, reason="" if inside else f"{value:g} is outside {band_text(band)}")


def _pct_change(a, b, axis=-1):
    return 100.0 * (np.median(a, axis=axis) / np.median(b, axis=axis) - 1.0)


EFFECTS = {
    "ratio": lambda a, b, axis=-1: np.median(a, axis=axis) / np.median(b, axis=axis),
    "pct_change": _pct_change,
    "difference": lambda a, b, axis=-1: np.median(a, axis=axis) - np.median(b, axis=axis),
}


def median_effect(effect: str) -> Callable:
    """The statistic of two samples (treatment, reference), vectorised over `axis`."""
    if effect not in EFFECTS:
        raise ValueError(f"effect {effect!r}: a script-defined statistic needs evaluate_statistic")
    return EFFECTS[effect]


# ---------------------------------------------------------------------------
# Samples by repeat


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


def bootstrap_interval(samples: Sequence[np.ndarray], statistic: Callable, seed: int = SEED,
                       paired: bool = False) -> tuple[float, float]:
    """Percentile bootstrap interval of statistic(*samples) at the run's level (95%, or
    1 - 0.05/L where the profile takes L looks: JUDGING.confidence). Paired: the repeats are
    resampled together (the same repeats drawn for every sample), so what one repeat shares
    across its arms (the machine's load at the time) cancels; else each sample on its own."""
    from scipy.stats import bootstrap

    import inspect

    # SciPy >= 1.15 takes a Generator as `rng`; older ones a seed as `random_state`.
    seeded = ({"rng": np.random.default_rng(seed)} if "rng" in inspect.signature(bootstrap).parameters
              else {"random_state": seed})
    result = bootstrap(tuple(samples), statistic, n_resamples=RESAMPLES, confidence_level=JUDGING.confidence,
                       method="percentile", vectorized=True, paired=paired and len(samples) > 1, **seeded)
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def evaluate_statistic(samples: Sequence, statistic: Callable, band: dict, min_repeats: int) -> Outcome:
    """A timed effect: statistic(*samples, axis=-1) with its bootstrap CI, judged against the band.
    Samples from by_repeat are paired by repeat; plain arrays are resampled each on its own."""
    arrays = align(samples)
    repeats = min((len(a) for a in arrays), default=0)
    value = float(statistic(*arrays, axis=-1)) if repeats else math.nan
    common = {"repeats": repeats, "pairing": arrays.pairing, "cells_dropped": arrays.dropped, "look": JUDGING.look}
    if JUDGING.planned_repeats is not None and JUDGING.planned_repeats < min_repeats:
        return not_judged(f"this profile ({JUDGING.profile}) plans {JUDGING.planned_repeats} repeat(s); the "
                          f"criterion needs {min_repeats}", JUDGING.judged_by, value=value, **common)
    if repeats < min_repeats:
        return Outcome("inconclusive", value, reason=f"{repeats} repeat(s), fewer than the {min_repeats} "
                                                     f"{TOO_FEW_REPEATS}", **common)
    if not math.isfinite(value):
        return Outcome("inconclusive", value, reason="the effect is undefined (a zero median)", **common)
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = bootstrap_interval(arrays, statistic, paired=arrays.paired)
    verdict = judge_interval(low, high, band)
    reason = {
        "yes": "",
        "no": f"the {level_text()} CI [{low:.4g}, {high:.4g}] lies outside {band_text(band)}",
        "inconclusive": f"the {level_text()} CI [{low:.4g}, {high:.4g}] straddles {band_text(band)}",
    }[verdict]
    return Outcome(verdict, value, low, high, reason=reason, **common)


def evaluate_medians(treatment, reference, criterion: Criterion, band: dict | None = None,
                     effect: str | None = None) -> Outcome:
    """A timed two-sample effect (ratio, pct_change or difference of medians) against the criterion."""
    return evaluate_statistic([treatment, reference], median_effect(effect or criterion.effect),
                              band if band is not None else criterion.band, int(criterion.min_repeats))


def median_over_cells(cell_statistic: Callable, arity: int = 2) -> Callable:
    """The statistic of several cells' samples (laid out cell after cell, `arity` samples each):
    the median over the cells of cell_statistic, so a claim judged at several cells has one
    effect and one interval."""
    def statistic(*samples, axis=-1):
        per_cell = [cell_statistic(*samples[i:i + arity], axis=axis) for i in range(0, len(samples), arity)]
        return np.median(np.stack(per_cell, axis=-1), axis=-1)

    return statistic


def evaluate_cells(cells: Sequence[Sequence], criterion: Criterion, cell_statistic: Callable | None = None,
                   band: dict | None = None) -> Outcome:
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
                              int(criterion.min_repeats))


def inconclusive(reason: str, repeats: int | None = None, value: float = math.nan) -> Outcome:
    return Outcome("inconclusive", value, repeats=repeats, reason=reason)


def not_judged(reason: str, judged_by: str = "", value: float = math.nan, **fields) -> Outcome:
    """The profile did not run what the claim needs (`reason`); `judged_by` names the profile(s) that do."""
    where = f"; judged by the {judged_by} profile" if judged_by else ""
    fields.pop("look", None)  # no verdict, so no look
    return Outcome(NOT_JUDGED, value, reason=f"not judged here: {reason}{where}", **fields)


@dataclass
class Judging:
    """What this run's profile can judge, set once by the claims rule (`configure_judging`):
    its name, the repeats it plans for the study's timed cells, and the profile(s) that plan
    enough. Unset (a script run by hand), every claim is judged on what the runs hold."""

    profile: str = ""
    planned_repeats: int | None = None
    judged_by: str = ""
    # Sequential looks (workflows/claims/sequential.yaml): every look's interval at `confidence`
    # (1 - alpha_per_look, the overall 5% split evenly over the profile's `looks`); this is look
    # `look`. `decided`: findings decided at an earlier look ({id: that look's outcome}), kept.
    confidence: float = CONFIDENCE
    look: int = 1
    looks: int = 1
    decided: dict = field(default_factory=dict)
    # Repeats made up for cells still disturbed after their reruns: {grid: {"disturbed_repeats",
    # "makeups"}} (claims.md's foreign-load line counts them).
    makeups: dict = field(default_factory=dict)
    outcomes_out: str = ""  # where write_claims also writes every row's outcome (a look's record)

    @property
    def alpha_per_look(self) -> float:
        return 1.0 - self.confidence


JUDGING = Judging()


def level_text(confidence: float | None = None) -> str:
    """'95%', or a look's level ('97.5%')."""
    level = 100 * (JUDGING.confidence if confidence is None else confidence)
    return f"{level:.4g}%"


def z_of(confidence: float) -> float:
    """The two-sided normal quantile of a confidence level (1.96 at 95%)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def configure_judging(params) -> None:
    """The claims rule's `judging` params (workflows/claims.smk) for this script's claims."""
    found = dict(getattr(params, "judging", None) or {})
    JUDGING.profile = str(found.get("profile", ""))
    planned = found.get("planned_repeats")
    JUDGING.planned_repeats = None if planned is None else int(planned)
    JUDGING.judged_by = str(found.get("judged_by", ""))
    JUDGING.confidence = float(found.get("confidence", CONFIDENCE))
    if not 0 < JUDGING.confidence < 1:
        raise ValueError(f"judging: confidence {JUDGING.confidence!r} outside (0, 1)")
    JUDGING.look, JUDGING.looks = int(found.get("look", 1)), int(found.get("looks", 1))
    JUDGING.makeups = dict(found.get("makeups") or {})
    JUDGING.outcomes_out = str(found.get("outcomes_out", ""))
    JUDGING.decided = {}
    previous = found.get("previous_look")  # the last look's record (workflows/scripts/sequential.py)
    if previous:
        import json

        JUDGING.decided = dict(json.loads(Path(previous).read_text(encoding="utf-8")).get("decided") or {})


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


# ---------------------------------------------------------------------------
# Rows and the writer


@dataclass
class ClaimResult:
    """One row of claims.csv, with the sentence claims.md adds for a claim not reproduced."""

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
    def text(self) -> str:
        return f"{self.variant}: {self.criterion.text}" if self.variant else self.criterion.text

    def row(self, study: str = "") -> dict:
        o = self.outcome
        effect, low, high = _rounded(o.value, o.ci_low, o.ci_high)
        return {
            # A check evaluated at several variants (E2's thread counts) keeps one id per variant.
            "study": study, "id": f"{self.claim_id}@{self.variant}" if self.variant and self.role == "check"
            else self.claim_id, "role": self.role, "claim": self.text,
            "setting": self.criterion.setting, "setting_note": self.criterion.get("setting_note", ""),
            "ours": self.ours, "theirs": self.theirs if self.theirs is not None else self.criterion.theirs,
            "reproduced": o.reproduced, "effect": effect, "ci_low": low, "ci_high": high,
            "repeats": "" if o.repeats is None else int(o.repeats),
            "pairing": o.pairing if self.criterion.timed else _count_pairing(o),
            "cells_dropped": int(o.cells_dropped),
            "criterion": self.criterion.text_of_criterion(), "mechanism": self.criterion.mechanism,
            "reason": self.explanation(),
            **dict(zip(("within_ci_low", "within_ci_high"), _rounded(o.value, o.within_low, o.within_high)[1:])),
            "between_run_sd": _number(o.between_sd),
            "looks": "" if o.look is None else int(o.look),
            "alpha_per_look": "" if o.look is None else _number(JUDGING.alpha_per_look),
        }

    def explanation(self) -> str:
        parts = [p for p in (self.outcome.reason, self.why, far_beyond(self.outcome, self.criterion.band),
                             precision_note(self.outcome, self.criterion.band)) if p]
        return "; ".join(parts)


def _count_pairing(outcome: Outcome) -> str:
    if len(outcome.seeds) > 1:
        return (f"deterministic count on seeds {', '.join(map(str, outcome.seeds))}: the effect is seed "
                f"{outcome.seeds[0]}'s, the interval the range over the seeds")
    if outcome.seeds:
        return f"deterministic count on seed {outcome.seeds[0]}"
    return "deterministic count"


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
        reason += f" (range {_number(low)}..{_number(high)})"
        if reasons:
            reason += f"; {reasons[0]}"
    outcome = Outcome(verdict, first.outcome.value, low, high, reason=reason, seeds=seeds)
    ours = first.ours
    if len(seeds) > 1 and finite:
        ours += f" (seed {seeds[0]}; {len(seeds)} seeds: {_number(low):g}..{_number(high):g})"
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


def count_result(criterion: Criterion, ours: str, value: float, why_not: str = "") -> ClaimResult:
    """A count claim: the exact comparison, and `why_not` (the computed reason) when it fails."""
    result = ClaimResult(criterion, ours, evaluate_count(value, criterion.band))
    if result.outcome.reproduced == "no":
        result.why = why_not
    return result


SIGNIFICANT = 4  # the value and its interval rounded alike


def _number(value: float):
    return "" if value is None or (isinstance(value, float) and not math.isfinite(value)) else \
        float(f"{value:.{SIGNIFICANT}g}")


def _rounded(value: float, low: float, high: float) -> tuple:
    """The effect and its interval to the same decimal place (that of the value's 4th significant digit)."""
    finite = [abs(v) for v in (value, low, high) if v is not None and math.isfinite(v) and v != 0]
    if not finite:
        return tuple(_number(v) for v in (value, low, high))
    places = max(0, SIGNIFICANT - 1 - int(math.floor(math.log10(max(finite)))))
    return tuple("" if v is None or not math.isfinite(v) else round(float(v), places) for v in (value, low, high))


def claims_frame(results: Sequence[ClaimResult], study: str = ""):
    import pandas as pd

    frame = pd.DataFrame([r.row(study) for r in results], columns=CLAIM_COLUMNS)
    if not frame["reproduced"].isin(OUTCOMES).all():
        raise ValueError(f"outcomes outside {OUTCOMES}: {sorted(set(frame['reproduced']))}")
    return frame


def counts(results_or_frame) -> dict[str, int]:
    """How many claims are yes, no and inconclusive."""
    column = (results_or_frame["reproduced"] if hasattr(results_or_frame, "columns")
              else [r.outcome.reproduced for r in results_or_frame])
    values = list(column)
    return {outcome: values.count(outcome) for outcome in OUTCOMES}


def judged(items):
    """The rows or results that carry a verdict (not `not judged`)."""
    if hasattr(items, "columns"):
        return items[items["reproduced"] != NOT_JUDGED]
    return [r for r in items if r.outcome.reproduced != NOT_JUDGED]


def split_roles(frame):
    """A claims table's findings and checks (a table from before roles were told apart: all findings)."""
    if "role" not in frame:
        return frame, frame.iloc[0:0]
    return frame[frame["role"] == "finding"], frame[frame["role"] == "check"]


def role_counts(frame) -> dict[str, dict[str, int]]:
    """{"findings": {yes, no, inconclusive, total}, "checks": {...}} of a claims table: the one
    count that the summary, the report's summary page and the paper all print."""
    return {name: {**counts(part), "total": len(part)} for name, part in zip(("findings", "checks"),
                                                                             split_roles(frame))}


# How evaluate_statistic and across_seeds word an outcome left inconclusive for the run's size.
TOO_FEW_REPEATS = "the criterion needs"
TOO_FEW_SEEDS = "(min_seeds in the criteria file)"


def too_small_to_judge(reason: str) -> bool:
    """Whether an inconclusive outcome's reason is that the run had fewer repeats or seeds than
    the criterion needs (not that the interval straddled the band)."""
    return TOO_FEW_REPEATS in str(reason) or TOO_FEW_SEEDS in str(reason)


def headline(results: Sequence[ClaimResult]) -> str:
    """'y of J judged findings reproduced (n no, i inconclusive; original setting a/b, scaled c/d);
    k not judged here; checks: ...'. A finding this profile did not run for is counted apart."""
    findings = [r for r in results if r.role == "finding"]
    checks = [r for r in results if r.role == "check"]
    f, c = counts(findings), counts(checks)
    on = judged(findings)
    settings = []
    for setting in SETTINGS:
        at = [r for r in on if r.criterion.setting == setting]
        if at:
            settings.append(f"{counts(at)['yes']}/{len(at)} at the {setting} setting")
    apart = f"; {f[NOT_JUDGED]} of {len(findings)} not judged by this profile" if f[NOT_JUDGED] else ""
    checks_apart = f", {c[NOT_JUDGED]} not judged" if c[NOT_JUDGED] else ""
    return (f"{f['yes']} of {len(on)} judged findings reproduced ({f['no']} no, {f['inconclusive']} inconclusive; "
            f"{', '.join(settings) or 'none'}){apart}; checks beside, not added in: {c['yes']} yes, {c['no']} no, "
            f"{c['inconclusive']} inconclusive{checks_apart} of {len(checks)}")


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _effect_text(row: dict) -> str:
    if row["effect"] == "":
        return ""
    text = f"{row['effect']:g}"
    if row["ci_low"] != "":
        text += f" [{row['ci_low']:g}, {row['ci_high']:g}]"
    return text


def _table(results: Sequence[ClaimResult], study: str) -> list[str]:
    ci = f"effect [{level_text()} CI]"
    shown = ["claim", "setting", "ours", "theirs", "reproduced", ci, "repeats"]
    lines = ["| " + " | ".join(shown) + " |", "|" + "---|" * len(shown)]
    for result in results:
        row = result.row(study)
        row[ci] = _effect_text(row)
        lines.append("| " + " | ".join(_cell(row[c]) for c in shown) + " |")
    return lines


def load_account(*frames) -> str:
    """How many timed cells foreign load made rerun or drop, from the tables' `attempts` and
    `disturbed` columns (issue 29); empty where the runs carry neither."""
    import pandas as pd

    cells = reruns = dropped = once = 0
    seen = False
    for frame in frames:
        if frame is None or not len(frame):
            continue
        attempts = pd.to_numeric(frame["attempts"], errors="coerce").fillna(1) if "attempts" in frame.columns \
            else pd.Series(1, index=frame.index)
        if "attempts" in frame.columns:
            seen = True
            cells += len(frame)
            reruns += int((attempts - 1).clip(lower=0).sum())
        if "disturbed" in frame.columns:
            seen = True
            disturbed = frame["disturbed"].astype(str).str.lower().isin(["true", "1", "yes"])
            dropped += int(disturbed.sum())
            once += int((disturbed & (attempts <= 1)).sum())
    if not seen:
        return "The runs record no foreign load (made before it was measured): no cell was checked for it."
    persistent = (f" ({once} of them measured once: the cells before them were still disturbed after their "
                  f"reruns, so the load was taken as persistent)" if once else "")
    return (f"Foreign load (workflows/claims/foreign_load.yaml): {cells} timed cells, {reruns} rerun(s) for "
            f"foreign CPU above the limit, {dropped} still disturbed and left out of every interval{persistent}."
            + makeup_account())


def looks_text(results: Sequence[ClaimResult]) -> str:
    """claims.md's line on the sequential looks: how many, at which level, and where each timed
    finding's verdict comes from (the `looks` column)."""
    timed = [r for r in results if r.role == "finding" and r.criterion.timed and r.outcome.look is not None]
    by_look = {}
    for result in timed:
        by_look.setdefault(int(result.outcome.look), []).append(result.claim_id)
    where = "; ".join(f"look {look}: {len(ids)}" for look, ids in sorted(by_look.items())) or "none judged"
    return (f"Sequential looks (`workflows/claims/sequential.yaml`): this is look {JUDGING.look} of at most "
            f"{JUDGING.looks}; every look's interval is a {level_text()} one (alpha {JUDGING.alpha_per_look:.4g} per "
            f"look, the 5% split evenly: Bonferroni), and a finding decided at a look keeps that verdict. Timed "
            f"findings by the look their verdict comes from: {where}.")


def makeup_account(makeups: dict | None = None) -> str:
    """' r repeat(s) with a disturbed cell made up ...' from the run's makeups (JUDGING.makeups:
    {grid: {"disturbed_repeats": [...], "makeups": m}}); empty where the profile makes none up."""
    makeups = JUDGING.makeups if makeups is None else makeups
    if not makeups:
        return ""
    parts, made, short = [], 0, 0
    for grid, found in sorted(makeups.items()):
        disturbed, count = list(found.get("disturbed_repeats") or []), int(found.get("makeups") or 0)
        made, short = made + count, short + max(0, len(disturbed) - count)
        if disturbed:
            parts.append(f"{grid}: repeat(s) {', '.join(map(str, disturbed))} disturbed, {count} made up")
    if not parts:
        return " No repeat needed a makeup (workflows/claims/sequential.yaml)."
    beyond = f"; {short} beyond the profile's max_makeups stay short" if short else ""
    return (f" Made up: {made} repeat(s) with a disturbed cell ran again as new repeats of their grid after the "
            f"planned ones, the disturbed attempts kept in their records ({'; '.join(parts)}{beyond}; "
            "workflows/claims/sequential.yaml).")


def claims_markdown(results: Sequence[ClaimResult], criteria: Criteria, preamble: str = "") -> str:
    """claims.md: the findings, then the checks, each claim's criterion and source, and why the others differ."""
    lines = [f"# {criteria.title}", ""]
    if preamble:
        lines += [preamble, ""]
    lines += [f"{headline(results)}. Criteria: `workflows/claims/{criteria.study}.yaml` (their history: "
              f"`workflows/claims/HISTORY.md`); the original's numbers: `{criteria.paper_values}`.", ""]
    if JUDGING.looks > 1:
        lines += [looks_text(results), ""]
    for role, title in (("finding", "Findings of the original"), ("check", "Our checks (hypotheses, mechanisms, "
                                                                            "design; not in the headline)")):
        lines += [f"## {title}", ""] + _table([r for r in results if r.role == role], criteria.study) + [""]
    lines += ["## Criteria", ""]
    for n, result in enumerate(results, 1):
        c = result.criterion
        scaled = f" Setting: scaled ({c.get('setting_note')})." if c.setting == "scaled" else ""
        lines.append(f"{n}. **{result.text}** ({c.role}, {c.kind}; source: {c.source}): {c.text_of_criterion()}. "
                     f"Why this band: {c.why_band}. Mechanism: {c.mechanism}.{scaled}")
    differ = [(n, r) for n, r in enumerate(results, 1) if r.outcome.reproduced != "yes"]
    lines += ["", "## Not reproduced or inconclusive", ""]
    if differ:
        lines += [f"{n}. **{r.text}** ({r.role}, {r.outcome.reproduced}): {r.explanation() or 'see the criterion'}."
                  for n, r in differ]
    else:
        lines.append("Every claim reproduced.")
    notes = [note for r in results for note in r.notes]
    if notes:
        lines += ["", "## Notes", ""] + [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


SCALE_WORDS = {"linear": "", "log": " on the log of the ratio", "log_pct": " on the log of 1 + change/100"}


def widen_for_reruns(results: Sequence[ClaimResult], criteria: Criteria) -> list[ClaimResult]:
    """Each timed claim's interval widened by the spread between runs that its own repeats cannot
    see (tau, workflows/claims/between_runs.yaml, estimated from committed runs judged by the same
    criterion): each side's half-width h becomes sqrt(h^2 + (1.96 tau)^2), on the estimate's scale
    (the log of a ratio, EFFECT_SCALES), so that the interval a run prints covers what a rerun on
    another machine of this kind measures. The verdict is judged
    again on the wider interval and may only weaken (yes or no to inconclusive), never strengthen.
    A claim with no estimate for its current criterion keeps its interval and says so."""
    out = []
    for result in results:
        o, c = result.outcome, result.criterion
        row_id = f"{c.id}@{result.variant}" if result.variant and c.role == "check" else c.id
        estimate = criteria.between_runs.get(row_id)
        if not c.timed or o.reproduced == NOT_JUDGED or not all(map(math.isfinite, (o.value, o.ci_low, o.ci_high))):
            out.append(result)
            continue
        if estimate is None or estimate["criterion_sha"] != criterion_digest(c.text_of_criterion()):
            o = replace(o, pairing=f"{o.pairing}; no between-run estimate for this criterion yet (the interval is "
                                   "the repeats' alone)")
            out.append(replace(result, outcome=o))
            continue
        tau = float(estimate["tau"])
        scale = estimate.get("scale", "linear")
        value, own_low, own_high = (to_scale(x, scale) for x in (o.value, o.ci_low, o.ci_high))
        if not all(map(math.isfinite, (value, own_low, own_high))):  # outside the log's domain: as it is
            scale, value, own_low, own_high = "linear", o.value, o.ci_low, o.ci_high
        extra = (z_of(JUDGING.confidence) * tau) ** 2
        low = from_scale(value - math.sqrt((value - own_low) ** 2 + extra), scale)
        high = from_scale(value + math.sqrt((own_high - value) ** 2 + extra), scale)
        widened = judge_interval(low, high, c.band)
        verdict = o.reproduced if widened == o.reproduced else "inconclusive"
        note = (f"widened for reruns: the repeats' interval [{o.ci_low:.4g}, {o.ci_high:.4g}] with the between-run "
                f"spread tau {tau:.4g}{SCALE_WORDS[scale]} ({estimate['runs']} runs, "
                f"{estimate.get('source', BETWEEN_RUNS_FILE)})")
        reason = o.reason
        if verdict != o.reproduced:
            reason = (f"the {level_text()} interval widened for reruns [{low:.4g}, {high:.4g}] straddles {band_text(c.band)} "
                      f"(within the run alone: {o.reproduced})")
        elif verdict != "yes":
            reason = reason.replace(f"[{o.ci_low:.4g}, {o.ci_high:.4g}]", f"[{low:.4g}, {high:.4g}]")
        o = replace(o, reproduced=verdict, ci_low=low, ci_high=high, reason=reason,
                    within_low=o.ci_low, within_high=o.ci_high, between_sd=tau, between_scale=scale,
                    pairing=f"{o.pairing}; {note}")
        out.append(replace(result, outcome=o))
    return out


def keep_decided(results: Sequence[ClaimResult]) -> list[ClaimResult]:
    """A timed finding decided (yes or no) at an earlier look keeps that look's outcome
    (JUDGING.decided): the repeats added later for other findings of its grid do not reopen it.
    Every look's interval is at the same split level, so the earlier verdict is as covered as a
    later one would be (docs/verdicts.md)."""
    out = []
    for result in results:
        stored = JUDGING.decided.get(result.claim_id)
        if stored is None or result.role != "finding" or not result.criterion.timed:
            out.append(result)
            continue
        fields = {name: stored["outcome"][name] for name in Outcome.__dataclass_fields__ if name in stored["outcome"]}
        fields["seeds"] = tuple(fields.get("seeds") or ())
        for name in ("value", "ci_low", "ci_high", "within_low", "within_high", "between_sd"):
            fields[name] = math.nan if fields.get(name) is None else float(fields[name])
        kept = Outcome(**fields)
        now = result.outcome
        note = (f"decided at look {kept.look} of at most {JUDGING.looks} ({kept.repeats} repeats); kept, as the "
                f"stopping rule has it (look {JUDGING.look} with {now.repeats} repeats read {now.reproduced})")
        out.append(replace(result, ours=stored.get("ours", result.ours),
                           outcome=replace(kept, pairing=f"{kept.pairing}; {note}")))
    return out


def outcome_record(outcome: Outcome) -> dict:
    """An outcome as JSON (NaN as null), what a look's record keeps of a decided finding."""
    import dataclasses

    record = dataclasses.asdict(outcome)
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else (list(v) if isinstance(v, tuple) else v))
            for k, v in record.items()}


def write_outcomes(results: Sequence[ClaimResult], path) -> None:
    """Every row's outcome with its role and kind ({row id: ...}), for the look that reads it."""
    import json

    rows = {}
    for result in results:
        row_id = f"{result.claim_id}@{result.variant}" if result.variant and result.role == "check" else result.claim_id
        rows[row_id] = {"role": result.role, "timed": result.criterion.timed, "band": result.criterion.band,
                        "ours": result.ours, "outcome": outcome_record(result.outcome)}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")


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


def write_claims(results: Sequence[ClaimResult], criteria: Criteria, csv_path, md_path, preamble: str = "",
                 extra_markdown: str = ""):
    """Writes claims.csv (CLAIM_COLUMNS, findings then checks), findings.csv and checks.csv beside
    it, and claims.md; returns the table. A finding is judged once: one row per finding."""
    emitted = {r.claim_id for r in results}
    unknown = emitted - set(criteria.claims)
    if unknown:
        raise ValueError(f"claims not in workflows/claims/{criteria.study}.yaml: {sorted(unknown)}")
    findings = [r.claim_id for r in results if r.role == "finding"]
    twice = sorted({f for f in findings if findings.count(f) > 1})
    if twice:
        raise ValueError(f"findings judged more than once (one row each, cells combined by the criterion): {twice}")
    results = [r for r in results if r.role == "finding"] + [r for r in results if r.role == "check"]
    results = keep_decided(widen_for_reruns(results, criteria))
    if JUDGING.outcomes_out:
        write_outcomes(results, JUDGING.outcomes_out)
    table = claims_frame(results, criteria.study)
    csv_path = Path(csv_path)
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(csv_path, index=False)
    for role, name in (("finding", "findings.csv"), ("check", "checks.csv")):
        table[table["role"] == role].to_csv(csv_path.parent / name, index=False)
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
    """' (95% CI a..b)' when there is one (a look's level where the profile takes several)."""
    if math.isnan(outcome.ci_low):
        return ""
    return f" ({level_text()} CI {outcome.ci_low:,.{digits}f}..{outcome.ci_high:,.{digits}f}{suffix})"
