"""A criterion changes only in a commit of its own (issue 29): every commit since
that issue's first one that touches workflows/claims/ touches nothing outside
it, so that a criterion can never be changed together with the results, the
code or the docs it would flip. Merges are left out (their diff is their
branch's commits, each checked on its own)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIRST = "7eca3d0"  # issue 29's first commit: the foreign-load criterion, alone
CRITERIA = "workflows/claims/"


def git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, timeout=60)


def commits_since_first() -> list[str]:
    if git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout: the history cannot be read")
    if git("cat-file", "-e", f"{FIRST}^{{commit}}").returncode != 0:
        pytest.skip(f"{FIRST} is not in this clone's history (a shallow clone?)")
    done = git("rev-list", "--no-merges", f"{FIRST}^..HEAD")
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def mixed(commit: str) -> list[str]:
    """The files outside workflows/claims/ of a commit that also touches it (empty if it is clean)."""
    files = git("diff-tree", "--no-commit-id", "--name-only", "-r", "--root", commit).stdout.split()
    inside = [f for f in files if f.startswith(CRITERIA)]
    return [f for f in files if not f.startswith(CRITERIA)] if inside else []


def test_every_criteria_commit_touches_only_the_criteria():
    offending = {c[:10]: mixed(c) for c in commits_since_first()}
    offending = {c: files for c, files in offending.items() if files}
    assert not offending, f"commits changing workflows/claims/ together with other files: {offending}"


def test_the_rule_catches_a_mixed_commit(tmp_path):
    """The check itself: in a scratch repository, a commit touching a criterion and a script is caught."""
    def run(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True)

    run("init", "-q")
    run("config", "user.email", "t@example.invalid")
    run("config", "user.name", "t")
    (tmp_path / "workflows" / "claims").mkdir(parents=True)
    (tmp_path / "workflows" / "claims" / "x.yaml").write_text("a: 1\n")
    run("add", "-A")
    run("commit", "-q", "-m", "criteria alone")
    (tmp_path / "workflows" / "claims" / "x.yaml").write_text("a: 2\n")
    (tmp_path / "script.py").write_text("print(1)\n")
    run("add", "-A")
    run("commit", "-q", "-m", "criteria with a script")
    global REPO
    saved, REPO = REPO, tmp_path
    try:
        assert mixed(run("rev-parse", "HEAD").stdout.strip()) == ["script.py"]
        assert mixed(run("rev-parse", "HEAD~1").stdout.strip()) == []
    finally:
        REPO = saved
