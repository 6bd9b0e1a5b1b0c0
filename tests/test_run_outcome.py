"""The end of `make repro` says what came out: the summary's findings table
and where the summary, report and paper are (issue 31, item 7)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "workflows" / "scripts" / "run_outcome.py"


def test_it_prints_the_findings_table_and_the_paths(smoke_run):
    assert smoke_run.returncode == 0, smoke_run.output
    done = subprocess.run([sys.executable, str(SCRIPT), str(smoke_run.results)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    summary = (smoke_run.results / "summary.md").read_text(encoding="utf-8")
    table = [line for line in summary.splitlines() if line.startswith("| ")]
    assert table and all(line in done.stdout for line in table)  # the same rows, not recomputed
    assert "findings of the originals reproduced" in done.stdout
    assert str(smoke_run.results / "summary.md") in done.stdout


def test_a_folder_without_a_summary_is_one_line(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "no summary" in done.stderr
