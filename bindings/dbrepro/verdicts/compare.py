"""Two runs' verdicts side by side: which findings reproduce in both, which moved.

A run is a results folder, `results/` or a committed copy such as
`reference/runs/<name>/`, holding `tables/<study>/findings.csv` (the original
article's findings) and, optionally, `tables/<study>/checks.csv` (the
project's own hypotheses and design checks), one row per finding or check
identified by (study, id). Only `study`, `id` and `reproduced` are required;
the other columns (text, effect, ci_low, ci_high, unit, setting, ...) are read
where present.

    from dbrepro.verdicts import compare
    table = compare.compare_runs(compare.load_run("results"),
                                 compare.load_run("reference/runs/quick"))
    compare.summary_line(table)  # 'compare: F findings, A agree, X yes/no flips, Y other differences'

No engine is needed: this reads CSV files only.
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from .criteria import ROLES
from .outcome import OUTCOMES as VERDICTS  # "not judged" among them: the profile did not run for the finding
from .tables import ROLE_FILES as ROW_FILES

REQUIRED = ("study", "id", "reproduced")
NUMBERS = ("effect", "ci_low", "ci_high")
# Read where present, empty where not.
TEXTS = ("text", "unit", "setting")
# The kinds of difference, in the order the summary counts them.
DIFFERENCES = ("none", "flip", "other", "only_a", "only_b")

SIDE_COLUMNS = ("verdict", "effect", "ci_low", "ci_high", "setting")
COLUMNS = (
    "study", "id", "role", "text", "unit",
    "verdict_a", "effect_a", "ci_low_a", "ci_high_a",
    "verdict_b", "effect_b", "ci_low_b", "ci_high_b",
    "agree", "difference", "overlap", "setting_a", "setting_b",
)


class CompareError(ValueError):
    """A run that cannot be compared (not a folder, no findings, a bad table); one line."""


# ---------------------------------------------------------------------------
# Reading a run


def tables_folder(path: str | Path) -> Path:
    """The run's `tables/` folder; `path` may also be that folder itself."""
    root = Path(path)
    if not root.is_dir():
        raise CompareError(f"{path} is not a directory")
    tables = root / "tables"
    if tables.is_dir():
        return tables
    if any(root.glob("*/findings.csv")):
        return root
    raise CompareError(f"no tables/<study>/findings.csv under {path}")


def _read_table(path: Path, role: str) -> pd.DataFrame:
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        reason = (str(error).splitlines() or [type(error).__name__])[0]
        raise CompareError(f"{path}: not a readable CSV table ({reason})") from None
    missing = [column for column in REQUIRED if column not in frame.columns]
    if missing:
        raise CompareError(f"{path}: missing required column(s) {', '.join(missing)}")
    frame = frame.apply(lambda column: column.str.strip())
    out = pd.DataFrame({"study": frame["study"], "id": frame["id"]})
    if (out["study"] == "").any() or (out["id"] == "").any():
        row = int(((out["study"] == "") | (out["id"] == "")).to_numpy().argmax())
        raise CompareError(f"{path}: row {row + 2} has an empty study or id")
    out["role"] = frame["role"].replace("", role) if "role" in frame.columns else role
    bad_roles = sorted(set(out["role"]) - set(ROLES))
    if bad_roles:
        raise CompareError(f"{path}: role {bad_roles[0]!r} is not one of {', '.join(ROLES)}")
    out["verdict"] = frame["reproduced"]
    bad = ~out["verdict"].isin(VERDICTS)
    if bad.any():
        where = out[bad].iloc[0]
        raise CompareError(
            f"{path}: {where['study']}/{where['id']}: verdict {where['verdict']!r} "
            f"is not one of {', '.join(VERDICTS)}"
        )
    for column in TEXTS:
        out[column] = frame[column] if column in frame.columns else ""
    if "text" not in frame.columns and "claim" in frame.columns:  # the evaluator's name for the claim's words
        out["text"] = frame["claim"]
    for column in NUMBERS:
        out[column] = _numbers(frame[column], path, column) if column in frame.columns else math.nan
    return out


def _numbers(column: pd.Series, path: Path, name: str) -> pd.Series:
    values = pd.to_numeric(column.replace("", None), errors="coerce").astype(float)
    bad = values.isna() & (column != "")
    if bad.any():
        raise CompareError(f"{path}: column {name}: {column[bad].iloc[0]!r} is not a number")
    return values


