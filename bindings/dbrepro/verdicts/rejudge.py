"""Committed runs re-judged under today's criteria: `dbrepro verdicts rejudge`.

A run judged each timed finding once, at its end, widening its own interval
by the between-run estimate of its commit. When the criteria or that
estimate change (a criteria commit of its own), this shows what the runs
already committed read under the new ones. Each row of a run's
`findings.csv` and `checks.csv` is rebuilt as the outcome the run's repeats
gave (the unwidened interval, `within_ci_low/high`, at the row's own level,
`alpha_per_look`), then passed through the same `judge.widen_for_reruns`
and `tables` a fresh run uses. Counts keep their verdicts (an exact value
does not move with a spread); a row whose criterion text has changed since
the run cannot be re-judged and is kept as it was. Nothing is measured
again: it shows how a criteria change moves committed verdicts (for its
HISTORY row), and does not stand in for a fresh run.
"""
from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path

import pandas as pd

from .context import Context, level_text
from .criteria import Criteria, band_text, load_criteria
from .judge import ClaimResult, widen_for_reruns
from .outcome import NOT_JUDGED, WITHIN_RUN, Outcome, far_beyond, precision_note
from .tables import CLAIM_COLUMNS, ROLE_FILES, claims_frame

NEEDED = frozenset({"study", "id", "role", "reproduced", "criterion", "effect", "ci_low", "ci_high", "repeats", "ours"})
_ALONE = re.compile(r"\(within the run alone: (\w+)\)")
# What judging appended to a timed row's pairing after its repeats: taken off to rebuild it.
_APPENDED = ("; widened for reruns", "; no between-run estimate", "; decided at look")
_SEEDS = re.compile(r"deterministic count on seeds? ([0-9, ]+)")


def number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def own_verdict(row: dict) -> str:
    """The run's verdict before any widening."""
    alone = _ALONE.search(str(row.get("reason", "")))
    return alone.group(1) if alone else str(row["reproduced"])


def _own_pairing(text: str) -> str:
    cut = min([text.find(s) for s in _APPENDED if s in text] or [len(text)])
    return text[:cut]


def _timed_outcome(row: dict, c, context: Context, common: dict) -> Outcome:
    effect = number(row["effect"])
    low, high = number(row.get("within_ci_low", "")), number(row.get("within_ci_high", ""))
    if not (math.isfinite(low) and math.isfinite(high)):
        low, high = number(row["ci_low"]), number(row["ci_high"])
    verdict = own_verdict(row)
    level, band = level_text(context.confidence), band_text(c.band)
    reason = {"yes": "", "no": f"the {level} {WITHIN_RUN} [{low:.4g}, {high:.4g}] lies outside {band}",
              "inconclusive": f"the {level} {WITHIN_RUN} [{low:.4g}, {high:.4g}] straddles {band}"}[verdict]
    return Outcome(verdict, effect, low, high, reason=reason, pairing=_own_pairing(str(row.get("pairing", ""))),
                   confidence=context.confidence, **common)


def _kept_outcome(row: dict, c, common: dict) -> Outcome:
    seeds = _SEEDS.search(str(row.get("pairing", "")))
    seeds = tuple(int(s) for s in seeds.group(1).replace(" ", "").split(",") if s) if seeds else ()
    outcome = Outcome(str(row["reproduced"]), number(row["effect"]), number(row["ci_low"]), number(row["ci_high"]),
                      pairing=str(row.get("pairing", "")), seeds=seeds, **common)
    # The stored reason is the row's whole explanation: what the row adds again is taken out.
    added = {far_beyond(outcome, c.band), precision_note(outcome, c.band)} - {""}
    return replace(outcome, reason="; ".join(p for p in str(row.get("reason", "")).split("; ") if p not in added))


def rebuilt(row: dict, criteria: Criteria, context: Context) -> ClaimResult | None:
    """The row as the claim result its run's repeats gave, or None where its criterion changed."""
    claim_id, _, variant = str(row["id"]).partition("@")
    c = criteria.claims.get(claim_id)
    if c is None or c.text_of_criterion() != row["criterion"]:
        return None
    common = {"repeats": int(number(row["repeats"])) if str(row["repeats"]).strip() else None,
              "look": int(number(row["looks"])) if str(row.get("looks", "")).strip() else None,
              "cells_dropped": int(number(row.get("cells_dropped", 0)) or 0)}
    timed = (c.timed and row["reproduced"] != NOT_JUDGED
             and all(map(math.isfinite, (number(row["effect"]), number(row["ci_low"]), number(row["ci_high"])))))
    outcome = _timed_outcome(row, c, context, common) if timed else _kept_outcome(row, c, common)
    theirs = row.get("theirs")
    return ClaimResult(c, str(row["ours"]), outcome, theirs=None if theirs is None else str(theirs), variant=variant)


