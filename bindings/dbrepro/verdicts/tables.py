"""Tables: the rows of claims.csv (one column list, `CLAIM_COLUMNS`, which
`compare` reads too), findings.csv and checks.csv beside it, claims.md, the
counts every summary prints, and a look's record of outcomes. It writes what
`judge.judge_all` decided and never judges.

Last link of the chain criteria -> stats -> outcome -> judge -> tables.
"""
from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from types import MappingProxyType
from typing import Sequence

from .context import Context, level_text
from .criteria import SETTINGS, Criteria
from .judge import SIGNIFICANT, ClaimResult, rounded_number
from .outcome import NOT_JUDGED, OUTCOMES, RERUN, SEED_RANGE, WITHIN_RUN, Outcome

CLAIM_COLUMNS = ("study", "id", "role", "claim", "setting", "setting_note", "ours", "theirs", "reproduced", "effect",
                 "ci_low", "ci_high", "repeats", "pairing", "cells_dropped", "criterion", "mechanism", "reason",
                 "within_ci_low", "within_ci_high", "between_run_sd", "between_run_source", "looks", "alpha_per_look",
                 "interval_kind")
# Which file holds the rows of each role, beside claims.csv.
ROLE_FILES = MappingProxyType({"finding": "findings.csv", "check": "checks.csv"})


def row_of(result: ClaimResult, study: str = "") -> dict:
    """One row of claims.csv (CLAIM_COLUMNS)."""
    o, c = result.outcome, result.criterion
    effect, low, high = rounded(o.value, o.ci_low, o.ci_high)
    return {
        "study": study, "id": result.row_id, "role": result.role, "claim": result.text,
        "setting": c.setting, "setting_note": c.get("setting_note", ""),
        "ours": result.ours, "theirs": result.theirs if result.theirs is not None else c.theirs,
        "reproduced": o.reproduced, "effect": effect, "ci_low": low, "ci_high": high,
        "repeats": "" if o.repeats is None else int(o.repeats),
        "pairing": o.pairing if c.timed else count_pairing(o),
        "cells_dropped": int(o.cells_dropped),
        "criterion": c.text_of_criterion(), "mechanism": c.mechanism,
        "reason": result.explanation(),
        **dict(zip(("within_ci_low", "within_ci_high"), rounded(o.value, o.within_low, o.within_high)[1:])),
        "between_run_sd": rounded_number(o.between_sd),
        "between_run_source": o.between_source,
        "looks": "" if o.look is None else int(o.look),
        "alpha_per_look": "" if o.look is None else rounded_number(1.0 - o.confidence),
        "interval_kind": interval_kind(o),
    }


def interval_kind(o: Outcome) -> str:
    """What ci_low..ci_high is: the rerun interval (a timed interval widened by the between-run spread,
    the one that decides), the within-run CI (not widened), a count's seed range, or none."""
    if not all(map(math.isfinite, (o.ci_low, o.ci_high))):
        return ""
    if len(o.seeds) > 1:
        return SEED_RANGE
    return RERUN if math.isfinite(o.within_low) else f"{level_text(o.confidence)} {WITHIN_RUN}"


def count_pairing(outcome: Outcome) -> str:
    if len(outcome.seeds) > 1:
        return (f"deterministic count on seeds {', '.join(map(str, outcome.seeds))}: the effect is seed "
                f"{outcome.seeds[0]}'s, the interval the range over the seeds")
    if outcome.seeds:
        return f"deterministic count on seed {outcome.seeds[0]}"
    return "deterministic count"


def rounded(value: float, low: float, high: float) -> tuple:
    """The effect and its interval to the same decimal place (that of the value's 4th significant digit)."""
    finite = [abs(v) for v in (value, low, high) if v is not None and math.isfinite(v) and v != 0]
    if not finite:
        return tuple(rounded_number(v) for v in (value, low, high))
    places = max(0, SIGNIFICANT - 1 - int(math.floor(math.log10(max(finite)))))
    return tuple("" if v is None or not math.isfinite(v) else round(float(v), places) for v in (value, low, high))


def claims_frame(results: Sequence[ClaimResult], study: str = ""):
    import pandas as pd

    frame = pd.DataFrame([row_of(r, study) for r in results], columns=CLAIM_COLUMNS)
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


def tally(items) -> dict:
    """The one count every place prints (claims.md, the summary's headline and table, the paper):
    yes, no, inconclusive and `not judged` among `items` (rows or results), `judged` (those with a
    verdict: the denominator; a claim not judged by this profile is never in it), `total`, and
    per setting (original, scaled) its yes over its judged."""
    found = counts(items)
    on = judged(items)
    settings = {}
    for setting in SETTINGS:
        at = (on[on["setting"] == setting] if hasattr(on, "columns") and "setting" in on.columns
              else [r for r in on if not hasattr(on, "columns") and r.criterion.setting == setting])
        if len(at):
            settings[setting] = (counts(at)["yes"], len(at))
    return {**found, "judged": len(on), "total": len(items), "settings": settings}


def share_text(found: dict, setting: str) -> str:
    """'y/J' of a tally at one setting, '-' where it judged none there."""
    yes, of = found["settings"].get(setting, (0, 0))
    return f"{yes}/{of}" if of else "-"


def role_counts(frame) -> dict[str, dict]:
    """{"findings": tally, "checks": tally} of a claims table (`tally`: judged is the denominator)."""
    return {name: tally(part) for name, part in zip(("findings", "checks"), split_roles(frame))}


