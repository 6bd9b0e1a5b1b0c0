"""What a run can judge, built once by its caller and passed to every step.

The claims rule builds one `Context` from its `judging` params (the profile,
the repeats it plans, the sequential looks, the run's machine kind); a
script run by hand or a notebook builds the default, which judges every
claim on what the runs hold at 95%. Frozen: no step changes what another
step reads.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Mapping

CONFIDENCE = 0.95


def _frozen(mapping) -> Mapping:
    return MappingProxyType(dict(mapping or {}))


@dataclass(frozen=True)
class Context:
    """The run's profile, the repeats it plans for the study's timed cells and the profile(s)
    that plan enough; every look's coverage (1 - alpha_per_look, the overall 5% split evenly
    over `looks`), this look's number, the findings decided at an earlier look ({id: that
    look's outcome record}); the repeats made up for disturbed cells; the run's machine kind."""

    profile: str = ""
    planned_repeats: int | None = None
    judged_by: str = ""
    confidence: float = CONFIDENCE
    look: int = 1
    looks: int = 1
    decided: Mapping = field(default_factory=lambda: _frozen({}))
    makeups: Mapping = field(default_factory=lambda: _frozen({}))
    outcomes_out: str = ""  # where the writer also writes every row's outcome (a look's record)
    kind: str = ""  # the run's machine kind (dbrepro.machine): whose between-run spread widens it

    def __post_init__(self):
        if not 0 < self.confidence < 1:
            raise ValueError(f"judging: confidence {self.confidence!r} outside (0, 1)")
        object.__setattr__(self, "decided", _frozen(self.decided))
        object.__setattr__(self, "makeups", _frozen(self.makeups))

    @property
    def alpha_per_look(self) -> float:
        return 1.0 - self.confidence

    @classmethod
    def from_judging(cls, found: Mapping | None) -> "Context":
        """The claims rule's `judging` params (workflows/claims.smk); the previous look's record
        (workflows/scripts/sequential.py) read for the findings it decided."""
        found = dict(found or {})
        planned = found.get("planned_repeats")
        decided = {}
        previous = found.get("previous_look")
        if previous:
            decided = dict(json.loads(Path(previous).read_text(encoding="utf-8")).get("decided") or {})
        kind = str(found.get("kind", ""))
        machine = found.get("machine")  # the run's fingerprint (dbrepro.machine): its kind
        if not kind and machine and Path(machine).is_file():
            kind = str(json.loads(Path(machine).read_text(encoding="utf-8")).get("kind", ""))
        return cls(profile=str(found.get("profile", "")), planned_repeats=None if planned is None else int(planned),
                   judged_by=str(found.get("judged_by", "")), confidence=float(found.get("confidence", CONFIDENCE)),
                   look=int(found.get("look", 1)), looks=int(found.get("looks", 1)), decided=decided,
                   makeups=dict(found.get("makeups") or {}), outcomes_out=str(found.get("outcomes_out", "")),
                   kind=kind)

    @classmethod
    def from_params(cls, params) -> "Context":
        """From a Snakemake rule's params (its `judging` entry), or the default where it has none."""
        return cls.from_judging(getattr(params, "judging", None))

    @classmethod
    def at_alpha(cls, alpha: float | None, **fields) -> "Context":
        """A context at a row's own coverage (its alpha_per_look; 95% where it has none)."""
        ok = alpha is not None and math.isfinite(alpha) and alpha > 0
        return cls(confidence=1 - alpha if ok else CONFIDENCE, **fields)


DEFAULT = Context()


def level_text(confidence: float) -> str:
    """'95%', or a look's level ('97.5%')."""
    return f"{100 * confidence:.4g}%"
