"""A results table (CSV) as LaTeX: the claims tables and the key tables of each
study that the paper \\input s. Used by paper_build.py."""
from __future__ import annotations

import math
import re

import pandas as pd

_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"$\sim$", "^": r"\textasciicircum{}",
    # The default (OT1) fonts print < and > as inverted marks.
    "<": r"\textless{}", ">": r"\textgreater{}",
    # Characters that tables write and pdflatex's default set-up lacks.
    "\u2265": r"$\geq$", "\u2264": r"$\leq$", "\u00d7": r"$\times$", "\u2212": r"$-$", "\u00b5": r"$\mu$",
    "\u03bc": r"$\mu$", "\u00b1": r"$\pm$", "\u2248": r"$\approx$", "\u2192": r"$\rightarrow$",
    "\u2013": "--", "\u2014": "---",
}
_SPECIAL_RE = re.compile("|".join(re.escape(char) for char in _SPECIAL))
_OTHER_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def escape(text) -> str:
    """Plain text as LaTeX (special characters escaped; other non-ASCII
    characters, which would stop pdflatex, as ?)."""
    text = _SPECIAL_RE.sub(lambda match: _SPECIAL[match.group()], str(text))
    return _OTHER_NON_ASCII.sub("?", text)


def cell(value) -> str:
    """One table cell: numbers to 4 significant digits, text escaped, missing as a dash."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "--"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return escape(f"{value:.4g}" if abs(value) < 1e6 else f"{value:,.0f}")
    return escape(value)


def claims_tex(claims: pd.DataFrame) -> str:
    """Claims of a study's claims.csv (claim, ours, theirs, reproduced; its findings or its
    checks) as a longtable that breaks across pages; claims that do not reproduce are marked."""
    missing = {"claim", "ours", "theirs", "reproduced"} - set(claims.columns)
    if missing:
        raise ValueError(f"claims table lacks the columns {sorted(missing)}")
    lines = [
        # The three wrapped columns leave the last (its widest word, "inconclusive" in italics) its width.
        r"\begin{longtable}{@{}p{0.44\linewidth}p{0.17\linewidth}p{0.17\linewidth}l@{}}",
        r"\toprule claim & ours & theirs & reproduced \\ \midrule \endhead",
        r"\bottomrule \endfoot",
    ]
    for row in claims.itertuples(index=False):
        reproduced = str(row.reproduced).strip().lower() in ("yes", "true", "1")
        outcome = str(row.reproduced).strip().lower()
        mark = "yes" if reproduced else {"inconclusive": r"\textit{inconclusive}",
                                          "not judged": r"\textit{not judged here}"}.get(outcome, r"\textbf{no}")
        lines.append(f"{cell(row.claim)} & {cell(row.ours)} & {cell(row.theirs)} & {mark} \\\\")
    lines.append(r"\end{longtable}")
    return "\n".join(lines) + "\n"


def table_tex(table: pd.DataFrame, columns: list[str] | None = None, max_rows: int = 40) -> str:
    """Any results table as a tabular scaled to the text width: the listed
    columns (all when None), at most `max_rows` rows (the rest are counted)."""
    if columns:
        unknown = [column for column in columns if column not in table.columns]
        if unknown:
            raise ValueError(f"table has no columns {unknown} (it has {list(table.columns)})")
        table = table[columns]
    shown = table.head(max_rows)
    header = " & ".join(escape(column) for column in shown.columns)
    body = [" & ".join(cell(value) for value in row) + r" \\" for row in shown.itertuples(index=False)]
    lines = [
        # Shrunk to the text width if wider, never enlarged.
        r"\noindent\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%",
        r"\begin{tabular}{@{}" + "l" * len(shown.columns) + "@{}}",
        r"\toprule",
        header + r" \\",
        r"\midrule",
        *body,
        r"\bottomrule",
        r"\end{tabular}}",
    ]
    if len(table) > len(shown):
        lines.append(rf"\par\smallskip{{\footnotesize {len(table) - len(shown)} more rows in the CSV.}}")
    return "\n".join(lines) + "\n"