def rows_of(study_dir: Path) -> list[dict] | None:
    """A study's findings and checks as committed, or None where the tables predate the columns
    a row needs."""
    frames = [pd.read_csv(study_dir / name, keep_default_na=False, dtype=str)
              for name in ROLE_FILES.values() if (study_dir / name).is_file()]
    if not frames or not all(NEEDED <= set(f.columns) for f in frames):
        return None
    return pd.concat(frames, ignore_index=True).to_dict("records")


def rejudged_tables(folder: Path, criteria_of=load_criteria) -> dict[str, pd.DataFrame]:
    """{study: its claims table re-judged} for one run folder (`tables/<study>/findings.csv`), each
    timed row widened by the spread of the run's own kind of machine (dbrepro.machine)."""
    from ..machine import kind_of_run

    out = {}
    for study_dir in sorted(p for p in (Path(folder) / "tables").glob("*") if p.is_dir()):
        rows = rows_of(study_dir)
        if rows is None:
            continue
        criteria = criteria_of(study_dir.name)
        alpha = next((a for a in (number(r.get("alpha_per_look", "")) for r in rows) if math.isfinite(a) and a > 0),
                     None)
        context = Context.at_alpha(alpha, kind=kind_of_run(folder))  # the run's own kind of machine
        results, kept = [], []
        for row in rows:
            result = rebuilt(row, criteria, context)
            if result is None:
                kept.append({name: row.get(name, "") for name in CLAIM_COLUMNS})
            else:
                results.append(result)
        frame = claims_frame(widen_for_reruns(results, criteria, context), study_dir.name)
        if kept:
            frame = pd.concat([frame, pd.DataFrame(kept, columns=CLAIM_COLUMNS)], ignore_index=True)
        out[study_dir.name] = frame
    return out


def table_texts(frame: pd.DataFrame) -> dict[str, str]:
    """claims.csv, findings.csv and checks.csv of one study's table, as the writer writes them."""
    texts = {"claims.csv": frame.to_csv(index=False)}
    for role, name in ROLE_FILES.items():
        texts[name] = frame[frame["role"] == role].to_csv(index=False)
    return texts


def write_rejudged(folder: Path, out: Path) -> list[Path]:
    """The run's re-judged tables under out/<run>/tables/<study>/; the paths written."""
    written = []
    for study, frame in rejudged_tables(folder).items():
        target = Path(out) / Path(folder).name / "tables" / study
        target.mkdir(parents=True, exist_ok=True)
        for name, text in table_texts(frame).items():
            (target / name).write_text(text, encoding="utf-8")
            written.append(target / name)
    return written


def timed_changes(folder: Path) -> pd.DataFrame:
    """Per timed finding of one run: its verdict and interval as run and as re-judged."""
    out = []
    for study, frame in rejudged_tables(folder).items():
        criteria = load_criteria(study)
        committed = {row["id"]: row for row in rows_of(Path(folder) / "tables" / study) or []}
        for row in frame[frame["role"] == "finding"].to_dict("records"):
            was = committed[row["id"]]
            if not str(was["repeats"]).strip() or was["reproduced"] == NOT_JUDGED or not str(was["ci_low"]).strip():
                continue
            c = criteria.claims.get(str(row["id"]).partition("@")[0])
            if c is None or not c.timed:
                continue
            changed = c.text_of_criterion() != was["criterion"]
            out.append({"run": Path(folder).name, "study": study, "id": row["id"], "was": was["reproduced"],
                        "effect": number(was["effect"]), "was_low": number(was["ci_low"]),
                        "was_high": number(was["ci_high"]), "now": "" if changed else row["reproduced"],
                        "now_low": number(row["ci_low"]), "now_high": number(row["ci_high"]),
                        "tau": number(row["between_run_sd"]),
                        "note": "criterion changed since this run" if changed else ""})
    return pd.DataFrame(out)


def apart(a_low, a_high, b_low, b_high) -> bool:
    """Two intervals that do not overlap (what `compare` calls apart)."""
    return bool(max(a_low, b_low) > min(a_high, b_high))
