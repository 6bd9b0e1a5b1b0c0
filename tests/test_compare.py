"""`dbrepro compare RUN_A RUN_B`: two runs' verdicts side by side (dbrepro.verdicts.compare).

Synthetic run folders only: no engine, no workflow run.
"""
from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd
import pytest

from dbrepro import cli
from dbrepro.verdicts import compare

FIELDS = ["study", "id", "role", "text", "setting", "setting_note", "ours", "theirs", "reproduced",
          "effect", "ci_low", "ci_high", "unit", "repeats", "cells_dropped", "profile", "criterion",
          "mechanism", "reason"]
FINAL = "compare: {} findings, {} agree, {} yes/no flips, {} other differences"


def write_table(path: Path, rows: list[dict], fields=FIELDS) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({"text": f"finding {row['id']}", "setting": "scaled", **row})


def row(study, id, verdict, effect="", low="", high="", role="finding"):
    return {"study": study, "id": id, "role": role, "reproduced": verdict,
            "effect": effect, "ci_low": low, "ci_high": high}


def make_run(root: Path, findings: dict[str, list[dict]], checks: dict[str, list[dict]] | None = None) -> Path:
    for study, rows in findings.items():
        write_table(root / "tables" / study / "findings.csv", rows)
    for study, rows in (checks or {}).items():
        write_table(root / "tables" / study / "checks.csv", rows)
    return root


# (study, id, role, run A's (verdict, effect, ci_low, ci_high), run B's); None: not in that run.
ROWS = [
    ("looking_glass", "F1", "finding", ("yes", 1.5, 1.4, 1.6), ("yes", 1.55, 1.45, 1.65)),  # agree
    ("looking_glass", "F2", "finding", ("yes", 2.0, 1.8, 2.2), ("no", 1.0, 0.9, 1.1)),  # flip
    ("looking_glass", "F3", "finding", ("no", 0.9, 0.8, 1.0), ("inconclusive", 0.95, 0.7, 1.2)),  # other
    ("looking_glass", "F4", "finding", ("yes",), None),  # only in A
    ("looking_glass", "F5", "finding", None, ("no",)),  # only in B
    ("fifo_cache", "F1", "finding", ("inconclusive",), ("inconclusive",)),  # agree
    ("looking_glass", "C1", "check", ("yes",), ("no",)),  # a check that flips
    ("looking_glass", "C2", "check", ("no",), ("no",)),  # a check that agrees
]


@pytest.fixture
def runs(tmp_path):
    """Run A, a results folder, and B, laid out as a committed reference copy (ROWS)."""
    folders = []
    for side, root in enumerate([tmp_path / "a", tmp_path / "reference" / "runs" / "b"]):
        tables: dict[str, dict[str, list[dict]]] = {"finding": {}, "check": {}}
        for study, id, role, *values in ROWS:
            if values[side] is not None:
                tables[role].setdefault(study, []).append(row(study, id, *values[side], role=role))
        folders.append(make_run(root, tables["finding"], tables["check"]))
    return tuple(folders)


