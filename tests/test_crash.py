"""Crash safety with logging on: a multi-threaded TPC-C run on a database in
a directory (`dbrepro-native durable-run`) is killed with SIGKILL at random
moments, many times; each new run first recovers the database (redo, undo,
checkpoint) and goes on. At the end `dbrepro-native recover` checks that
every commit any run acknowledged (a line in its acks file, written after
commit returned) is in the database and that the TPC-C consistency
conditions hold.

Bounded for CI (10 kills); DBREPRO_CRASH_KILLS=N runs a longer soak.
"""
import json
import os
import random
import signal
import subprocess
import time

import pytest

import dbrepro

KILLS = int(os.environ.get("DBREPRO_CRASH_KILLS", "10"))
MIX = "new_order=0.45,payment=0.43,order_status=0.04,delivery=0.04,stock_level=0.04"
STACK = ["--stack", "step1", "--seed", "3"]


@pytest.fixture(scope="module")
def native():
    path = dbrepro.native_executable()
    assert path is not None, "dbrepro-native is not built (make build)"
    usage = subprocess.run([str(path), "--help"], capture_output=True, text=True).stdout
    assert "durable-run" in usage, f"{path} predates durable-run: rebuild it (make build)"
    return str(path)


def _wait_for_acks(child, acks, timeout=120.0):
    """Until the child has acknowledged a commit (it has opened the database)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.poll() is not None:
            out, err = child.communicate()
            pytest.fail(f"durable-run exited with {child.returncode} before being killed: {err or out}")
        if acks.exists() and acks.read_bytes().count(b"\n") >= 2:  # a commit after the run's header
            return
        time.sleep(0.02)
    child.kill()
    pytest.fail("durable-run acknowledged no commit within {timeout} s")


def test_sigkill_at_random_moments_loses_no_acknowledged_commit(native, tmp_path):
    database = tmp_path / "db"
    database.mkdir()
    rng = random.Random(20261122)
    ack_files = []
    for run_id in range(1, KILLS + 1):
        acks = tmp_path / f"acks-{run_id}.txt"
        child = subprocess.Popen(
            [native, "durable-run", "--dir", str(database), *STACK, "--terminals", "4", "--mix", MIX,
             "--run-id", str(run_id), "--acks", str(acks), "--checkpoint-every", "0.4"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        _wait_for_acks(child, acks)
        time.sleep(rng.uniform(0.0, 1.0))  # now and then inside a checkpoint
        child.send_signal(signal.SIGKILL)
        child.wait()
        assert child.returncode == -signal.SIGKILL
        ack_files.append(acks)

    args = [native, "recover", "--dir", str(database), *STACK]
    for acks in ack_files:
        args += ["--acks", str(acks)]
    done = subprocess.run(args, capture_output=True, text=True)
    assert done.stdout, done.stderr
    report = json.loads(done.stdout)
    assert report["acknowledged"] > KILLS, "too few commits acknowledged to say anything"
    assert report["missing"] == 0, f"acknowledged commit lost: {report['first_missing']}"
    failed = [c for c in report["consistency"] if not c["passed"]]
    assert not failed, failed
    assert report["consistent"] and done.returncode == 0
    assert report["generation"] >= KILLS + 1, "every run recovers and checkpoints"


def test_recover_names_a_directory_without_a_database(native, tmp_path):
    done = subprocess.run([native, "recover", "--dir", str(tmp_path / "missing"), *STACK],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "does not exist or is not a directory" in done.stderr


def test_durable_run_rejects_a_stack_without_a_flushed_log(native, tmp_path):
    done = subprocess.run([native, "durable-run", "--dir", str(tmp_path), "--stack", "step2"],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert "step0 or step1" in done.stderr
