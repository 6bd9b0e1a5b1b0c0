"""Findings that depend on the machine (issue 52, item 3): each kind of machine's estimate of a
finding from its committed runs, the findings whose kinds are apart, and the machines seen.

Per finding (its current criterion, its study's current method) and kind with at least two runs:
the runs' effects pooled as the between-run estimate pools them (Paule-Mandel weights, on the
effect's scale), with a 95% interval whose width holds both the runs' own intervals and the
spread between them; and how many of those runs read yes, no and inconclusive. Two kinds are
apart where their intervals do not overlap: there the verdict is the kind's, and the summary
shows each kind's and what differs between them (the fingerprints' primitive costs,
reference/machines.csv, and the study's own counters).

    dbrepro verdicts kinds [RUN ...] [--out reference/machine_dependent.csv]
        [--machines reference/machines.csv]
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from .criteria import effect_scale, load_criteria
from .estimate import Z, paule_mandel, run_folders, scale_of, timed_rows
from .stats import from_scale, to_scale

COLUMNS = ("study", "id", "kind", "method", "runs", "run_names", "effect", "low", "high", "yes", "no",
           "inconclusive", "apart_from", "criterion")
# The primitives machines.csv shows per kind: (column, path in a fingerprint's primitives). The mutex
# hand-offs count from dbrepro-machine's version 2 on: version 1 ran them on one CPU.
MUTEX_FROM_VERSION = 2
PRIMITIVES = (
    ("fixed_loop_s", ("fixed_loop_s",)),
    ("cache_line_transfer_ns", ("cache_line_transfer_ns",)),
    ("cross_cpu_wakeup_ns", ("cross_cpu_wakeup_ns",)),
    ("context_switch_ns", ("context_switch_ns",)),
    ("mutex_4_threads_ns_per_acquisition", ("mutex_handoffs", 0, "ns_per_acquisition")),
    ("mutex_4_threads_contended_share", ("mutex_handoffs", 0, "contended_share")),
    ("mutex_64_threads_ns_per_acquisition", ("mutex_handoffs", 1, "ns_per_acquisition")),
    ("mutex_64_threads_contended_share", ("mutex_handoffs", 1, "contended_share")),
    ("memory_latency_ns", ("memory_latency_ns",)),
    ("fdatasync_us_median", ("fdatasync_us_median",)),
    ("odirect_read_4k_us_median", ("odirect_read_4k_us_median",)),
)


def _dig(found, path):
    for step in path:
        try:
            found = found[step]
        except (KeyError, IndexError, TypeError):
            return math.nan
    return found if isinstance(found, (int, float)) and not isinstance(found, bool) else math.nan


def measurements(found: dict) -> list[dict]:
    """A fingerprint's (machine.json's) measurements: its start and end primitives, those taken."""
    return [found.get(end) or {} for end in ("start", "end") if found.get(end)]


def primitive(measured: list[dict], column: str) -> float:
    """The median of one PRIMITIVES column over fingerprint measurements (nan where none has it)."""
    path = dict(PRIMITIVES)[column]
    usable = [m for m in measured if path[0] != "mutex_handoffs" or m.get("version", 1) >= MUTEX_FROM_VERSION]
    values = [v for v in (_dig(m, path) for m in usable) if math.isfinite(v)]
    return float(np.median(values)) if values else math.nan


def machines(folders: list[Path]) -> pd.DataFrame:
    """Each kind seen among the runs: its runs and, where they recorded fingerprints, the median of
    each primitive over their start and end measurements."""
    from ..machine import kind_of_run

    by_kind: dict[str, list] = {}
    for folder in folders:
        by_kind.setdefault(kind_of_run(folder), []).append(folder)
    rows = []
    for kind, runs in sorted(by_kind.items()):
        measured = []
        for folder in runs:
            record = Path(folder) / "machine.json"
            if record.is_file():
                found = json.loads(record.read_text(encoding="utf-8"))
                measured += measurements(found)
        row = {"kind": kind, "runs": len(runs), "run_names": " ".join(Path(r).name for r in runs),
               "fingerprints": len(measured)}
        for column, _ in PRIMITIVES:
            row[column] = round(primitive(measured, column), 6)
        rows.append(row)
    return pd.DataFrame(rows, columns=["kind", "runs", "run_names", "fingerprints", *(c for c, _ in PRIMITIVES)])


def _pooled(group: pd.DataFrame, scale: str) -> tuple[float, float, float]:
    """The kind's effect and 95% interval: the runs pooled by Paule-Mandel weights on `scale`."""
    on = lambda column: group[column].map(lambda v: to_scale(float(v), scale)).to_numpy(dtype=float)
    effects = on("effect")
    se = (on("own_high") - on("own_low")) / (2 * group["own_z"].to_numpy(dtype=float))
    tau = paule_mandel(effects, se)
    w = 1.0 / (np.maximum(se, 1e-12) ** 2 + tau ** 2)
    mean = float((w * effects).sum() / w.sum())
    half = Z * math.sqrt(1.0 / float(w.sum()) + tau ** 2)  # a further run of the kind, not only the mean
    return from_scale(mean, scale), from_scale(mean - half, scale), from_scale(mean + half, scale)


