"""The engine's settings tables are the one description of every study's
settings (issue 31): the command lines, the type stubs and the Python API are
generated from them or take them by name, never restate them, and each
table's stated range is the one the engine enforces."""
from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest

from dbrepro import _engine, cli, fifo_cache, key_cache, looking_glass, settings
from dbrepro.result import RunResult
from dbrepro import studies

REPO = Path(__file__).resolve().parents[1]
STUDIES = studies.names()  # dbrepro.studies


def _help(study: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        cli.main(["run", study, "--help"])
    assert done.value.code == 0
    return re.sub(r"\s+", "", out.getvalue())  # argparse wraps anywhere, even inside a long default


def _command_rows(study: str) -> list[dict]:
    """What each study's command offers, as its module states it."""
    return {
        "looking_glass": looking_glass.settings_rows,
        "key_cache": key_cache._run_rows,
        "fifo_cache": fifo_cache.command_rows,
    }.get(study, lambda: settings.table(study))()


@pytest.mark.parametrize("study", STUDIES)
def test_every_study_module_has_one_run_taking_its_settings(study):
    """One shape per study: dbrepro.<study>.run(**settings) -> RunResult."""
    import importlib
    import inspect

    run = importlib.import_module(f"dbrepro.{study}").run
    parameters = inspect.signature(run).parameters.values()
    assert any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters), study
    assert inspect.signature(run).return_annotation in ("RunResult", RunResult), study
    assert not [p.name for p in parameters if p.default is inspect.Parameter.empty
                and p.kind not in (inspect.Parameter.VAR_KEYWORD, inspect.Parameter.VAR_POSITIONAL)], study


def test_a_count_without_its_required_settings_is_refused_by_name():
    with pytest.raises(ValueError, match=r"^step: required"):
        looking_glass.run(txn_type="payment")


def test_every_study_is_a_workflow_name_with_a_table():
    assert set(settings.TABLES) == set(STUDIES) == set(cli.STUDIES)
    for study in STUDIES:
        rows = settings.table(study)
        assert rows, study
        for row in rows:
            assert set(row) == {"name", "type", "unit", "range", "default", "help", "required"}, (study, row["name"])
            assert row["default"] is None or not row["required"], (study, row["name"])
            assert row["type"] in settings.PARSERS and row["help"], (study, row["name"])


@pytest.mark.parametrize("study", STUDIES)
def test_help_lists_every_setting_with_its_default(study):
    text = _help(study)
    rows = _command_rows(study)
    required = {row["name"] for row in rows if row["required"]} | ({"table_dir"} if study == "key_cache" else set())
    assert rows
    for row in rows:
        assert settings.option(row["name"]) in text, (study, row["name"])
        if row["name"] in required:
            continue
        default = re.escape(re.sub(r"\s+", "", settings.shown(row["default"])))
        assert re.search(rf"default(?:here)?:{default}(?=[;)]|--|$)", text), (study, row["name"], default)
        if row["unit"]:
            assert f"[{row['unit']}]" in text, (study, row["name"])


@pytest.mark.parametrize("study", STUDIES)
def test_a_command_offers_the_table_rows_unchanged(study):
    """A command's engine settings are the table's rows (name, type, unit,
    range, help as the engine has them), none restated; what it leaves out is
    what the study fixes itself."""
    table = {row["name"]: row for row in settings.table(study)}
    offered = {row["name"]: row for row in _command_rows(study)}
    for name, row in offered.items():
        if name in table:
            for key in ("type", "unit", "range", "help"):
                assert row[key] == table[name][key], (study, name, key)
    left_out = set(table) - set(offered)
    allowed = {
        "tpcc": set(),
        "openedge": set(),
        "quantum": set(),
        "key_cache": {"index_fraction"},  # a list there, --index-fractions
        "fifo_cache": set(fifo_cache.FIXED_SETTINGS),
        "looking_glass": set(),  # its own table: the count fixes the stack, the mix and the meter itself
    }[study]
    assert left_out == allowed, study


# ---------------------------------------------------------------------------
# Each stated range is the one the engine enforces: a value just outside it
# is refused, naming the setting.

def _count_config(**settings):
    """E1's count with its required settings given (the one under test replaces its own)."""
    return _engine.looking_glass_config(**{"step": 0, "txn_type": "payment", **settings})


CHECKERS = {"run_config": _engine.run_config, "key_cache_config": _engine.key_cache_config,
            "openedge_config": _engine.openedge_config, "quantum_config": _engine.quantum_config,
            "looking_glass_config": _count_config}


def test_a_required_setting_left_out_is_refused_by_name():
    for name in ("step", "txn_type"):
        given = {"step": 0, "txn_type": "payment"}
        del given[name]
        with pytest.raises(ValueError, match=rf"^{name}: required"):
            _engine.looking_glass_config(**given)


