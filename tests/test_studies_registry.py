"""One registry of studies (dbrepro.studies, issue 53 item 4): the CLI, the workflow, the summary,
the progress display and the tests read it, and no other file writes the list out again."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from dbrepro import studies

REPO = Path(__file__).resolve().parents[1]
REGISTRY = REPO / "bindings" / "dbrepro" / "studies.py"


def written_lists(text: str) -> list[str]:
    """Three or more names of studies as items of one list, tuple or set literal, one after another
    (a table of per-study values, {"key_cache": ...}, is not the list)."""
    name = rf"[\"']({'|'.join(studies.names())})[\"']"
    return [m.group(0)[:100] for m in re.finditer(rf"{name}(?:\s*,\s*{name}){{2,}}", text)]


def code_files():
    for pattern in ("bindings/**/*.py", "workflows/**/*.py", "workflows/**/*.smk", "Snakefile", "tests/*.py",
                    "benchmarks/*.py", "figures/*.py"):
        for path in REPO.glob(pattern):
            if path != REGISTRY and path != Path(__file__):
                yield path


def test_no_file_but_the_registry_writes_out_the_list_of_studies():
    offenders = {str(path.relative_to(REPO)): lists for path in code_files()
                 if (lists := written_lists(path.read_text(encoding="utf-8")))}
    assert not offenders, f"lists of studies outside dbrepro.studies: {offenders}"


def test_the_check_finds_a_list_written_out():
    assert written_lists('GROUPS = ("looking_glass", "key_cache", "openedge")')
    assert written_lists('for study in ["tpcc",\n  "key_cache", "quantum"]:')
    assert not written_lists('{"looking_glass": 1, "key_cache": 2, "openedge": 3}')


def test_every_study_has_its_files():
    for study in studies.STUDIES:
        assert (REPO / study.rules).is_file(), study.rules
        assert (REPO / study.docs).is_file() or study.name == "tpcc", study.docs
        if study.judged:
            assert (REPO / study.claims_script).is_file() and (REPO / study.criteria).is_file(), study.name
        assert study.heading.startswith(f"{study.label} {study.name}" if study.label else study.name)


def test_the_cli_the_workflow_and_the_settings_read_it():
    from dbrepro import cli, settings

    assert set(cli.STUDIES) == set(studies.names()) == set(settings.TABLES)
    assert "for _study in STUDIES" in (REPO / "Snakefile").read_text()
    assert "if study.judged" in (REPO / "workflows" / "summary.smk").read_text()


def test_a_record_kind_gets_its_rows_whatever_was_imported_before():
    """A study's rows do not depend on import order: the registry names the module that makes them."""
    import subprocess
    import sys

    code = ("from dbrepro.result import RunResult; "
            "r = RunResult('openedge', {}, {'steps': []}, {}); "
            "from dbrepro.result import rows_of_kind, _generic_rows; "
            "print(rows_of_kind('openedge') is not _generic_rows)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"


@pytest.mark.parametrize("name", ["key-cache", "instructions", "looking_glass"])
def test_a_study_is_found_by_any_of_its_spellings(name):
    assert studies.get(name).name in studies.names()
    with pytest.raises(ValueError, match="allowed"):
        studies.get("no_such_study")