def kind_estimates(folders: list[Path]) -> pd.DataFrame:
    """Per timed finding and kind (current criterion and method, at least two runs): the pooled
    effect and interval, the runs' verdicts, and the kinds it is apart from."""
    rows = pd.concat([timed_rows(f) for f in folders], ignore_index=True) if folders else pd.DataFrame()
    if rows.empty:
        return pd.DataFrame(columns=COLUMNS)
    rows = rows[(rows["role"] == "finding") & ~rows["kind"].str.endswith("unknown CPU")]
    out = []
    for (study, claim), group in rows.groupby(["study", "id"], sort=True):
        criteria = load_criteria(study)
        c = criteria.claims.get(claim)
        if c is None or not c.timed:
            continue
        group = group[(group["criterion"] == c.text_of_criterion()) & (group["method"] == criteria.method)]
        for kind, runs in group.groupby("kind", sort=True):
            runs = runs.drop_duplicates("run")
            if len(runs) < 2:
                continue
            scale = scale_of(runs["criterion"].iloc[0], runs) if effect_scale(c.get("effect")) != "linear" else "linear"
            effect, low, high = _pooled(runs, scale)
            verdicts = runs["reproduced"].value_counts() if "reproduced" in runs else pd.Series(dtype=int)
            out.append({"study": study, "id": claim, "kind": kind, "method": criteria.method, "runs": len(runs),
                        "run_names": " ".join(runs["run"]), "effect": round(effect, 4), "low": round(low, 4),
                        "high": round(high, 4), **{v: int(verdicts.get(v, 0)) for v in ("yes", "no", "inconclusive")},
                        "apart_from": "", "criterion": c.text_of_criterion()})
    table = pd.DataFrame(out, columns=COLUMNS)
    for (study, claim), group in table.groupby(["study", "id"]):
        for i, row in group.iterrows():
            others = [o.kind for o in group.itertuples() if o.kind != row.kind and (o.low > row.high or o.high < row.low)]
            table.at[i, "apart_from"] = "; ".join(others)
    return table


def dependent(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of the findings whose kinds are apart (every kind's row of such a finding)."""
    apart = table.loc[table["apart_from"] != "", ["study", "id"]].drop_duplicates()
    return table.merge(apart, on=["study", "id"])


def write(folders: list[Path] | None = None, out: Path | None = None, machines_out: Path | None = None):
    folders = folders or run_folders([])
    table = kind_estimates(folders)
    if out is not None:
        table.to_csv(out, index=False)
    found = machines(folders)
    if machines_out is not None:
        found.to_csv(machines_out, index=False)
    return table, found