def _outside(row: dict) -> list:
    """Values just outside a row's stated range (none where the range is prose)."""
    text, kind = row["range"], row["type"]
    if m := re.fullmatch(r"(?:each )?(\d+)\.\.(\d+)(?:,.*)?", text):
        low, high = int(m[1]), int(m[2])
        values = [high + 1] + ([low - 1] if low > 0 else [])
        return [[v] for v in values] if kind == "int list" else values
    if m := re.fullmatch(r">= (\d+)(?:;.*)?", text):
        return [int(m[1]) - 1] if kind == "int" else [float(m[1]) - 0.5] if kind == "float" else []
    if m := re.fullmatch(r"> (\d+)", text):
        return [float(m[1])]
    if text == "(0, 1]":
        return [0.0, 1.5]
    words = [w.strip() for w in text.split(",")]
    if kind == "str" and len(words) > 1 and all(w.isidentifier() for w in words[:2]):
        return ["no_such_value"]
    return []


def _ranged_rows():
    for table_name in sorted(set(settings.TABLES.values())):
        study = next(s for s, t in settings.TABLES.items() if t == table_name)
        for row in settings.table(study):
            for value in _outside(row):
                yield pytest.param(table_name, row["name"], value, id=f"{table_name}.{row['name']}={value!r}")


@pytest.mark.parametrize("table_name, name, value", list(_ranged_rows()))
def test_a_value_outside_the_stated_range_is_refused_by_name(table_name, name, value):
    with pytest.raises(ValueError, match=rf"^{name}: "):
        CHECKERS[table_name](**{name: value})


def test_most_ranges_are_checked_here():
    """The parser above understands most stated ranges (so a stale one fails)."""
    rows = [row for study in STUDIES for row in settings.table(study) if row["range"]]
    understood = [row for row in rows if _outside(row)]
    assert len(understood) >= 0.6 * len(rows), [row["name"] for row in rows if not _outside(row)]


# ---------------------------------------------------------------------------
# Nothing restates a table: no function signature, stub or literal collection
# in the package names more than a handful of one table's settings.

TOO_MANY = 6


def _table_names() -> dict[str, set[str]]:
    return {table: {row["name"] for row in settings.table(study)}
            for study, table in settings.TABLES.items()}


def _restatements(path: Path, tables: dict[str, set[str]]):
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        names: list[str] = []
        where = ""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
            where = f"def {node.name}"
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            names = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            where = "a literal list"
        elif isinstance(node, ast.Dict):  # settings with constant values: defaults restated (not a record's columns)
            names = [k.value for k, v in zip(node.keys, node.values)
                     if isinstance(k, ast.Constant) and isinstance(k.value, str) and isinstance(v, ast.Constant)]
            where = "a literal dict of constants"
        elif isinstance(node, ast.Call):
            names = [k.arg for k in node.keywords if k.arg]
            where = "a call's keywords"
        for table, known in tables.items():
            hits = sorted(set(names) & known)
            if len(hits) >= TOO_MANY:
                yield f"{path.relative_to(REPO)}:{node.lineno}: {where} names {len(hits)} of {table}'s settings {hits}"


# The real MariaDB's runs (E2) take the model's settings' names for the same
# workload, checked against the server's own limits, not the engine's.
NOT_THE_ENGINE = {"key_cache_mariadb.py"}


def test_no_module_or_stub_restates_a_settings_table():
    tables = _table_names()
    files = [path for path in sorted((REPO / "bindings" / "dbrepro").glob("*.py")) if path.name not in NOT_THE_ENGINE]
    files.append(REPO / "bindings" / "dbrepro" / "_engine.pyi")
    found = [line for path in files for line in _restatements(path, tables)]
    assert not found, "\n".join(found)


def test_the_stubs_take_settings_by_table():
    tree = ast.parse((REPO / "bindings" / "dbrepro" / "_engine.pyi").read_text())
    stubs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for function in ("run_tpcc", "key_cache_run", "run_sessions", "openedge_ladder", "run_config",
                     "key_cache_config", "quantum_config", "openedge_config"):
        assert stubs[function].args.kwarg is not None and stubs[function].args.kwarg.arg == "settings", function
    for table in set(settings.TABLES.values()):
        assert f"{table}_fields" in stubs


