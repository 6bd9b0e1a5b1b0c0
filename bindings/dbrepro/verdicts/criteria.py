"""Criteria: each study's claims as written in workflows/claims/<study>.yaml, with
the original's numbers filled in from its paper-values file, the run's own
settings filled into scaled notes, and the between-run estimates
(workflows/claims/between_runs.yaml) that widen a timed claim's interval.

The first link of the chain criteria -> stats -> outcome -> judge -> tables:
nothing here computes or judges.
"""
from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from .. import yaml_text
from ..source import repo_root


# The repository this package was installed from (editable): the criteria and the
# originals' numbers live beside the code that judges by them.
REPO = repo_root()
CRITERIA_DIR = REPO / "workflows" / "claims"
ROLES = ("finding", "check")
SETTINGS = ("original", "scaled")
COMBINE_RULES = ("median", "all", "share")
REQUIRED_FIELDS = ("id", "text", "role", "setting", "theirs", "source", "quantity", "direction", "band", "why_band",
                   "kind", "mechanism")
BAND_KEYS = ("min", "max", "above", "below")


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
    method: str = ""  # how this study's timed cells are run now (methods.yaml's last method)

    def __getitem__(self, claim_id: str) -> Criterion:
        return self.claims[claim_id]


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
    data = yaml_text.safe_load(path.read_text(encoding="utf-8"))
    paper = yaml_text.safe_load((REPO / data["paper_values"]).read_text(encoding="utf-8"))
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
    methods = load_methods(path.parent / METHODS_FILE).get(data["study"], ())
    return Criteria(data["study"], data.get("title", data["study"]), data["paper_values"], claims,
                    dict(data.get("scope") or {}), dict(data.get("attribution") or {}), min_seeds,
                    between_run_estimates(data["study"], path.parent / BETWEEN_RUNS_FILE),
                    methods[-1].id if methods else "")


BETWEEN_RUNS_FILE = "between_runs.yaml"
METHODS_FILE = "methods.yaml"


@dataclass(frozen=True)
class Method:
    """One way a study's timed cells have been run (methods.yaml), from commit `since` on."""

    id: str
    since: str
    what: str = ""


def load_methods(path: Path | None = None) -> dict[str, tuple[Method, ...]]:
    """{study: its methods, oldest first} from workflows/claims/methods.yaml ({} where absent)."""
    path = Path(path) if path is not None else CRITERIA_DIR / METHODS_FILE
    if not path.is_file():
        return {}
    data = yaml_text.safe_load(path.read_text(encoding="utf-8")) or {}
    out = {}
    for study, entries in (data.get("methods") or {}).items():
        methods = []
        for entry in entries or []:
            if not entry.get("id") or not entry.get("since"):
                raise ValueError(f"{path}: {study}: every method needs an id and the commit it holds since")
            methods.append(Method(str(entry["id"]), str(entry["since"]), str(entry.get("what", ""))))
        if len({m.id for m in methods}) != len(methods):
            raise ValueError(f"{path}: {study}: a method id twice")
        out[study] = tuple(methods)
    return out


def criterion_digest(text: str) -> str:
    """A short digest of a criterion's text: a between-run estimate holds only for the criterion it was made for."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


# The scale a timed effect's between-run spread is estimated on and added on (dbrepro.verdicts.estimate,
# judge.widen_for_reruns). A ratio of two positive rates moves by a factor between runs (a slower disk or
# CPU scales the arm it slows), so its log; a percentage change is such a ratio minus one, so the log
# of 1 + change/100. Anything else (slopes, differences of points) as it is. On the log scale a
# widened ratio interval stays positive (on the linear one, E1's step 10 / step 0 read [-3.3, 36.6]).
EFFECT_SCALES = MappingProxyType({"ratio": "log", "pct_change": "log_pct"})
SCALES = ("linear", "log", "log_pct")


def effect_scale(effect: str | None) -> str:
    return EFFECT_SCALES.get(effect or "", "linear")


def _check_tau(where: str, estimate: dict) -> None:
    tau = estimate.get("tau")
    if isinstance(tau, bool) or not isinstance(tau, (int, float)) or tau < 0:
        raise ValueError(f"{where}: an estimate needs tau >= 0")


def between_run_estimates(study: str, path: Path) -> dict:
    """`study`'s between-run estimates (workflows/claims/between_runs.yaml, written by `dbrepro verdicts
    estimate-reruns`): {row id: {criterion_sha, scale, method, kinds: {kind: {tau, runs, ...}},
    default: {tau, kind, runs}, source}}, each kind's spread for the study's current method and the
    default a kind without two runs takes; none where the file is absent."""
    if not path.is_file():
        return {}
    data = yaml_text.safe_load(path.read_text(encoding="utf-8")) or {}
    found = dict((data.get("estimates") or {}).get(study) or {})
    for row_id, estimate in found.items():
        where = f"{path}: {study}/{row_id}"
        if not estimate.get("criterion_sha"):
            raise ValueError(f"{where}: an estimate needs criterion_sha")
        if estimate.get("scale", "linear") not in SCALES:
            raise ValueError(f"{where}: scale {estimate['scale']!r} (allowed: {', '.join(SCALES)})")
        if "tau" in estimate:  # one spread pooled over every kind (before issue 52)
            _check_tau(where, estimate)
        for kind, by_kind in (estimate.get("kinds") or {}).items():
            _check_tau(f"{where}: {kind}", by_kind)
        if estimate.get("default") is not None:
            _check_tau(f"{where}: default", estimate["default"])
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


def inside(value: float, band: dict) -> bool:
    """Whether `value` lies inside the band."""
    return (value >= band.get("min", -math.inf) and value > band.get("above", -math.inf)
            and value <= band.get("max", math.inf) and value < band.get("below", math.inf))