def run_cli(capsys, *args):
    code = cli.main(["compare", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_counts_agree_flip_other_and_one_run_only(runs, capsys):
    code, lines, err = run_cli(capsys, *runs)
    assert code == 0 and err == ""
    # 6 findings in either run: F1..F5 of looking_glass and fifo_cache's F1.
    assert lines[-1] == FINAL.format(6, 2, 1, 3)
    assert "looking_glass/F2: yes 2 [1.8, 2.2] -> no 1 [0.9, 1.1] (flip; intervals overlap: no)" in lines
    assert "looking_glass/F3: no 0.9 [0.8, 1] -> inconclusive 0.95 [0.7, 1.2] (other; intervals overlap: yes)" in lines
    assert "looking_glass/F4: yes -> absent (only_a)" in lines
    assert "looking_glass/F5: absent -> no (only_b)" in lines
    assert not any(line.startswith("looking_glass/F1:") for line in lines)  # no difference, no line
    assert not any("C1" in line for line in lines)  # checks are left out by default
    assert lines[0].split()[:3] == ["study", "id", "role"]  # the table is printed
    # Issue 40: a rerun whose interval misses the first run's is named.
    assert lines[-2].startswith("intervals: ") and "of them apart (looking_glass/F2" in lines[-2]


def test_checks_are_listed_and_counted_on_their_own_line(runs, capsys):
    code, lines, _ = run_cli(capsys, *runs, "--checks")
    assert code == 0
    assert lines[-1] == FINAL.format(6, 2, 1, 3)  # findings' counts unchanged
    assert lines[-2] == "checks: 2 checks, 1 agree, 1 yes/no flips, 0 other differences"
    assert "looking_glass/C1 (check): yes -> no (flip)" in lines
    _, plain, _ = run_cli(capsys, *runs)
    assert not any(line.startswith("checks:") for line in plain)


def test_api_table(runs):
    table = compare.compare_runs(compare.load_run(runs[0]), compare.load_run(runs[1]), include_checks=True)
    for column in ["study", "id", "text", "verdict_a", "effect_a", "ci_low_a", "ci_high_a", "verdict_b",
                   "effect_b", "ci_low_b", "ci_high_b", "agree", "difference", "overlap"]:
        assert column in table.columns
    by_id = table.set_index(["study", "id"])
    assert by_id.loc[("looking_glass", "F1"), ["agree", "difference", "overlap"]].tolist() == ["yes", "none", "yes"]
    assert by_id.loc[("looking_glass", "F2"), "difference"] == "flip"
    only_a = by_id.loc[("looking_glass", "F4"), ["agree", "difference", "overlap"]].tolist()
    assert only_a == ["no", "only_a", "unknown"]
    assert by_id.loc[("looking_glass", "F5"), "text"] == "finding F5"  # from B, where only B has it
    # Findings first, study by study in A's order, B's extra row after A's; then checks.
    assert list(zip(table["study"], table["id"])) == [
        ("fifo_cache", "F1"), ("looking_glass", "F1"), ("looking_glass", "F2"), ("looking_glass", "F3"),
        ("looking_glass", "F4"), ("looking_glass", "F5"), ("looking_glass", "C1"), ("looking_glass", "C2")]
    assert compare.summary_line(table) == FINAL.format(6, 2, 1, 3)
    assert compare.summary_line(compare.compare_runs(*runs)) == FINAL.format(6, 2, 1, 3)


def test_same_run_agrees_with_itself(runs, capsys):
    code, lines, _ = run_cli(capsys, runs[0], runs[0], "--checks")
    assert code == 0 and lines[-1] == FINAL.format(5, 5, 0, 0)


def test_out_csv_and_markdown(runs, tmp_path, capsys):
    out = tmp_path / "cmp" / "table.csv"
    out.parent.mkdir()  # outside the working folder, --out makes no folder
    code, lines, _ = run_cli(capsys, *runs, "--out", out)
    assert code == 0 and lines[0] == f"table: {out}"
    assert lines[-1] == FINAL.format(6, 2, 1, 3)
    assert not any(line.startswith("study ") for line in lines)  # the table went to the file
    table = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert len(table) == 6 and list(table.columns) == list(compare.COLUMNS)
    assert table.set_index("id").loc["F2", ["verdict_a", "verdict_b", "effect_a", "ci_high_b"]].tolist() == [
        "yes", "no", "2", "1.1"]

    markdown = tmp_path / "table.md"
    assert run_cli(capsys, *runs, "--checks", "--out", markdown)[0] == 0
    text = markdown.read_text().splitlines()
    assert text[0] == "| " + " | ".join(compare.COLUMNS) + " |"
    assert len(text) == 2 + 8


def test_optional_columns_may_be_missing(tmp_path, capsys):
    minimal = ["study", "id", "reproduced"]
    a, b = tmp_path / "a", tmp_path / "b"
    write_table(a / "tables" / "quantum" / "findings.csv", [row("quantum", "F1", "yes")], minimal)
    write_table(b / "tables" / "quantum" / "findings.csv", [row("quantum", "F1", "inconclusive")], minimal)
    code, lines, _ = run_cli(capsys, a, b)
    assert code == 0
    assert "quantum/F1: yes -> inconclusive (other)" in lines
    assert lines[-1] == FINAL.format(1, 0, 0, 1)


def one_line_error(capsys, *args) -> str:
    code, _, err = run_cli(capsys, *args)
    assert code == 2
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    return err


def test_missing_directory(runs, tmp_path, capsys):
    err = one_line_error(capsys, runs[0], tmp_path / "nowhere")
    assert err.startswith("dbrepro: error: RUN_B:") and "is not a directory" in err


def test_folder_without_findings(runs, tmp_path, capsys):
    (tmp_path / "empty" / "tables" / "quantum").mkdir(parents=True)
    assert "no tables/<study>/findings.csv" in one_line_error(capsys, tmp_path / "empty", runs[1])


def test_bad_verdict(runs, capsys):
    path = runs[1] / "tables" / "fifo_cache" / "findings.csv"
    write_table(path, [row("fifo_cache", "F1", "maybe")])
    err = one_line_error(capsys, *runs)
    assert "RUN_B:" in err and "fifo_cache/F1" in err and "'maybe'" in err


def test_missing_required_column(runs, capsys):
    path = runs[0] / "tables" / "quantum" / "findings.csv"
    write_table(path, [row("quantum", "F1", "yes")], ["study", "id", "text"])
    assert "missing required column(s) reproduced" in one_line_error(capsys, *runs)


def test_duplicate_id(runs, capsys):
    path = runs[0] / "tables" / "quantum" / "findings.csv"
    write_table(path, [row("quantum", "F1", "yes"), row("quantum", "F1", "no")])
    assert "quantum/F1 appears more than once" in one_line_error(capsys, *runs)


def test_bad_option(runs, capsys):
    assert "--nope" in one_line_error(capsys, *runs, "--nope")