def test_a_bad_value_is_one_line_naming_the_option(capsys):
    assert cli.main(["run", "tpcc", "--warehouses", "0", "--out", "/tmp/never.json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dbrepro: error: --warehouses: must be in 1..65535") and err.count("\n") == 1
    assert not Path("/tmp/never.json").exists()


def test_the_list_prints_every_table(capsys):
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    for study in STUDIES:
        for row in settings.table(study):
            assert row["name"] in out


# ---------------------------------------------------------------------------
# The workflow's config schema takes each engine setting's description and
# range from the table (`x-setting`), narrowing a range only where the
# workflow needs more; a property named like a setting that is not that
# setting says why (`x-differs`).


def test_the_schema_derives_its_settings_from_the_tables():
    import yaml

    from dbrepro.workflow_config import CONSTRAINTS

    schema = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())
    marked = 0
    for study in STUDIES:
        rows = {row["name"]: row for row in settings.table(study)}
        section = schema["properties"].get(study, {}).get("properties", {})
        for key, prop in section.items():
            if key in rows:
                assert "x-setting" in prop or "x-differs" in prop, f"{study}.{key}: an engine setting, unmarked"
            if "x-setting" not in prop:
                continue
            marked += 1
            row = rows[prop["x-setting"]]
            assert "description" not in prop, f"{study}.{key}: the description is the engine's (x-note adds to it)"
            target = prop.get("items", {}) if prop.get("type") == "array" else prop
            derived = settings.range_schema(row)
            restated = {k: target[k] for k in CONSTRAINTS if k in target and derived.get(k) == target[k]}
            assert not restated, f"{study}.{key}: restates the engine's range {restated}"
    assert marked >= 35


def test_the_resolved_schema_holds_the_engine_ranges():
    import yaml

    from dbrepro.workflow_config import with_registry, with_settings

    schema = with_settings(with_registry(yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())))
    users = schema["properties"]["openedge"]["properties"]["users"]
    assert (users["minimum"], users["maximum"]) == (1, 1024) and users["description"].startswith("U users")
    threads = schema["properties"]["key_cache"]["properties"]["threads"]["items"]
    assert (threads["minimum"], threads["maximum"]) == (1, 1024)
    transactions = schema["properties"]["tpcc"]["properties"]["transactions"]
    assert transactions["minimum"] == 1  # narrowed: a workflow run counts at least one


# ---------------------------------------------------------------------------
# Settings as data: a command reads a cell's settings from one file, by the
# table's names; an option on the command line wins.


def test_a_settings_file_sets_a_command_and_the_line_wins(tmp_path, capsys):
    from dbrepro import read_record

    cell = tmp_path / "cell.json"
    cell.write_text('{"warehouses": 1, "transactions": 300, "variant": "spec", "seed": 4}\n')
    out = tmp_path / "run.json"
    assert cli.main(["run", "tpcc", "--settings", str(cell), "--transactions", "200", "--out", str(out),
                     "--no-progress"]) == 0
    config = read_record(out)["config"]
    assert (config["variant"], config["seed"], config["transactions"]) == ("spec", 4, 200)
    # a required setting (E1's step) may come from the file
    count = tmp_path / "count.json"
    count.write_text('{"step": 11, "txn_type": "payment", "transactions": 10, "cycles": false, "backend": "callgrind"}')
    assert cli.main(["run", "looking_glass", "--settings", str(count), "--out", str(tmp_path / "c.json")]) == 0
    assert read_record(tmp_path / "c.json")["config"]["step"] == 11


@pytest.mark.parametrize("text, message", [
    ('{"warehouse": 1}', "unknown setting 'warehouse' (allowed: warehouses, "),
    ("[1, 2]", "must hold an object of settings by name"),
    ("{", "is not JSON"),
])
def test_a_bad_settings_file_is_one_line(tmp_path, capsys, text, message):
    cell = tmp_path / "cell.json"
    cell.write_text(text)
    assert cli.main(["run", "tpcc", "--settings", str(cell), "--out", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dbrepro: error: --settings: ") and message in err and err.count("\n") == 1
    assert not (tmp_path / "r.json").exists()


def test_the_workflow_hands_each_run_its_settings_file(dry_run):
    from workflow_helpers import whole_dry_run

    done = whole_dry_run(dry_run, REPO, "smoke")
    assert done.returncode == 0, done.output[-2000:]
    commands = [line for line in done.output.splitlines() if " -m dbrepro" in line]
    # tpcc, E1's ladder and E5's one-terminal cells run as duets (dbrepro.duet): two settings files each.
    for command in ("dbrepro duet tpcc", "dbrepro duet fifo_cache", "dbrepro run looking_glass",
                    "dbrepro run key_cache run", "dbrepro run openedge", "dbrepro run fifo_cache run",
                    "dbrepro run fifo_cache cells", "dbrepro run fifo_cache trace"):
        lines = [line for line in commands if command in line]
        assert lines and all("--settings" in line for line in lines), command
