"""Every path and command that the README, docs/, ARTIFACT.md and a run's own
summary.md and claims.md print works on a real run folder (issue 41): a moved
folder breaks a test, not a reader. The rules for what counts as a path and
where it is looked for are in tests/docs_paths.py."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import docs_paths as d

REPO = d.REPO
MAKEFILE = (REPO / "Makefile").read_text(encoding="utf-8")
DBREPRO = Path(sys.executable).with_name("dbrepro")
NATIVE = Path(sys.executable).with_name("dbrepro-native")


def test_every_repository_path_the_docs_print_exists():
    """Paths of the repository (not a run's): checked without a run, so they fail fast."""
    wrong = [f"{doc}: {why}" for doc, word in d.doc_paths() if d.run_relative(word) is None
             for why in [d.check_path(word, REPO / "no-run")] if why]
    assert not wrong, "\n".join(wrong)


def test_a_runs_path_in_the_docs_names_its_run_folder():
    """`results/tables/...` is where no `make repro` run writes: a run's files are in results/<run>/."""
    wrong = [f"{doc}: {word}" for doc, word in d.doc_paths()
             if re.match(r"^results/(?:" + "|".join(map(re.escape, d.RUN_PARTS)) + r")(?:/|$)", word)]
    assert not wrong, "\n".join(wrong)


def test_a_runs_working_files_are_named_where_they_are_made():
    for part, source in d.WORKING_FILES.items():
        assert part in (REPO / source).read_text(encoding="utf-8"), (part, source)


@pytest.fixture(scope="module")
def quick_outputs():
    """Every output file of the quick profile's workflow, relative to its run folder
    (`snakemake --summary`: the graph only, nothing runs)."""
    done = subprocess.run([sys.executable, "-m", "snakemake", "--summary", "--cores", "1", "--configfile",
                           str(REPO / "config" / "quick.yaml"), "--config", "results_dir=results/quick"],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split("\t")[0] for line in done.stdout.splitlines()[1:] if line.startswith("results/quick/")]
    assert rows, done.stdout[-500:]
    return {row[len("results/quick/"):] for row in rows}


def test_what_make_repro_makes_beside_a_run_is_made_by_it():
    """results/latest and a variation's folder come from `make repro`, not from the workflow; a run's
    paper/ and report.html from `make paper` and `make report`."""
    assert "results/latest" in MAKEFILE and "variation.py" in MAKEFILE
    assert "logs/workflow-" in MAKEFILE and "progress.py" in MAKEFILE  # make repro's own log of the workflow
    for part, command in d.WRITTEN_LATER.items():
        assert command.split()[1] in _make_targets() and part in MAKEFILE, (part, command)
    named = {word for _, word in d.doc_paths()}
    if "results/latest" in named:
        assert "ln -sfn" in MAKEFILE


def _make_targets() -> set[str]:
    return set(re.findall(r"^([A-Za-z][\w.-]*):", MAKEFILE, re.M))


def test_every_make_command_the_docs_print_is_a_target_with_its_variables():
    targets = _make_targets()
    wrong = []
    for doc, line in d.commands():
        words = shlex.split(line.split("#")[0]) if line.startswith("make") else []
        for word in words[1:]:
            if "=" in word:
                variable = word.split("=")[0]
                if not re.search(rf"\b{re.escape(variable)}\b", MAKEFILE):
                    wrong.append(f"{doc}: {line}: the Makefile reads no {variable}")
            elif word not in targets:
                wrong.append(f"{doc}: {line}: no target {word}")
    assert not wrong, "\n".join(wrong)


def _help(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=REPO)


def test_every_dbrepro_command_the_docs_print_has_its_options():
    """`dbrepro SUB ...` and `dbrepro run STUDY ...`: the command's --help works and lists each option used."""
    wrong = []
    for doc, line in d.commands():
        words = shlex.split(line.split("#")[0])
        if words[0] != "dbrepro" or len(words) < 2 or words[1].startswith("-"):
            continue
        if words[1] in ("run", "verdicts") and len(words) > 2 and not words[2].isupper() and \
                not words[2].startswith(("<", "-")):
            head = words[:3]  # a study's command, or one of the verdict package's tools
        else:
            head = words[:2]
        if any(w.isupper() or w.startswith("<") for w in head[1:]):
            head = head[:2]  # `dbrepro run STUDY --help`: the run command's own help
        done = _help([str(DBREPRO), *head[1:], "--help"])
        if done.returncode != 0:
            wrong.append(f"{doc}: {line}: `{' '.join(head)} --help` exits {done.returncode}: {done.stderr[-200:]}")
            continue
        for option in (w.split("=")[0] for w in words if w.startswith("--") and w != "--help"):
            if option not in done.stdout:
                wrong.append(f"{doc}: {line}: {option} is not in `{' '.join(head)} --help`")
    assert not wrong, "\n".join(wrong)


def test_every_benchmark_the_docs_print_starts():
    wrong = []
    for doc, line in d.commands():
        words = shlex.split(line.split("#")[0])
        script = next((w for w in words if w.startswith("benchmarks/")), None)
        if script is None:
            continue
        if not (REPO / script).is_file():
            wrong.append(f"{doc}: {line}: no {script}")
            continue
        done = _help([sys.executable, str(REPO / script), "--help"])
        if done.returncode != 0:
            wrong.append(f"{doc}: {line}: {script} --help exits {done.returncode}")
    assert not wrong, "\n".join(wrong)


# ---------------------------------------------------------------------------
# On a real run: the smoke run every end-to-end test shares


def _run_words(smoke_run, line: str) -> list[str]:
    """A documented command with its run folders pointed at the smoke run."""
    results = str(smoke_run.results)
    out = []
    for word in shlex.split(re.sub(r"\[[^\]]*\]", "", line.split("#")[0])):  # [--optional words] left out
        if re.match(r"^results/(?:<run>|quick|smoke|latest)/?$", word):
            word = results  # `results/` alone stays: it holds no run's findings, and the command must say which
        elif word in ("RUN_A", "RUN_B"):
            word = results
        out.append(word)
    return out


def test_every_run_path_the_docs_print_is_in_a_real_run(smoke_run, quick_outputs):
    """In the smoke run, or (a file smoke does not make: the real MariaDB's, E4's sizing) an output
    of the quick profile's workflow."""
    assert smoke_run.returncode == 0, smoke_run.output
    wrong = [f"{doc}: {why}" for doc, word in d.doc_paths() if d.run_relative(word) is not None
             for why in [d.check_path(word, smoke_run.results, quick_outputs)] if why]
    assert not wrong, "\n".join(wrong)


def test_every_path_a_runs_summary_and_claims_print_exists(smoke_run):
    """summary.md and each claims.md print paths relative to where the workflow ran."""
    assert smoke_run.returncode == 0, smoke_run.output
    workdir = smoke_run.results.parent
    documents = [smoke_run.results / "summary.md", *sorted(smoke_run.results.glob("tables/*/claims.md"))]
    wrong = []
    for doc, word in d.doc_paths(documents):
        if word.startswith("results/"):
            if not d.exists_under(workdir, word):
                wrong.append(f"{doc}: {word}")
        elif d.check_path(word, smoke_run.results):
            wrong.append(f"{doc}: {d.check_path(word, smoke_run.results)}")
    for doc, line in d.commands(documents):
        words = shlex.split(line)
        if words[0].startswith("python") and len(words) > 1:
            # The workflow runs from the repository (make repro) or names it (-s): scripts are the repository's.
            words[1] = str(REPO / words[1]) if words[1].startswith("benchmarks/") else words[1]
            done = subprocess.run([sys.executable, *words[1:]], capture_output=True, text=True, timeout=300,
                                  cwd=workdir, env={**os.environ, "PYTHONPATH": str(REPO / "bindings")})
            if done.returncode != 0:
                wrong.append(f"{doc}: `{line}` (run in {workdir}) exits {done.returncode}: {done.stderr[-300:]}")
    assert not wrong, "\n".join(wrong)


def test_every_compare_and_spread_command_the_docs_print_runs_on_a_real_run(smoke_run):
    """The commands that read a run folder run on the smoke run (both sides the same run)."""
    assert smoke_run.returncode == 0, smoke_run.output
    ran, wrong = 0, []
    for doc, line in d.commands():
        words = _run_words(smoke_run, line)
        if words[:2] == ["dbrepro", "compare"] and len(words) >= 4:
            args = [str(DBREPRO), *words[1:]]
            args = [str(Path(smoke_run.results.parent) / "compare.csv") if w == "compare.csv" else w for w in args]
            args = [w if not w.startswith("reference/") else str(REPO / w) for w in args]
        elif any(w.endswith("workflows/scripts/run_spread.py") for w in words) and len(words) > 2:
            args = [sys.executable, str(REPO / "workflows" / "scripts" / "run_spread.py"), *words[2:]]
        else:
            continue
        if any(re.search(r"[<>]|^[A-Z_]+$", w) for w in args[1:]):
            continue  # a placeholder left (FILE): its --help is checked above
        done = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=REPO)
        ran += 1
        if done.returncode != 0:
            wrong.append(f"{doc}: `{line}` exits {done.returncode}: {(done.stderr or done.stdout)[-300:]}")
    assert not wrong, "\n".join(wrong)
    assert ran >= 1, "no documented command that reads a run was found"


@pytest.mark.parametrize("sub", ["tpcc", "durable-run", "recover"])
def test_the_native_commands_the_docs_name_answer_help(sub):
    named = " ".join(line for _, line in d.commands())
    if f"dbrepro-native {sub}" not in named and sub != "tpcc":
        pytest.skip(f"no doc names dbrepro-native {sub}")
    if not NATIVE.exists():
        pytest.skip("dbrepro-native is not built here")
    done = _help([str(NATIVE), sub, "--help"])
    assert done.returncode == 0 and "--" in done.stdout + done.stderr
