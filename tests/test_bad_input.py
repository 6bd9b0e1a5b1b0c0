"""Bad input everywhere: each class of bad input (workflow config, command
lines, Python API, files the workflow reads) gives a clear error naming what
is wrong, in one line, and loses nothing already written.

The per-parameter checks of each API live beside the API's other tests
(test_api.py, test_key_cache.py, test_quantum.py, test_looking_glass.py);
this file covers the classes across them.
"""
from __future__ import annotations

import copy
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from workflow_helpers import profile, snakemake

from dbrepro import key_cache, looking_glass, quantum, read_record, tpcc, write_record
from dbrepro.result import RecordError
from dbrepro.workflow_config import ConfigFileError, validate

REPO = Path(__file__).resolve().parents[1]
SENTINEL = '{"an earlier run": "must survive"}\n'


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert "Traceback" not in text
    return lines[0]


@pytest.fixture
def earlier(tmp_path):
    """An --out file left by an earlier run; a failed run must not touch it."""
    path = tmp_path / "earlier.json"
    path.write_text(SENTINEL)
    return path


def untouched(path) -> bool:
    siblings = sorted(p.name for p in path.parent.iterdir())
    return path.read_text() == SENTINEL and not [name for name in siblings if name.endswith(".tmp")]


# ---------------------------------------------------------------------------
# Workflow config: the schema check, one line naming the setting.


@pytest.fixture(scope="module")
def schema(repo):
    return repo / "config" / "schema" / "config.schema.yaml"


@pytest.fixture(scope="module")
def smoke(repo):
    return yaml.safe_load(profile(repo, "smoke").read_text())


def changed(config, path: str, value):
    """A copy of `config` with the dotted setting `path` set to `value`."""
    config = copy.deepcopy(config)
    *parents, last = path.split(".")
    node = config
    for name in parents:
        node = node[name]
    node[last] = value
    return config


@pytest.mark.parametrize(
    "path, value, setting, complaint",
    [
        # wrong types
        ("repeats", "two", "repeats", "'two' is not of type 'integer'"),
        ("tpcc.transactions", 1.5, "tpcc.transactions", "1.5 is not of type 'integer'"),
        ("key_cache.threads", 4, "key_cache.threads", "4 is not of type 'array'"),
        ("looking_glass.instructions.cycles", "yes", "looking_glass.instructions.cycles", "not of type 'boolean'"),
        ("quantum.table_mb", "46MB", "quantum.table_mb", "not of type 'number'"),
        # values out of range or not allowed
        ("tpcc.warehouses", [0], "tpcc.warehouses.0", "0 is less than the minimum of 1"),
        ("tpcc.variants", ["paper", "fast"], "tpcc.variants.1", "'fast' is not one of ['paper', 'spec']"),
        ("looking_glass.ladder.steps", [12], "looking_glass.ladder.steps.0", "greater than the maximum of 11"),
        ("key_cache.segments", [1, 2], "key_cache.segments", "0 = off, required"),
        ("quantum.quanta_ms", [10], "quantum.quanta_ms", "is too short"),
        # the memory workload compares its fewest and most: without a list of its own, this one needs two
        ("quantum.sessions_per_cpu", [5], "quantum.sessions_per_cpu", "is too short"),
        # unknown settings (typos), at every level
        ("repeat", 2, "", "unknown setting 'repeat' (allowed: profile, repeats, results_dir, variation, timed_runs_alone,"),
        ("tpcc.warehouse", [1], "tpcc", "unknown setting 'warehouse' (allowed: warehouses, variants,"),
        ("looking_glass.ladder.step", [0], "looking_glass.ladder", "unknown setting 'step' (allowed: warehouses,"),
        # a run's folder outside results/ (make repro names one per run: results/<profile>)
        ("results_dir", "/etc", "results_dir", "does not match"),
        ("results_dir", "elsewhere", "results_dir", "does not match"),
        # a bad profile name
        ("profile", "", "profile", "should be non-empty"),
        ("profile", 5, "profile", "5 is not of type 'string'"),
    ],
)
def test_bad_config_is_one_line_naming_the_setting(schema, smoke, path, value, setting, complaint):
    with pytest.raises(ConfigFileError) as error:
        validate(changed(smoke, path, value), schema)
    message = one_line(str(error.value))
    assert error.value.setting == setting
    assert message.startswith(f"config {setting}: " if setting else "config: "), message
    assert complaint in message, message