def headline(results: Sequence[ClaimResult]) -> str:
    """'y of J judged findings reproduced (n no, i inconclusive; original setting a/b, scaled c/d);
    k not judged here; checks: ...'. A finding this profile did not run for is counted apart."""
    f = tally([r for r in results if r.role == "finding"])
    c = tally([r for r in results if r.role == "check"])
    settings = [f"{share_text(f, setting)} at the {setting} setting" for setting in SETTINGS if setting in f["settings"]]
    apart = f"; {f[NOT_JUDGED]} of {f['total']} not judged by this profile" if f[NOT_JUDGED] else ""
    checks_apart = f", {c[NOT_JUDGED]} not judged" if c[NOT_JUDGED] else ""
    return (f"{f['yes']} of {f['judged']} judged findings reproduced ({f['no']} no, {f['inconclusive']} inconclusive; "
            f"{', '.join(settings) or 'none'}){apart}; checks beside, not added in: {c['yes']} yes, {c['no']} no, "
            f"{c['inconclusive']} inconclusive{checks_apart} of {c['total']}")


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _effect_text(row: dict) -> str:
    if row["effect"] == "":
        return ""
    text = f"{row['effect']:g}"
    if row["ci_low"] != "":
        text += f" [{row['ci_low']:g}, {row['ci_high']:g}] ({row['interval_kind']})"
    return text


def _table(results: Sequence[ClaimResult], study: str, context: Context) -> list[str]:
    ci = "effect [interval]"
    shown = ["claim", "setting", "ours", "theirs", "reproduced", ci, "repeats"]
    lines = ["| " + " | ".join(shown) + " |", "|" + "---|" * len(shown)]
    for result in results:
        row = row_of(result, study)
        row[ci] = _effect_text(row)
        lines.append("| " + " | ".join(_cell(row[c]) for c in shown) + " |")
    return lines


def load_account(context: Context, *frames) -> str:
    """How many timed cells foreign load made rerun or drop, from the tables' `attempts` and
    `disturbed` columns (issue 29), and the repeats made up (the context's makeups); empty where
    the runs carry neither."""
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
            + makeup_account(context.makeups))


def looks_text(results: Sequence[ClaimResult], context: Context) -> str:
    """claims.md's line on the sequential looks: how many, at which level, and where each timed
    finding's verdict comes from (the `looks` column)."""
    timed = [r for r in results if r.role == "finding" and r.criterion.timed and r.outcome.look is not None]
    by_look = {}
    for result in timed:
        by_look.setdefault(int(result.outcome.look), []).append(result.claim_id)
    where = "; ".join(f"look {look}: {len(ids)}" for look, ids in sorted(by_look.items())) or "none judged"
    return (f"Sequential looks (`workflows/claims/sequential.yaml`): this is look {context.look} of at most "
            f"{context.looks}; every look's interval is a {level_text(context.confidence)} one (alpha "
            f"{context.alpha_per_look:.4g} per "
            f"look, the 5% split evenly: Bonferroni), and a finding decided at a look keeps that verdict. Timed "
            f"findings by the look their verdict comes from: {where}.")


def makeup_account(makeups) -> str:
    """' r repeat(s) with a disturbed cell made up ...' from the run's makeups (Context.makeups:
    {grid: {"disturbed_repeats": [...], "makeups": m}}); empty where the profile makes none up."""
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


def claims_markdown(results: Sequence[ClaimResult], criteria: Criteria, context: Context, preamble: str = "") -> str:
    """claims.md: the findings, then the checks, each claim's criterion and source, and why the others differ."""
    lines = [f"# {criteria.title}", ""]
    if preamble:
        lines += [preamble, ""]
    lines += [f"{headline(results)}. Criteria: `workflows/claims/{criteria.study}.yaml` (their history: "
              f"`workflows/claims/HISTORY.md`); the original's numbers: `{criteria.paper_values}`.", ""]
    if context.looks > 1:
        lines += [looks_text(results, context), ""]
    for role, title in (("finding", "Findings of the original"), ("check", "Our checks (hypotheses, mechanisms, "
                                                                            "design; not in the headline)")):
        lines += [f"## {title}", ""] + _table([r for r in results if r.role == role], criteria.study, context) + [""]
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


def outcome_record(outcome: Outcome) -> dict:
    """An outcome as JSON (NaN as null), what a look's record keeps of a decided finding."""
    record = dataclasses.asdict(outcome)
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else (list(v) if isinstance(v, tuple) else v))
            for k, v in record.items()}


def write_outcomes(results: Sequence[ClaimResult], path) -> None:
    """Every row's outcome with its role and kind ({row id: ...}), for the look that reads it."""
    rows = {}
    for result in results:
        rows[result.row_id] = {"role": result.role, "timed": result.criterion.timed, "band": result.criterion.band,
                        "ours": result.ours, "outcome": outcome_record(result.outcome)}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def write_claims(results: Sequence[ClaimResult], criteria: Criteria, csv_path, md_path, context: Context,
                 preamble: str = "", extra_markdown: str = ""):
    """Writes claims.csv (CLAIM_COLUMNS, in the order judge_all left them: findings, then checks),
    findings.csv and checks.csv beside it, and claims.md (and, where the context says, every
    row's outcome for the next look); returns the table. Judges nothing."""
    if context.outcomes_out:
        write_outcomes(results, context.outcomes_out)
    table = claims_frame(results, criteria.study)
    csv_path = Path(csv_path)
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(csv_path, index=False)
    for role, name in ROLE_FILES.items():
        table[table["role"] == role].to_csv(csv_path.parent / name, index=False)
    text = claims_markdown(results, criteria, context, preamble)
    if extra_markdown:
        text += "\n" + extra_markdown.rstrip("\n") + "\n"
    Path(md_path).write_text(text, encoding="utf-8")
    return table
