"""The engine's registries are the one list of stacks, policies and run
settings: Python, the CLI, the schema and the stub read or match them."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from dbrepro import cli, registry, tpcc, workflow_config
from dbrepro import _engine

REPO = Path(__file__).resolve().parents[1]


def test_stacks_and_policies_come_from_the_engine():
    names = registry.stack_names()
    assert names[0] == "bare" and "disk" in names and "optimal" in names
    assert [registry.ladder_stack(step) for step in range(12)] == [*(f"step{n}" for n in range(11)), "optimal"]
    assert tpcc.STACKS == names
    assert set(tpcc.CONCURRENT_STACKS) == {row["name"] for row in _engine.stacks() if row["concurrent"]}
    assert tpcc.CACHE_POLICIES == tuple(_engine.policies())
    assert {"lru", "soqol"} <= set(registry.policies())


def test_a_stack_outside_the_registry_is_refused_naming_the_list():
    with pytest.raises(tpcc.ConfigError, match="stack") as error:
        tpcc.run(stack="step12", transactions=10)
    assert "disk" in str(error.value)


def test_cli_choices_are_the_registry(capsys, tmp_path):
    """The engine checks a stack by its registry, before any work; the CLI names the option."""
    assert cli.main(["run", "tpcc", "--out", str(tmp_path / "x.json"), "--stack", "step12"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dbrepro: error: --stack: ") and all(name in err for name in registry.stack_names())
    assert not (tmp_path / "x.json").exists()


def test_schema_lists_are_filled_from_the_registry():
    import yaml

    schema = yaml.safe_load((REPO / "config" / "schema" / "config.schema.yaml").read_text())
    text = (REPO / "config" / "schema" / "config.schema.yaml").read_text()
    assert "s3fifo" not in text  # the schema does not spell the list out
    resolved = workflow_config.with_registry(schema)
    policies = resolved["properties"]["fifo_cache"]["properties"]["policies"]
    assert policies["items"]["enum"] == list(registry.policies())
    assert policies["default"] == list(registry.policies())


def test_run_sessions_stub_is_e4s_field_table():
    """E4 has one settings table in the engine (issue 31); the stub takes **settings
    (tests/test_settings_tables.py)."""
    assert _engine.quantum_config()["scheduler"] == "engine"
    with pytest.raises(ValueError, match=r"^scheduler: invalid choice 'fifo'"):
        _engine.quantum_config(scheduler="fifo")
    with pytest.raises(ValueError, match=r"^workload: invalid choice 'io'"):
        _engine.quantum_config(workload="io")
    with pytest.raises(ValueError, match=r"^sessions_per_cpu: must be >= 1"):
        _engine.quantum_config(sessions_per_cpu=0)


@pytest.mark.parametrize("settings, message", [
    ({"seed": 2**63}, "seed: must be in 0..9223372036854775807"),
    ({"threads": [1, 0]}, "threads: each must be in 1..1024, got 0"),
    ({"threads": "8"}, "threads: must be a list of integers"),
    ({"repeat": 0}, "repeat: must be in 1..4294967295, got 0"),
    ({"segment": [0]}, "segment: unknown setting"),
    ({"replacement": "clock"}, "replacement: must be midpoint or lru"),
])
def test_key_cache_engine_checks_each_setting_by_name(settings, message, tmp_path):
    with pytest.raises(ValueError, match=message):
        _engine.key_cache_run(table_dir=str(tmp_path), **settings)


@pytest.mark.parametrize("settings, message", [
    ({"seed": 2**64}, "seed: must fit in 64 bits, got 18446744073709551616"),
    ({"seed": 2**63}, "seed: must be in 0..9223372036854775807, got 9223372036854775808"),  # a record's int64
    ({"seed": 2**63 - 1}, None),  # in range: accepted by the field (the run itself is not started here)
    ({"warehouses": -1}, "warehouses: must be in 1..65535, got -1"),
    ({"warehouse": 1}, "warehouse: unknown setting"),
    ({"o_direct": 1}, "o_direct: must be True or False"),
    ({"seconds": "1"}, "seconds: must be a number"),
])
def test_engine_checks_each_setting_by_name(settings, message):
    if message is None:
        with pytest.raises(ValueError, match="transactions"):  # fails later, on a field it checks together
            _engine.run_tpcc(**settings, transactions=0)
        return
    with pytest.raises(ValueError, match=message):
        _engine.run_tpcc(**settings)


# ---------------------------------------------------------------------------
# Layers: the driver (runs, stacks, registries) sits on top; nothing under it
# includes it, so the workload and the storage layers build and test alone.

def engine_includes(repo, subsystem: str) -> set[str]:
    """The engine subsystems that engine/src/<subsystem>/ includes."""
    found = set()
    for path in (repo / "engine" / "src" / subsystem).glob("*.[ch]pp"):
        found |= set(re.findall(r'#include "([a-z_]+)/', path.read_text(encoding="utf-8")))
    return found - {subsystem}


def test_nothing_below_the_driver_includes_it(repo):
    subsystems = [p.name for p in (repo / "engine" / "src").iterdir() if p.is_dir() and p.name != "driver"]
    assert "tpcc" in subsystems and "buffer" in subsystems
    offenders = {name: sorted(engine_includes(repo, name) & {"driver"}) for name in subsystems}
    assert not any(offenders.values()), offenders


def test_the_tpcc_workload_needs_only_the_btree_and_common(repo):
    # Transactions are written once against a storage adapter (a template
    # parameter): the workload names no stack, cache or driver.
    assert engine_includes(repo, "tpcc") <= {"btree", "common"}