@pytest.mark.parametrize("config", [[1, 2], "smoke", None])
def test_config_that_is_not_a_mapping_is_refused(schema, config):
    with pytest.raises(ConfigFileError, match=r"^config: .* is not of type 'object'$"):
        validate(config, schema)


def test_missing_required_setting_is_named(schema, smoke):
    config = copy.deepcopy(smoke)
    del config["repeats"]
    with pytest.raises(ConfigFileError, match=r"^config: 'repeats' is a required property$"):
        validate(config, schema)


def test_good_config_gets_the_schema_defaults(schema, smoke):
    config = copy.deepcopy(smoke)
    del config["tpcc"]
    validate(config, schema)
    assert config["tpcc"] == {"warehouses": [1], "variants": ["paper", "spec"], "transactions": 40000, "seed": 1}


@pytest.mark.parametrize(
    "config_text, names",
    [
        pytest.param(
            "tpcc:\n  warehouse: [1]\n", ["config tpcc:", "unknown setting 'warehouse'"], id="unknown-setting",
        ),
        # Snakemake parses the file itself, before the Snakefile runs; its
        # message does not name the file (there is only the one given).
        pytest.param("tpcc: [\n", ["Config file is not valid JSON or YAML"], id="not-yaml"),
    ],
)
def test_workflow_refuses_bad_config_and_keeps_results(python, repo, tmp_path, config_text, names):
    # Through Snakemake, with results of an earlier run in place: the error
    # names the setting (or the file), and nothing of results/ changes.
    earlier = tmp_path / "results" / "raw" / "tpcc" / "rep1" / "paper_w1.json"
    earlier.parent.mkdir(parents=True)
    earlier.write_text(SENTINEL)
    before = sorted(p.relative_to(tmp_path) for p in (tmp_path / "results").rglob("*"))
    bad = tmp_path / "bad.yaml"
    bad.write_text(config_text)
    done = snakemake(python, repo, tmp_path, "--cores", "1", "--configfile", str(bad))
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "Traceback (most recent call last)" not in output, output
    assert any(all(name in line for name in names) for line in output.splitlines()), output
    assert earlier.read_text() == SENTINEL
    assert sorted(p.relative_to(tmp_path) for p in (tmp_path / "results").rglob("*")) == before


def test_workflow_names_a_missing_config_file(python, repo, tmp_path):
    done = snakemake(python, repo, tmp_path, "-n", "--configfile", str(tmp_path / "nope.yaml"))
    assert done.returncode != 0
    assert "nope.yaml" in done.stdout + done.stderr
    assert not (tmp_path / "results").exists()


# ---------------------------------------------------------------------------
# Command lines: one line, exit 2, and an existing --out file untouched.

# (command line, option the error must name); each fails before any run.
BAD_COMMANDS = [
    (["-m", "dbrepro", "run", "tpcc", "--warehouses", "0"], "--warehouses"),
    (["-m", "dbrepro", "run", "tpcc", "--mix", "new_order=x"], "--mix"),
    (["-m", "dbrepro", "run", "tpcc", "--stack", "step0", "--log-dir", "/nonexistent/logs",
      "--transactions", "10"], "--log-dir"),
    (["-m", "dbrepro", "run", "tpcc", "--meter", "perf", "--transactions", "10"], "--meter"),
    (["-m", "dbrepro", "run", "instructions", "--step", "12", "--txn-type", "payment"], "--step"),
    (["-m", "dbrepro", "run", "key-cache", "run", "--table-dir", "/nonexistent/sbtest"], "--table-dir"),
    (["-m", "dbrepro", "run", "key-cache", "run", "--table-dir", "/nonexistent", "--threads", "1,x"], "--threads"),
    (["-m", "dbrepro", "run", "quantum", "--sessions-per-cpu", "0"], "--sessions-per-cpu"),
    (["-m", "dbrepro", "run", "quantum", "--workload", "io"], "--workload"),
    # Issue 21: integers past the engine's 64-bit limit, non-finite numbers,
    # a scale this machine cannot hold.
    (["-m", "dbrepro", "run", "tpcc", "--seed", str(2**63)], "--seed"),
    (["-m", "dbrepro", "run", "tpcc", "--seed", str(2**64 - 1)], "--seed"),
    (["-m", "dbrepro", "run", "tpcc", "--transactions", str(2**64 - 1)], "--transactions"),
    (["-m", "dbrepro", "run", "tpcc", "--seconds", "nan"], "--seconds"),
    (["-m", "dbrepro", "run", "tpcc", "--seconds", "inf"], "--seconds"),
    (["-m", "dbrepro", "run", "tpcc", "--warehouses", "65535"], "--warehouses"),
    (["-m", "dbrepro", "run", "instructions", "--step", "3", "--txn-type", "payment", "--seed", str(2**63)],
     "--seed"),
    (["-m", "dbrepro", "run", "openedge", "--seed", str(2**64 - 1)], "--seed"),
    (["-m", "dbrepro", "run", "quantum", "--quantum-ms", "nan"], "--quantum-ms"),
]


