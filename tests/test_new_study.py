"""`dbrepro new-study NAME` (issue 53, item 6): in a copy of this repository it writes the registry
entry and a skeleton whose smoke target runs as it is; it refuses a bad or taken name before
writing anything."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def tracked_copy(target: Path) -> Path:
    """The working tree's tracked files (as they are now) in `target`, a git checkout of its own."""
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        source, copy = REPO / name, target / name
        if source.is_file():
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(source.read_bytes())
    subprocess.run(["git", "init", "-q", str(target)], check=True)
    return target


def python_of(copy: Path, folder: Path) -> Path:
    """An interpreter whose `dbrepro` is the copy's package (this one's compiled engine linked in):
    a venv reading this interpreter's site-packages after the copy's bindings/, and not the
    editable install's finder, which would lead back here."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    from dbrepro import _engine

    engine = Path(_engine.__file__)
    (copy / "bindings" / "dbrepro" / engine.name).symlink_to(engine)
    site = sysconfig.get_paths()["purelib"]
    ours = next((folder / "lib").glob("python*/site-packages"))
    (ours / "copy.pth").write_text(f"{copy / 'bindings'}\n{site}\n")
    return folder / "bin" / "python"


def test_bad_names_are_refused_before_any_write(tmp_path):
    from dbrepro import new_study

    copy = tracked_copy(tmp_path / "repo")
    before = (copy / "bindings" / "dbrepro" / "studies.py").read_text()
    for name, word in (("Bad-Name", "lower-case"), ("key_cache", "a study already"), ("instructions", "already"),
                       ("class", "lower-case")):
        with pytest.raises(ValueError, match=word):
            new_study.write(copy, name)
    (copy / "docs" / "demo.md").write_text("mine")
    with pytest.raises(ValueError, match="exists already"):
        new_study.write(copy, "demo")
    assert (copy / "bindings" / "dbrepro" / "studies.py").read_text() == before
    assert not (copy / "workflows" / "demo.smk").exists()


@pytest.mark.slow
def test_a_new_study_runs_its_smoke_target_as_generated(tmp_path):
    copy = tracked_copy(tmp_path / "repo")
    python = python_of(copy, tmp_path / "venv")
    env = {**os.environ, "PYTHONNOUSERSITE": "1"}
    made = subprocess.run([str(python), "-m", "dbrepro", "new-study", "demo", "--title", "a demonstration",
                           "--root", str(copy)], capture_output=True, text=True, env=env, timeout=120)
    assert made.returncode == 0, made.stderr
    assert "wrote" in made.stdout and (copy / "workflows" / "demo.smk").is_file()
    listed = subprocess.run([str(python), "-m", "dbrepro", "list"], capture_output=True, text=True, env=env,
                            timeout=120)
    assert "demo" in listed.stdout.split("stacks")[0]
    done = subprocess.run([str(python), "-m", "snakemake", "demo", "--cores", "2", "--resources", "timed=1",
                           "--configfile", "config/smoke.yaml"], cwd=copy, capture_output=True, text=True,
                          env=env, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    results = copy / "results"
    claims = (results / "tables" / "demo" / "claims.csv").read_text()
    assert "every_run_consistent" in claims and ",yes," in claims
    assert (results / "figures" / "demo" / "throughput.png").stat().st_size > 0
    again = subprocess.run([str(python), "-m", "dbrepro", "new-study", "demo", "--root", str(copy)],
                           capture_output=True, text=True, env=env, timeout=120)
    assert again.returncode == 2 and "a study already" in again.stderr and again.stderr.count("\n") == 1
