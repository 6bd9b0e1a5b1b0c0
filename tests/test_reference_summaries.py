"""The committed summaries (reference/summary-<profile>.md) say what the current summary says:
the same wording of what a verdict means and when the criteria were written (rendered here by
workflows/scripts/summary.py), the criteria changes up to the commit they name, and paths that
exist. A summary left behind by a change of wording or method fails here; regenerate it from a
fresh run of its profile (README, layout: `reference/`)."""
from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path

import pytest

import docs_paths

REPO = Path(__file__).resolve().parents[1]
SUMMARIES = sorted((REPO / "reference").glob("summary-*.md"))


def summary_script():
    spec = importlib.util.spec_from_file_location("summary_script", REPO / "workflows" / "scripts" / "summary.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def script():
    return summary_script()


@pytest.fixture(scope="module")
def current_wording(script, tmp_path_factory) -> list[str]:
    """The paragraphs and headings every summary prints whatever its run measured: the current
    script's, rendered for an empty run."""
    about = {"cpu": "cpu", "cpus": 2, "kernel": "k", "hostname": "h", "commit": "0" * 40, "dirty": False,
             "kind": "a kind", "fingerprint": {}, "record": ""}
    text = script.summary_markdown(tmp_path_factory.mktemp("empty_run"), "quick", {}, about=about)
    fixed = [line for line in text.splitlines()
             if line.startswith(("- Each verdict speaks", "The headline counts", "The first claims were computed",
                                 "## "))]
    assert len(fixed) >= 5, text  # the script still writes the paragraphs this test reads
    return fixed


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, timeout=60)


def test_each_profile_that_ran_has_one_committed_summary():
    profiles = {p.stem for p in (REPO / "config").glob("*.yaml")}
    assert SUMMARIES, "reference/ holds no summary-<profile>.md"
    assert {p.stem.removeprefix("summary-") for p in SUMMARIES} <= profiles


@pytest.mark.parametrize("summary", SUMMARIES, ids=lambda p: p.name)
def test_a_committed_summary_has_the_current_wording(summary, current_wording):
    text = summary.read_text(encoding="utf-8")
    missing = [line[:100] for line in current_wording if line not in text.splitlines()]
    assert not missing, f"{summary.name} was written by an older summary.py; not in it:\n" + "\n".join(missing)


@pytest.mark.parametrize("summary", SUMMARIES, ids=lambda p: p.name)
def test_a_committed_summary_lists_the_criteria_changes_up_to_its_commit(summary, script):
    text = summary.read_text(encoding="utf-8")
    commit = re.search(r"^- commit: `([0-9a-f]{40})`(.*)$", text, re.M)
    assert commit, f"{summary.name} names no commit"
    assert "uncommitted" not in commit.group(2), f"{summary.name}'s run had uncommitted changes"
    if git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout: the history cannot be read")
    if git("cat-file", "-e", f"{commit.group(1)}^{{commit}}").returncode != 0:
        pytest.skip(f"{commit.group(1)} is not in this clone's history (a shallow clone?)")
    assert git("merge-base", "--is-ancestor", commit.group(1), "HEAD").returncode == 0, \
        f"{summary.name}'s commit is not on this branch"
    done = git("log", "--no-merges", "--format=%h %ad %s", "--date=short", "--abbrev=7",
               f"{script.CRITERIA_FIRST[0]}..{commit.group(1)}", "--", "workflows/claims/")
    assert done.returncode == 0, done.stderr
    expected = [f"- {script.shortened(line)}" for line in done.stdout.splitlines()]
    listed = [line for line in text.splitlines() if re.match(r"^- [0-9a-f]{7,} \d{4}-\d\d-\d\d ", line)]
    assert [line.split()[1][:7] for line in listed] == [line.split()[1][:7] for line in expected], \
        f"{summary.name}: its criteria changes are not those up to {commit.group(1)[:7]}"


@pytest.mark.parametrize("summary", SUMMARIES, ids=lambda p: p.name)
def test_a_committed_summary_names_paths_that_exist(summary):
    """Repository paths exist here; a run's paths are written below its own folder
    (results/<run>/...), in the parts a run has."""
    text = summary.read_text(encoding="utf-8")
    problems = []
    for span in docs_paths.spans(text):
        for word in (w.strip(".,;:()") for w in span.split()):
            if not docs_paths.is_path(word):
                continue
            rest = docs_paths.run_relative(word)
            if rest is None:  # a repository path
                problems.append(docs_paths.check_path(word, REPO / "no-run"))
            elif word.startswith("results/") and not docs_paths.RUN_FOLDER.match(word):
                part = rest.split("/")[0]
                if rest == word or part not in (*docs_paths.RUN_PARTS, "machine.json"):
                    problems.append(f"{word}: {part} is no part of a run's folder (results/<run>/...)")
    problems = [why for why in problems if why]
    assert not problems, "\n".join(problems)
