"""No silent loss (issue 21), through `dbrepro-native`: a database directory
that is damaged, incomplete or open in another process is refused (exit 3,
one line naming the file), a checkpoint's I/O error ends the run cleanly
(exit 1, one line) and its leftovers are removed by the next open, and bad
option values get one line (exit 2).

The soak kills durable runs with SIGKILL and then damages the directory at
random (truncate, flip a byte, delete a file, open it concurrently); every
round must end in a correct recovery (every acknowledged commit present,
consistent) or a clear refusal, after which the undamaged copy must still
recover. A few rounds run in the suite; `-m soak` (or DBREPRO_SOAK_ROUNDS=N)
runs a longer one.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time

import pytest

import dbrepro

STACK = ["--stack", "step1", "--seed", "3"]
MIX = "new_order=0.45,payment=0.43,order_status=0.04,delivery=0.04,stock_level=0.04"


@pytest.fixture(scope="module")
def native():
    path = dbrepro.native_executable()
    assert path is not None, "dbrepro-native is not built (make build)"
    return str(path)


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    assert "terminate called" not in text and "Traceback" not in text
    return lines[0]


def run(native, *args, timeout=120):
    return subprocess.run([native, *args], capture_output=True, text=True, timeout=timeout)


def start(native, database, acks, run_id, every="0.3", terminals="2"):
    return subprocess.Popen(
        [native, "durable-run", "--dir", str(database), *STACK, "--terminals", terminals, "--mix", MIX,
         "--run-id", str(run_id), "--acks", str(acks), "--checkpoint-every", every],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def acknowledged(acks):
    """The acknowledgements in an acks file (its lines but the runs' headers, '# run N of database ID')."""
    return sum(1 for line in acks.read_text().splitlines() if not line.startswith("#"))


def wait_for_acks(child, acks, timeout=120.0):
    """Until the child acknowledged a commit: its header comes first, before the database is opened."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child.poll() is not None:
            out, err = child.communicate()
            pytest.fail(f"durable-run exited with {child.returncode} before it acknowledged a commit: {err or out}")
        if acks.exists() and acks.read_bytes().count(b"\n") >= 2:
            return
        time.sleep(0.02)
    child.kill()
    pytest.fail(f"durable-run acknowledged no commit within {timeout} s")


def kill(child):
    child.send_signal(signal.SIGKILL)
    child.communicate()


def recover(native, database, ack_files):
    args = ["recover", "--dir", str(database), *STACK]
    for acks in ack_files:
        args += ["--acks", str(acks)]
    return run(native, *args)


def assert_recovered(done):
    assert done.returncode == 0 and done.stdout, (done.returncode, done.stdout, done.stderr)
    report = json.loads(done.stdout)
    assert report["missing"] == 0, f"acknowledged commit lost: {report['first_missing']}"
    assert report["consistent"], report["consistency"]
    return report


def crashed(native, tmp_path, run_id=1, pause=0.3):
    """A database directory whose durable run was killed; its acks file."""
    database = tmp_path / "db"
    database.mkdir(exist_ok=True)
    acks = tmp_path / f"acks-{run_id}.txt"
    child = start(native, database, acks, run_id)
    wait_for_acks(child, acks)
    time.sleep(pause)
    kill(child)
    return database, acks


# ---------------------------------------------------------------------------
# Option values: one line, exit 2.

BAD_OPTIONS = [
    (["tpcc", "--bogus", "1"], "unknown option '--bogus'"),
    (["tpcc", "--transactions", "10", "--bogus"], "unknown option '--bogus'"),
    (["durable-run", "--dir", "/tmp", "--frobnicate"], "unknown option '--frobnicate'"),
    (["tpcc", "--seed", "18446744073709551616"], "--seed: 18446744073709551616 is out of range"),
    (["tpcc", "--transactions", "99999999999999999999"], "--transactions: 99999999999999999999 is out of range"),
    (["tpcc", "--warehouses", "4294967297"], "--warehouses: must be in 1..65535, got 4294967297"),
    (["tpcc", "--page-size", "x"], "--page-size: expected a non-negative integer"),
    (["tpcc", "--check-consistency", "maybe"], "--check-consistency: expected true or false"),
    (["tpcc", "--mix", "new_order"], "--mix: expected TYPE=WEIGHT"),
    (["tpcc", "--seed", "-1"], "--seed: expected a non-negative integer"),
    (["tpcc", "--seconds", "nan"], "--seconds: expected a finite number"),
    (["durable-run", "--dir", "/tmp", "--checkpoint-every", "nan"], "--checkpoint-every: expected a finite number"),
    (["durable-run", "--dir", "/tmp", "--checkpoint-every", "inf"], "--checkpoint-every: expected a finite number"),
    (["tpcc", "--mix", "new_order=inf"], "--mix: expected a finite number"),
    (["tpcc", "--warehouses", "65535"], "warehouses: 65535 warehouses need about"),
]


@pytest.mark.parametrize("args, message", BAD_OPTIONS, ids=[" ".join(a) for a, _ in BAD_OPTIONS])
def test_bad_native_options_get_one_line(native, args, message):
    done = run(native, *args, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert message in one_line(done.stderr)
    assert done.stdout == ""


def test_the_largest_seed_is_accepted_and_one_more_refused(native):
    # A record's seed is read back into a signed 64-bit column: 2^63 - 1 is the
    # largest the engine takes, from every interface (config::kRecordIntegerMax).
    done = run(native, "tpcc", "--seed", str(2**63 - 1), "--transactions", "50", timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["config"]["seed"] == 2**63 - 1
    refused = run(native, "tpcc", "--seed", str(2**63), "--transactions", "50", timeout=120)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "--seed: must be in 0..9223372036854775807" in refused.stderr


# ---------------------------------------------------------------------------
# Refusals: exit 3, one line naming the directory or file; nothing changed.


def test_a_second_process_on_the_directory_is_refused(native, tmp_path):
    database = tmp_path / "db"
    database.mkdir()
    acks = tmp_path / "acks.txt"
    child = start(native, database, acks, 1)
    try:
        wait_for_acks(child, acks)
        second = recover(native, database, [])
        assert second.returncode == 3, (second.stdout, second.stderr)
        assert "is in use by another process" in one_line(second.stderr)
    finally:
        kill(child)
    assert_recovered(recover(native, database, [acks]))


def test_a_log_without_its_snapshot_is_refused_and_left_alone(native, tmp_path):
    database, acks = crashed(native, tmp_path)
    (database / "snapshot").unlink()
    logs = {p.name: p.stat().st_size for p in database.glob("log.[0-9]*")}
    assert logs
    done = run(native, "durable-run", "--dir", str(database), *STACK, "--transactions", "10")
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert "but no snapshot" in one_line(done.stderr)
    assert {p.name: p.stat().st_size for p in database.glob("log.[0-9]*")} == logs
    assert not (database / "snapshot").exists(), "a new database was created over the log"


def test_a_missing_log_is_refused(native, tmp_path):
    database, acks = crashed(native, tmp_path)
    for log in database.glob("log.[0-9]*"):
        log.unlink()
    done = recover(native, database, [acks])
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert "missing" in one_line(done.stderr)


def run_until_a_checkpoint_fails(native, database, acks, run_id, every, fail_next_checkpoint):
    """Starts a durable run, calls fail_next_checkpoint() once it acknowledged
    a commit, and checks that the run ends with exit 1 and one line saying its
    checkpoint ran out of space."""
    child = start(native, database, acks, run_id, every=every)
    try:
        wait_for_acks(child, acks)
        fail_next_checkpoint()
        out, err = child.communicate(timeout=120)
    finally:
        if child.poll() is None:
            kill(child)
    assert child.returncode == 1, (out, err)
    line = one_line(err)
    assert "checkpoint failed" in line and "snapshot.tmp" in line and "No space left on device" in line, line


def test_a_checkpoint_io_error_ends_the_run_cleanly_and_is_cleaned_up(native, tmp_path):
    database = tmp_path / "db"
    database.mkdir()
    acks = tmp_path / "acks.txt"

    def full_disk():  # the next checkpoint writes its snapshot into a full disk
        deadline = time.monotonic() + 60
        while True:
            try:
                os.symlink("/dev/full", database / "snapshot.tmp")
                break
            except FileExistsError:  # a checkpoint is writing it now
                assert time.monotonic() < deadline
                time.sleep(0.005)

    run_until_a_checkpoint_fails(native, database, acks, 1, "0.2", full_disk)
    # The symlink is not a file the database wrote (issue 56): the next open
    # refuses it, one line naming it, and removes nothing.
    refused = recover(native, database, [acks])
    assert refused.returncode == 3, (refused.stdout, refused.stderr)
    assert "snapshot.tmp: not a file this database wrote" in one_line(refused.stderr)
    assert os.path.islink(database / "snapshot.tmp")
    (database / "snapshot.tmp").unlink()
    assert_recovered(recover(native, database, [acks]))
    assert len(list(database.glob("log.[0-9]*"))) == 1, sorted(p.name for p in database.iterdir())


# ---------------------------------------------------------------------------
# The soak.

DAMAGES = ["none", "truncate snapshot", "flip snapshot", "flip log", "delete snapshot", "delete log",
           "concurrent open"]


def _damage(kind, database, rng):
    """Damages the directory; returns True if the damage must be refused."""
    snapshot = database / "snapshot"
    log = max(database.glob("log.[0-9]*"), key=lambda p: int(p.name[4:]))
    if kind == "truncate snapshot":
        os.truncate(snapshot, rng.randrange(snapshot.stat().st_size))
    elif kind.startswith("flip"):
        path = snapshot if kind.endswith("snapshot") else log
        size = path.stat().st_size
        if size == 0:
            return False
        at = rng.randrange(size)
        with open(path, "r+b") as f:
            f.seek(at)
            byte = f.read(1)[0]
            f.seek(at)
            f.write(bytes([byte ^ (1 << rng.randrange(8))]))
    elif kind == "delete snapshot":
        snapshot.unlink()
    elif kind == "delete log":
        log.unlink()
    return kind != "none"


def soak(native, tmp_path, rounds, seed):
    rng = random.Random(seed)
    database = tmp_path / "db"
    database.mkdir()
    saved = tmp_path / "saved"
    ack_files = []
    outcomes = []
    for run_id in range(1, rounds + 1):
        acks = tmp_path / f"acks-{run_id}.txt"
        child = start(native, database, acks, run_id)
        wait_for_acks(child, acks)
        kind = rng.choice(DAMAGES)
        if kind == "concurrent open":
            second = recover(native, database, [])
            assert second.returncode == 3 and "in use" in one_line(second.stderr), (kind, second.stderr)
        time.sleep(rng.uniform(0.0, 0.6))  # now and then inside a checkpoint
        kill(child)
        ack_files.append(acks)
        if kind == "concurrent open":
            kind = "none"
        shutil.rmtree(saved, ignore_errors=True)
        shutil.copytree(database, saved)
        refusable = _damage(kind, database, rng)
        done = recover(native, database, ack_files)
        if done.returncode == 3:
            assert refusable, f"round {run_id}: an undamaged directory was refused: {done.stderr}"
            line = one_line(done.stderr)
            assert str(database) in line, line
            outcomes.append("refused")
            shutil.rmtree(database)
            shutil.copytree(saved, database)  # the undamaged copy must still recover in full
            done = recover(native, database, ack_files)
        else:
            outcomes.append("recovered")
        assert_recovered(done)
    return outcomes


def test_short_soak_of_kills_and_damage(native, tmp_path):
    rounds = int(os.environ.get("DBREPRO_SOAK_ROUNDS", "3"))
    outcomes = soak(native, tmp_path, rounds, seed=20261125)
    assert len(outcomes) == rounds


@pytest.mark.soak
def test_long_soak_of_kills_and_damage(native, tmp_path):
    outcomes = soak(native, tmp_path, int(os.environ.get("DBREPRO_SOAK_ROUNDS", "40")), seed=int(time.time()))
    assert "refused" in outcomes and "recovered" in outcomes
