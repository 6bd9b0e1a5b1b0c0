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
    headline = next(line for line in summary.splitlines() if line.startswith("**"))
    assert headline.replace("**", "") in done.stdout  # the summary's own headline
    assert str(smoke_run.results / "summary.md") in done.stdout


def test_a_folder_without_a_summary_is_one_line(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1 and "no summary" in done.stderr


def test_a_study_run_alone_is_counted_from_its_findings(tmp_path):
    tables = tmp_path / "tables" / "key_cache"
    tables.mkdir(parents=True)
    (tables / "findings.csv").write_text("study,id,reproduced\nkey_cache,a,yes\nkey_cache,b,inconclusive\n")
    (tables / "checks.csv").write_text("study,id,reproduced\nkey_cache,c,no\n")
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "key_cache: findings 1 yes, 0 no, 1 inconclusive of 2; checks 0 yes, 1 no, 0 inconclusive of 1" in done.stdout


def test_a_variation_gets_its_own_folder_and_config(tmp_path, monkeypatch):
    """make repro VARY=...: the run's folder is named by the profile and the settings, and
    its config file lays them over the profile, section by section (issue 31)."""
    variation = SCRIPT.with_name("variation.py")
    monkeypatch.chdir(tmp_path)
    named = subprocess.run([sys.executable, str(variation), "name", "quick",
                            "key_cache.threads=[1,8] key_cache.rows=4000000"], capture_output=True, text=True)
    assert named.stdout.strip() == "quick+key_cache.threads=1,8+key_cache.rows=4000000"
    written = subprocess.run([sys.executable, str(variation), "file", "smoke", "key_cache.threads=[1,8]"],
                             capture_output=True, text=True)
    import yaml

    config = yaml.safe_load((tmp_path / written.stdout.strip()).read_text())
    assert config == {"results_dir": "results/smoke+key_cache.threads=1,8", "variation": "key_cache.threads=[1,8]",
                      "key_cache": {"threads": [1, 8]}}
    plain = subprocess.run([sys.executable, str(variation), "file", "quick"], capture_output=True, text=True)
    assert plain.stdout.strip() == "results/quick/variation.yaml"
    bad = subprocess.run([sys.executable, str(variation), "name", "quick", "threads"], capture_output=True, text=True)
    assert bad.returncode == 2 and "PATH=VALUE" in bad.stderr


def test_a_variation_run_alone_says_its_settings_differ(tmp_path):
    """docs/variations.md: a one-study variation (no summary) says at its end that its settings
    differ from the profile's; a profile's own run says nothing of the kind (issue 41, item 7)."""
    tables = tmp_path / "tables" / "key_cache"
    tables.mkdir(parents=True)
    (tables / "findings.csv").write_text("study,id,reproduced\nkey_cache,a,yes\n")
    (tmp_path / "variation.yaml").write_text("results_dir: results/smoke+key_cache.threads=1,8\n"
                                             "variation: key_cache.threads=[1,8]\nkey_cache: {threads: [1, 8]}\n")
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "varied: key_cache.threads=[1,8]" in done.stdout and "differ from the profile's" in done.stdout
    (tmp_path / "variation.yaml").write_text("results_dir: results/smoke\nvariation: ''\n")
    plain = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert plain.returncode == 0 and "varied" not in plain.stdout


def test_every_times_file_of_the_run_is_named(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    for name in ("times.csv", "times-paper.csv"):
        (logs / name).write_text("study,jobs,busy_s,job_s\n")
    (tmp_path / "tables" / "tpcc").mkdir(parents=True)
    (tmp_path / "tables" / "tpcc" / "findings.csv").write_text("study,id,reproduced\n")
    done = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert str(logs / "times.csv") in done.stdout and str(logs / "times-paper.csv") in done.stdout


def test_make_help_and_the_readme_name_the_same_paper_path():
    """`make paper` builds results/<run>/paper/paper.pdf: make help says so, as the README does (issue 41)."""
    repo = SCRIPT.parents[2]
    shown = subprocess.run(["make", "-s", "-C", str(repo), "help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    paper_line = next(line for line in shown.stdout.splitlines() if line.startswith("make paper"))
    assert "results/<run>/paper/paper.pdf" in paper_line, paper_line
    assert "`results/<run>/paper/paper.pdf`" in (repo / "README.md").read_text(encoding="utf-8")


def test_the_readmes_first_screen_has_short_cells():
    """Issue 54: the README's first 25 lines hold no table cell over 200 characters
    (details go under "How long" and the per-study pages)."""
    repo = SCRIPT.parents[2]
    first = (repo / "README.md").read_text(encoding="utf-8").splitlines()[:25]
    cells = [cell.strip() for line in first if line.startswith("|") for cell in line.strip("|").split("|")]
    assert cells, "no table on the README's first screen"
    assert not [cell for cell in cells if len(cell) > 200], [cell for cell in cells if len(cell) > 200]