def _needs_no_pmu(args):
    if "perf" in args and "--meter" in args:
        from dbrepro import provenance

        if provenance.collect()["hardware_counters"]["available"]:
            pytest.skip("this machine has CPU counters: --meter perf is not an error here")


@pytest.mark.parametrize("args, option", BAD_COMMANDS, ids=[" ".join(a[3:5]) + " " + o for a, o in BAD_COMMANDS])
def test_bad_command_line_keeps_the_existing_out_file(python, earlier, args, option):
    _needs_no_pmu(args)
    done = python(*args, "--out", str(earlier))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert option in one_line(done.stderr)
    assert untouched(earlier)


def test_corrupt_key_cache_table_is_named(python, earlier, tmp_path):
    table = tmp_path / "sbtest"
    table.mkdir()
    (table / "sbtest.MYI").write_bytes(b"not an index")
    (table / "sbtest.MYD").write_bytes(b"")
    done = python("-m", "dbrepro", "run", "key-cache", "run", "--table-dir", str(table), "--out", str(earlier))
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "--table-dir" in line and str(table) in line and "rebuild" in line, line
    assert untouched(earlier)


# Every command that writes a record refuses an --out it cannot write before
# it runs: a folder, or a path below a file.
OUT_COMMANDS = {
    "tpcc": ["-m", "dbrepro", "run", "tpcc", "--transactions", "10"],
    "instructions": ["-m", "dbrepro", "run", "instructions", "--step", "11", "--txn-type", "payment",
                     "--transactions", "1"],
    "key-cache": ["-m", "dbrepro", "run", "key-cache", "run", "--table-dir", "TABLE", "--seconds", "0.01",
                  "--warmup-seconds", "0"],
    "quantum": ["-m", "dbrepro", "run", "quantum", "--cpus", "1", "--cpu-iterations", "5000"],
}


def test_out_that_is_a_device_is_refused_before_the_run(python):
    done = python("-m", "dbrepro", "run", "tpcc", "--transactions", "10", "--out", "/dev/null")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "--out: /dev/null is a character device" in one_line(done.stderr)
    assert done.stdout == "", "the run went ahead"
    assert Path("/dev/null").is_char_device()