def load_run(path: str | Path) -> pd.DataFrame:
    """Every finding and check of a run, one row each.

    Columns: study, id, role (finding|check), verdict, text, unit, setting,
    effect, ci_low, ci_high (NaN where empty). Raises CompareError when the
    folder holds no findings.csv, a table lacks study/id/reproduced, a verdict
    is not yes/no/inconclusive, or an (study, id) appears twice.
    """
    tables = tables_folder(path)
    parts = []
    found_findings = False
    for study in sorted(p for p in tables.iterdir() if p.is_dir()):
        for role, name in ROW_FILES.items():
            file = study / name
            if file.is_file():
                found_findings |= role == "finding"
                parts.append(_read_table(file, role))
    if not found_findings:
        raise CompareError(f"no tables/<study>/findings.csv under {path}")
    frame = pd.concat(parts, ignore_index=True)
    twice = frame.duplicated(["study", "id"])
    if twice.any():
        row = frame[twice].iloc[0]
        raise CompareError(f"{path}: {row['study']}/{row['id']} appears more than once")
    return frame


# ---------------------------------------------------------------------------
# Comparing two runs


def _difference(a: str, b: str) -> str:
    if not a:
        return "only_b"
    if not b:
        return "only_a"
    if a == b:
        return "none"
    return "flip" if {a, b} == {"yes", "no"} else "other"


def _overlap(row: pd.Series) -> str:
    bounds = [row["ci_low_a"], row["ci_high_a"], row["ci_low_b"], row["ci_high_b"]]
    if any(pd.isna(value) for value in bounds):
        return "unknown"
    low_a, high_a, low_b, high_b = bounds
    return "yes" if max(low_a, low_b) <= min(high_a, high_b) else "no"


def compare_runs(
    a: pd.DataFrame | str | Path, b: pd.DataFrame | str | Path, include_checks: bool = False
) -> pd.DataFrame:
    """One row per (study, id) in either run: both verdicts, effects, intervals.

    `a` and `b` are load_run frames or run folders. `agree` is yes when both
    runs hold the row with the same verdict; `difference` is none, flip (yes
    in one, no in the other), other (one of them inconclusive), only_a or
    only_b; `overlap` says whether the two 95% intervals overlap (unknown
    when either is missing). Findings come first, then checks (with
    include_checks), study by study in run A's order, a study's rows only in
    B after its rows in A.
    """
    a = load_run(a) if not isinstance(a, pd.DataFrame) else a
    b = load_run(b) if not isinstance(b, pd.DataFrame) else b
    if not include_checks:
        a, b = a[a["role"] == "finding"], b[b["role"] == "finding"]
    sides = []
    for frame, suffix in ((a, "_a"), (b, "_b")):
        side = frame[["study", "id", "role", "text", "unit", *SIDE_COLUMNS]].copy()
        sides.append(side.rename(columns={c: c + suffix for c in ("role", "text", "unit", *SIDE_COLUMNS)}))
    table = sides[0].merge(sides[1], on=["study", "id"], how="outer")
    for column in ("role", "text", "unit"):
        # A's words where it has the row, B's where only B has it.
        table[column] = table[column + "_a"].where(table[column + "_a"].notna(), table[column + "_b"])
    for column in ("verdict_a", "verdict_b", "setting_a", "setting_b"):
        table[column] = table[column].fillna("")
    table["difference"] = [_difference(x, y) for x, y in zip(table["verdict_a"], table["verdict_b"])]
    table["agree"] = (table["difference"] == "none").map({True: "yes", False: "no"})
    table["overlap"] = table.apply(_overlap, axis=1) if len(table) else pd.Series(dtype=str)
    # An outer merge sorts its keys; put the rows back in the runs' order.
    keys = list(dict.fromkeys([*zip(a["study"], a["id"]), *zip(b["study"], b["id"])]))
    position = {key: n for n, key in enumerate(keys)}
    table["_role"] = table["role"].map({role: n for n, role in enumerate(ROLES)})
    studies = {study: n for n, study in enumerate(dict.fromkeys(study for study, _ in keys))}
    table["_study"] = table["study"].map(studies)
    table["_order"] = [position[key] for key in zip(table["study"], table["id"])]
    table = table.sort_values(["_role", "_study", "_order"], kind="stable")
    return table[list(COLUMNS)].reset_index(drop=True)


