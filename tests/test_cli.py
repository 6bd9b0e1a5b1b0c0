"""The `dbrepro` command line, run as a separate process like a user would."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dbrepro import read_record
from dbrepro import studies

TPCC_OPTIONS = [
    "--warehouses", "--transactions", "--seconds", "--variant", "--mix", "--seed",
    "--page-size", "--key-compare", "--stack", "--meter", "--log-dir", "--out", "--no-progress",
]


def test_run_writes_a_valid_record(python, tmp_path):
    out = tmp_path / "runs" / "spec.json"  # its folder made: it is inside the working folder
    done = python(
        "-m", "dbrepro", "run", "tpcc", "--warehouses", "1", "--transactions", "500",
        "--variant", "spec", "--seed", "3", "--mix", "new_order=0.45,payment=0.55",
        "--out", "runs/spec.json", "--no-progress", cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "transactions/s" in done.stdout and "PASS" in done.stdout and "FAIL" not in done.stdout
    record = read_record(out)
    assert record["kind"] == "tpcc"
    assert record["config"]["variant"] == "spec" and record["config"]["seed"] == 3
    assert record["config"]["mix"]["payment"] == pytest.approx(0.55)
    assert record["metrics"]["transactions"] == 500
    assert sorted(p.name for p in out.parent.iterdir()) == ["spec.json"]


@pytest.mark.parametrize(
    "args, option",
    [
        (["--variant", "foo"], "--variant"),
        (["--key-compare", "fast"], "--key-compare"),
        (["--warehouses", "0"], "--warehouses"),
        (["--warehouses", "two"], "--warehouses"),
        (["--transactions", "-5"], "--transactions"),
        (["--seconds", "-1"], "--seconds"),
        (["--page-size", "1000"], "--page-size"),
        (["--mix", "bogus=1"], "--mix"),
        (["--mix", "new_order=abc"], "--mix"),
        (["--mix", "new_order"], "--mix"),
        (["--mix", "new_order=0,payment=0"], "--mix"),
    ],
)
def test_bad_argument_is_one_line_and_exit_2(python, tmp_path, args, option):
    out = tmp_path / "run.json"
    done = python("-m", "dbrepro", "run", "tpcc", "--transactions", "500", *args, "--out", str(out))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("dbrepro: error: ") and option in lines[0], lines[0]
    assert not out.exists()


def test_out_makes_no_folder_outside_the_working_folder(python, tmp_path):
    (tmp_path / "work").mkdir()
    out = tmp_path / "elsewhere" / "deeper" / "run.json"
    done = python("-m", "dbrepro", "run", "tpcc", "--transactions", "10", "--out", str(out), cwd=tmp_path / "work")
    assert done.returncode == 2 and "does not exist and is outside the working folder" in done.stderr
    assert done.stderr.count("\n") == 1 and not (tmp_path / "elsewhere").exists()


def test_bad_choice_lists_allowed_values(python, tmp_path):
    done = python("-m", "dbrepro", "run", "tpcc", "--variant", "foo", "--out", str(tmp_path / "x.json"))
    # The engine checks the value (its one check) and names the setting; the CLI shows it as the option.
    assert done.stderr.strip() == "dbrepro: error: --variant: invalid value 'foo' (allowed: paper, spec)"


@pytest.mark.parametrize("args", [[], ["run"], ["run", "tpcc"], ["nope"], ["run", "tpcc", "--bogus", "1"]])
def test_missing_or_unknown_arguments_are_one_line(python, args):
    done = python("-m", "dbrepro", *args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_tpcc_help_documents_every_option(python):
    done = python("-m", "dbrepro", "run", "tpcc", "--help")
    assert done.returncode == 0
    for option in TPCC_OPTIONS:
        assert option in done.stdout, option
    text = " ".join(done.stdout.split())  # argparse wraps lines anywhere
    for allowed in ("{paper,spec}", "{auto,generic,integer}", "{none,perf}", "new_order, payment, order_status"):
        assert allowed in text, allowed
    assert done.stdout.count("default:") >= 20  # every setting of the engine's table


def test_top_level_help_lists_commands(python):
    done = python("-m", "dbrepro", "--help")
    assert done.returncode == 0
    assert "run STUDY" in done.stdout and "info" in done.stdout and "list" in done.stdout
    for study in studies.names():
        assert study in done.stdout, study


def test_info_prints_provenance_json(python):
    done = python("-m", "dbrepro", "info")
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert {"git", "host", "build", "hardware_counters", "valgrind", "python"} <= set(info)
    assert info["hardware_counters"]["backend"] in ("perf_event", "callgrind", None)


def test_console_script_is_installed():
    script = Path(sys.executable).with_name("dbrepro")
    assert script.exists(), "console script `dbrepro` missing: is `dbrepro = dbrepro.cli:main` in pyproject?"
    done = subprocess.run([script, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.startswith("dbrepro ")


def test_ctrl_c_writes_nothing_and_exits_130(tmp_path):
    out = tmp_path / "run.json"
    # A timed run long enough to be interrupted while loading or running.
    # The child gets SIGINT's default disposition back: a shell running this
    # suite as a background job starts it with SIGINT ignored, and Python then
    # installs no KeyboardInterrupt handler (as for any process under nohup).
    process = subprocess.Popen(
        [sys.executable, "-m", "dbrepro", "run", "tpcc", "--seconds", "60", "--transactions", "0", "--out", str(out),
         "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        time.sleep(2.0)  # past interpreter start-up and imports
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, (stdout, stderr)
    assert stderr.strip() == "dbrepro: interrupted; nothing written"
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_consistency_failure_exits_1_after_writing(tmp_path, monkeypatch, capsys):
    # A real run whose first consistency check is then marked failed: the CLI
    # must still write the record, say FAIL, and exit 1.
    from dbrepro import cli, tpcc

    real_run = tpcc.run

    def run_then_fail(**kwargs):
        result = real_run(**kwargs)
        result.extra["consistency"][0].update(passed=False, detail="W_YTD 1 != 2")
        result.metrics["consistent"] = False
        return result

    monkeypatch.setattr(tpcc, "run", run_then_fail)
    out = tmp_path / "run.json"
    code = cli.main(["run", "tpcc", "--transactions", "500", "--out", str(out), "--no-progress"])
    captured = capsys.readouterr()
    assert code == 1
    assert "FAIL  condition 1" in captured.out and "W_YTD 1 != 2" in captured.out
    assert "consistency check failed" in captured.err
    assert read_record(out)["metrics"]["consistent"] is False


@pytest.mark.parametrize("study, expected", [("key-cache", "--table-dir"), ("key_cache", "--segments"),
                                             ("fifo_cache", "--cache-policy"), ("quantum", "--quantum-ms"),
                                             ("looking_glass", "--txn-type"), ("openedge", "--latch-factor")])
def test_run_hands_other_studies_to_their_own_command_lines(study, expected):
    done = subprocess.run([sys.executable, "-m", "dbrepro", "run", study, "--help"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout
    listed = subprocess.run([sys.executable, "-m", "dbrepro", "run", "--help"], capture_output=True, text=True)
    assert study in listed.stdout


@pytest.mark.parametrize("study, command, expected", [("key_cache", "build", "--block-size"),
                                                       ("fifo_cache", "cells", "--cache-policies"),
                                                       ("fifo_cache", "trace", "--trace-format")])
def test_a_study_with_commands_of_its_own_runs_its_run_command_unless_named(study, command, expected):
    done = subprocess.run([sys.executable, "-m", "dbrepro", "run", study, command, "--help"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert expected in done.stdout


def test_list_prints_studies_stacks_policies_and_settings():
    done = subprocess.run([sys.executable, "-m", "dbrepro", "list"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for name in studies.names():
        assert f"  {name} " in done.stdout, name
    assert "step0" in done.stdout and "soqol" in done.stdout  # the engine's registry
    assert "settings of key_cache" in done.stdout and "distributions" in done.stdout  # from its settings table


# ---------------------------------------------------------------------------
# The studies whose command lines live in their own modules (issue 41, item 9):
# their help and errors name the command a user types, `dbrepro run STUDY`.


@pytest.mark.parametrize("study", [s.name for s in studies.STUDIES if s.own_command_line])
def test_a_study_command_names_itself_as_the_user_types_it(python, tmp_path, study):
    command = f"dbrepro run {study}"
    shown = python("-m", "dbrepro", "run", study, "--help")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"usage: {command} [-h]"), shown.stdout[:200]
    bad = python("-m", "dbrepro", "run", study, "--no-such-option", "1", "--out", str(tmp_path / "x.json"))
    assert bad.returncode == 2 and bad.stderr.startswith(f"{command}: error: "), bad.stderr
    for text in (shown.stdout, bad.stderr):
        assert "python -m" not in text and f"dbrepro.{study}:" not in text and f"dbrepro.{study} " not in text


def test_key_cache_says_its_table_comes_from_its_build_command(python, tmp_path):
    build = "dbrepro run key_cache build --table-dir DIR --rows N"
    shown = python("-m", "dbrepro", "run", "key_cache", "--help")
    assert build in " ".join(shown.stdout.split())  # argparse wraps lines anywhere
    missing = python("-m", "dbrepro", "run", "key_cache", "--out", str(tmp_path / "x.json"))
    assert missing.returncode == 2 and "--table-dir" in missing.stderr and build in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1
    empty = python("-m", "dbrepro", "run", "key_cache", "--table-dir", str(tmp_path), "--out", str(tmp_path / "x.json"))
    assert empty.returncode == 2 and "no sbtest table" in empty.stderr and build in empty.stderr


def test_quantum_cpus_help_and_error_state_one_range(python, tmp_path):
    from dbrepro import quantum

    shown = " ".join(python("-m", "dbrepro", "run", "quantum", "--help").stdout.split())
    stated = shown.split("--cpus N ", 1)[1].split("range: ", 1)[1].split(";", 1)[0]
    too_many = quantum.available_cpus() + 1
    bad = python("-m", "dbrepro", "run", "quantum", "--cpus", str(too_many), "--out", str(tmp_path / "x.json"))
    assert bad.returncode == 2, bad.stderr
    assert stated == "0..CPUs" and f"--cpus: must be in {stated} " in bad.stderr, (stated, bad.stderr)
    assert f"may run on {too_many - 1}" in bad.stderr and f"got {too_many}" in bad.stderr


OPENEDGE_SMALL = ["--rows", "200", "--servers", "1", "--users", "2", "--steps", "0,3"]


def test_openedge_prints_progress_to_a_terminal_only(tmp_path):
    """Progress lines on stderr when it is a terminal; into a pipe, only the result lines."""
    import os
    import pty

    command = [sys.executable, "-m", "dbrepro", "run", "openedge", *OPENEDGE_SMALL]
    piped = subprocess.run([*command, "--out", str(tmp_path / "piped.json")], capture_output=True, text=True,
                           timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert "runs" not in piped.stderr and "openedge: " not in piped.stdout and "records/s" in piped.stdout
    leader, follower = pty.openpty()
    try:
        shown = subprocess.run([*command, "--out", str(tmp_path / "tty.json")], stdout=subprocess.PIPE,
                               stderr=follower, timeout=300)
        os.close(follower)
        terminal = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal's other end closed: all read
                break
            if not chunk:
                break
            terminal += chunk
    finally:
        os.close(leader)
    assert shown.returncode == 0
    assert b"openedge: 1/2 runs" in terminal and b"openedge: 2/2 runs" in terminal, terminal