def test_out_writes_through_a_symlink(small_run, tmp_path, earlier):
    link = tmp_path / "link.json"
    link.symlink_to(earlier)
    assert write_record(small_run, link) == link
    assert link.is_symlink(), "the symlink was replaced"
    assert read_record(earlier)["config"] == small_run.to_dict()["config"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("sbtest")
    key_cache.build_table(directory, rows=1000, seed=1)
    return directory


@pytest.mark.parametrize("command", list(OUT_COMMANDS))
@pytest.mark.parametrize("where", ["folder", "below-a-file"])
def test_unwritable_out_is_refused_before_the_run(python, tmp_path, table_dir, earlier, command, where):
    out = tmp_path if where == "folder" else earlier / "run.json"
    args = [str(table_dir) if arg == "TABLE" else arg for arg in OUT_COMMANDS[command]]
    started = time.monotonic()
    done = python(*args, "--out", str(out))
    assert done.returncode == 2, (done.stdout, done.stderr)
    line = one_line(done.stderr)
    assert "--out" in line and str(out) in line, line
    assert done.stdout == "", "the run went ahead"
    assert untouched(earlier)
    assert time.monotonic() - started < 60


def test_ctrl_c_keeps_the_previous_record(earlier):
    # A run interrupted while it works leaves the earlier record as it was.
    process = subprocess.Popen(
        [sys.executable, "-m", "dbrepro", "run", "tpcc", "--seconds", "60", "--transactions", "0", "--out", str(earlier),
         "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        time.sleep(2.0)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr
    assert untouched(earlier)


# ---------------------------------------------------------------------------
# Python API: a ValueError whose one-line message starts with the parameter.


@pytest.mark.parametrize(
    "call, parameter",
    [
        (lambda: tpcc.run(mix=[0.5, 0.5]), "mix"),
        (lambda: tpcc.run(stack="step99"), "stack"),
        (lambda: tpcc.run(variant=["paper"]), "variant"),
        (lambda: tpcc.run(stack="step0", transactions=10, log_dir="/nonexistent/logs", progress=False), "log_dir"),
        (lambda: key_cache.run(threads="4"), "threads"),
        (lambda: key_cache.run(segments=True), "segments"),
        (lambda: key_cache.run(table_dir="/nonexistent/sbtest"), "table_dir"),
        (lambda: key_cache.build_table("/etc/hostname", rows=10), "table_dir"),
        (lambda: key_cache.build_table("/tmp/unused", rows=0), "rows"),
        (lambda: key_cache.build_table("/tmp/unused", rows=10, block_size=1000), "block_size"),
        (lambda: quantum.run_sessions(cpus=True), "cpus"),
        (lambda: quantum.run_sessions(workload=None), "workload"),
        (lambda: quantum.run_sessions(cpu_iterations=0), "cpu_iterations"),
        (lambda: looking_glass.count_instructions("3", "payment"), "step"),
        (lambda: looking_glass.count_instructions(3, "payment", variant="x"), "variant"),
        (lambda: looking_glass.count_instructions(3, "payment", seed=-1), "seed"),
        (lambda: looking_glass.count_instructions(3, "payment", backend="gpu"), "backend"),
    ],
)
def test_api_error_names_the_parameter(call, parameter):
    with pytest.raises(ValueError) as error:
        call()
    message = one_line(str(error.value))
    assert message.startswith(f"{parameter}: "), message


def test_corrupt_key_cache_table_is_a_config_error(tmp_path):
    (tmp_path / "sbtest.MYI").write_bytes(b"x" * 100)
    (tmp_path / "sbtest.MYD").write_bytes(b"")
    with pytest.raises(key_cache.ConfigError) as error:
        key_cache.run(table_dir=tmp_path, seconds=0.01, warmup_seconds=0)
    assert error.value.parameter == "table_dir" and "rebuild it" in str(error.value)


# ---------------------------------------------------------------------------
# Files the workflow reads: a damaged raw-run record is named, and a table
# script stops on it without writing its table.


@pytest.mark.parametrize(
    "damage, problem",
    [
        (lambda text: text[: len(text) // 2], "invalid JSON"),  # a half-written file
        (lambda text: "", "invalid JSON"),
        (lambda text: json.dumps({**json.loads(text), "kind": 5}), "kind"),
        (lambda text: json.dumps({k: v for k, v in json.loads(text).items() if k != "metrics"}), "metrics"),
    ],
    ids=["truncated", "empty", "wrong-kind-type", "no-metrics"],
)
def test_table_script_names_a_damaged_record(python, repo, tmp_path, small_run, damage, problem):
    good = write_record(small_run, tmp_path / "good.json")
    bad = tmp_path / "bad.json"
    bad.write_text(damage(good.read_text()))
    with pytest.raises(RecordError) as error:
        read_record(bad)
    assert str(bad) in one_line(str(error.value)) and problem in str(error.value)
    out = tmp_path / "throughput.csv"
    done = python(str(repo / "workflows" / "scripts" / "tpcc_table.py"), str(out), str(good), str(bad))
    assert done.returncode != 0
    assert str(bad) in done.stderr.strip().splitlines()[-1], done.stderr
    assert not out.exists()