def counts(frame: pd.DataFrame, role: str = "finding") -> dict[str, int]:
    """rows, agree, flip and other (every other difference, one-run-only included) of one role."""
    rows = frame[frame["role"] == role]["difference"]
    return {
        "rows": len(rows),
        "agree": int((rows == "none").sum()),
        "flip": int((rows == "flip").sum()),
        "other": int(rows.isin(["other", "only_a", "only_b"]).sum()),
    }


def interval_line(frame: pd.DataFrame, role: str = "finding") -> str:
    """'intervals: N findings with an interval in both runs, K of them apart (AREA/ID, ...)': a
    rerun whose interval misses the first run's is the failure a verdict's interval must cover."""
    rows = frame[(frame["role"] == role) & (frame["overlap"] != "unknown")]
    apart = rows[rows["overlap"] == "no"]
    named = f" ({', '.join(apart['study'] + '/' + apart['id'])})" if len(apart) else ""
    return f"intervals: {len(rows)} {role}s with an interval in both runs, {len(apart)} of them apart{named}"


def summary_line(frame: pd.DataFrame, role: str = "finding") -> str:
    """'compare: F findings, A agree, X yes/no flips, Y other differences' (checks: 'checks: C checks, ...')."""
    c = counts(frame, role)
    prefix = "compare" if role == "finding" else "checks"
    return (f"{prefix}: {c['rows']} {role}s, {c['agree']} agree, {c['flip']} yes/no flips, "
            f"{c['other']} other differences")


# ---------------------------------------------------------------------------
# Showing it


def _number(value) -> str:
    return "" if value is None or pd.isna(value) else f"{value:.4g}"


def _side(row: pd.Series, suffix: str) -> str:
    verdict = row["verdict" + suffix]
    if not verdict:
        return "absent"
    text = verdict
    effect = _number(row["effect" + suffix])
    if effect:
        text += f" {effect}"
    low, high = _number(row["ci_low" + suffix]), _number(row["ci_high" + suffix])
    if low or high:
        text += f" [{low or '?'}, {high or '?'}]"
    return text


def difference_lines(frame: pd.DataFrame) -> list[str]:
    """One line per row that differs: 'study/id: A -> B', each verdict with its effect [interval]."""
    lines = []
    for _, row in frame[frame["difference"] != "none"].iterrows():
        mark = " (check)" if row["role"] == "check" else ""
        unit = f" {row['unit']}" if row["unit"] else ""
        overlap = "" if row["overlap"] == "unknown" else f"; intervals overlap: {row['overlap']}"
        lines.append(f"{row['study']}/{row['id']}{mark}: {_side(row, '_a')} -> {_side(row, '_b')}"
                     f"{unit} ({row['difference']}{overlap})")
    return lines


TEXT_WIDTH = 48


def table_lines(frame: pd.DataFrame) -> list[str]:
    """A fixed-width table for a terminal (the text shortened to TEXT_WIDTH characters)."""
    headers = ["study", "id", "role", "verdict_a", "effect_a [ci]", "verdict_b", "effect_b [ci]",
               "agree", "difference", "overlap", "text"]
    rows = []
    for _, row in frame.iterrows():
        text = row["text"] if isinstance(row["text"], str) else ""
        if len(text) > TEXT_WIDTH:
            text = text[: TEXT_WIDTH - 3] + "..."
        interval = {s: _side(row, s).partition(" ")[2] for s in ("_a", "_b")}
        rows.append([row["study"], row["id"], row["role"], row["verdict_a"] or "-", interval["_a"],
                     row["verdict_b"] or "-", interval["_b"], row["agree"], row["difference"],
                     row["overlap"], text])
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    fmt = lambda r: "  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip()  # noqa: E731
    return [fmt(headers), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)]


def _cell(value) -> str:
    if isinstance(value, float):
        return _number(value)
    return str(value).replace("|", "\\|").replace("\n", " ")


def to_markdown(frame: pd.DataFrame) -> str:
    """The table as GitHub Markdown (no extra dependency)."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for _, row in frame.iterrows():
        lines.append("| " + " | ".join(_cell(row[c]) for c in COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def write_table(frame: pd.DataFrame, out: str | Path) -> Path:
    """Writes the table: Markdown when `out` ends in .md, CSV otherwise. Its path."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".md":
        path.write_text(to_markdown(frame), encoding="utf-8")
    else:
        frame.to_csv(path, index=False, float_format="%.6g")
    return path
