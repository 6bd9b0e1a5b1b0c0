"""The four holes an independent soak of `dbrepro-native durable-run` found
(issue 33), each closed and shown here through the native driver:

1. run ids the commit stamp cannot hold are refused (one line, exit 2), so
   two runs can never have the same stamps and verify each other's acks;
2. the lock is the directory's own, so removing a `lock` file during a run
   lets no second process in;
3. a refusal (exit 3) leaves the directory exactly as it found it: names,
   sizes and contents;
4. the snapshot.tmp of a checkpoint that failed on a full disk is removed
   before the next open writes anything, with a line that says so, so the
   database recovers in place once the space it held is free again.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess

import pytest

from test_no_silent_loss import (  # noqa: F401 (native is a fixture)
    STACK, acknowledged, assert_recovered, kill, native, one_line, recover, run, run_until_a_checkpoint_fails, start,
    wait_for_acks)

MAX_RUN_ID = 2**24 - 1  # terminal_clock_base: the run id is a stamp's top 24 bits


def tree_digest(directory):
    """Every file's name, size and contents (what a refusal must not change)."""
    entries = {}
    for path in sorted(directory.iterdir()):
        data = path.read_bytes()
        entries[path.name] = (len(data), hashlib.sha256(data).hexdigest())
    return entries


# ---------------------------------------------------------------------------
# 1. Run ids.

def test_run_ids_the_stamp_cannot_hold_are_refused_before_the_directory_is_touched(native, tmp_path):
    database = tmp_path / "db"
    database.mkdir()
    # 16777217 = 2^24 + 1 differs from run id 1 only above the stamp's 24
    # bits: its stamps were run 1's. It is refused up front.
    for run_id in (MAX_RUN_ID + 2, 2**63, 2**64 - 1):
        done = run(native, "durable-run", "--dir", str(database), *STACK, "--run-id", str(run_id),
                   "--transactions", "10")
        assert done.returncode == 2, (done.stdout, done.stderr)
        assert f"--run-id: must be in 1..{MAX_RUN_ID}, got {run_id}" in one_line(done.stderr)
        assert list(database.iterdir()) == []
    done = run(native, "durable-run", "--dir", str(database), *STACK, "--terminals", "4096", "--transactions", "5")
    assert done.returncode == 2 and "terminals: must be in 1..4095" in one_line(done.stderr), done.stderr
    assert list(database.iterdir()) == []


def test_the_largest_run_id_keeps_its_acks_apart_from_run_one(native, tmp_path):
    # Run 1 and run 2^24 - 1 on two databases: each verifies its own acks and
    # finds none of the other's (before the limit, run 2^24 + 1's stamps were
    # run 1's, and recover --acks reported 0 missing for commits not there).
    reports = {}
    for run_id in (1, MAX_RUN_ID):
        database = tmp_path / f"db-{run_id}"
        database.mkdir()
        acks = tmp_path / f"acks-{run_id}.txt"
        done = run(native, "durable-run", "--dir", str(database), *STACK, "--terminals", "2", "--transactions", "40",
                   "--run-id", str(run_id), "--acks", str(acks))
        assert done.returncode == 0, done.stderr
        assert_recovered(recover(native, database, [acks]))
        reports[run_id] = (database, acks)
    for run_id, other in ((1, MAX_RUN_ID), (MAX_RUN_ID, 1)):
        done = recover(native, reports[run_id][0], [reports[other][1]])
        assert done.returncode == 1, (done.stdout, done.stderr)
        report = json.loads(done.stdout)
        assert report["acknowledged"] == report["missing"] == acknowledged(reports[other][1]) > 0, report


# ---------------------------------------------------------------------------
# 2. The lock.

def test_removing_a_lock_file_during_a_run_lets_no_second_process_in(native, tmp_path):
    database = tmp_path / "db"
    database.mkdir()
    (database / "lock").touch()  # what builds before issue 33 locked, and a soak removed
    acks = tmp_path / "acks.txt"
    child = start(native, database, acks, 1)
    try:
        wait_for_acks(child, acks)
        (database / "lock").unlink()
        for command in ("durable-run", "recover"):
            second = run(native, command, "--dir", str(database), *STACK, "--transactions", "10")
            assert second.returncode == 3, (command, second.stdout, second.stderr)
            assert "is in use by another process" in one_line(second.stderr)
        assert child.poll() is None, "the first run stopped"
    finally:
        kill(child)
    assert not (database / "lock").exists(), "a refused opener created a lock file"
    assert_recovered(recover(native, database, [acks]))


# ---------------------------------------------------------------------------
# 3. Refusals write nothing.

def _flip(path, at):
    with open(path, "r+b") as f:
        f.seek(at)
        byte = f.read(1)[0]
        f.seek(at)
        f.write(bytes([byte ^ 0x10]))


def _log(database):
    return max(database.glob("log.[0-9]*"), key=lambda p: int(p.name[4:]))


REFUSALS = {
    "log without snapshot": (lambda db: (db / "snapshot").unlink(), "but no snapshot"),
    "missing log": (lambda db: _log(db).unlink(), "missing"),
    "damaged log": (lambda db: _flip(_log(db), _log(db).stat().st_size // 2), "is damaged"),
    "damaged snapshot": (lambda db: _flip(db / "snapshot", (db / "snapshot").stat().st_size // 2), "damaged"),
    "cut snapshot": (lambda db: os.truncate(db / "snapshot", (db / "snapshot").stat().st_size - 100), "snapshot"),
    "newer log": (lambda db: (db / f"log.{int(_log(db).name[4:]) + 2}").write_bytes(
        _log(db).read_bytes()), "a log newer than the snapshot"),
}


@pytest.fixture(scope="module")
def database_with_leftovers(native, tmp_path_factory):
    """A database (snapshot, log.1 with 30 transactions) with the leftovers a
    crash inside a checkpoint leaves (a partial snapshot.tmp, a log.pending
    whose header was not written yet), which a refusal must keep as they are."""
    database = tmp_path_factory.mktemp("leftovers") / "db"
    database.mkdir()
    done = run(native, "durable-run", "--dir", str(database), *STACK, "--terminals", "2", "--transactions", "30")
    assert done.returncode == 0, done.stderr
    (database / "snapshot.tmp").write_bytes((database / "snapshot").read_bytes()[:4096])
    (database / "log.pending").write_bytes(b"")
    return database


@pytest.mark.parametrize("case", list(REFUSALS))
def test_a_refusal_leaves_the_directory_exactly_as_found(native, database_with_leftovers, tmp_path, case):
    damage, message = REFUSALS[case]
    database = tmp_path / "db"
    shutil.copytree(database_with_leftovers, database)
    damage(database)
    before = tree_digest(database)
    mtime = database.stat().st_mtime_ns
    for command in ("recover", "durable-run"):
        done = run(native, command, "--dir", str(database), *STACK, "--transactions", "10")
        assert done.returncode == 3, (command, done.stdout, done.stderr)
        line = one_line(done.stderr)
        assert message in line and str(database) in line, line
        assert tree_digest(database) == before, f"{command} changed the directory it refused"
        assert database.stat().st_mtime_ns == mtime, f"{command} created, renamed or removed a file"


# ---------------------------------------------------------------------------
# 4. A full disk.

@pytest.fixture
def small_disk(tmp_path):
    """A 256 MiB tmpfs (one warehouse's snapshot is about 100 MB)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m", "tmpfs", str(mount)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"a small file system for the full-disk test needs mount (root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def free_bytes(path):
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def fill(filler, leave):
    """Grows `filler` until at most `leave` bytes are free (or the disk is full)."""
    chunk = b"\xa5" * (1 << 20)
    with open(filler, "ab", buffering=0) as f:
        while free_bytes(filler.parent) > leave:
            want = min(len(chunk), free_bytes(filler.parent) - leave)
            try:
                f.write(chunk[:max(want, 4096)])
            except OSError:
                break


def test_a_checkpoint_that_filled_the_disk_is_cleared_before_the_next_open_writes(native, small_disk, tmp_path):
    database = small_disk / "db"
    database.mkdir()
    first = run(native, "durable-run", "--dir", str(database), *STACK, "--terminals", "1", "--transactions", "20")
    assert first.returncode == 0, first.stderr
    snapshot = (database / "snapshot").stat().st_size

    # Another writer fills the disk during a run: its next checkpoint fails.
    acks = tmp_path / "acks.txt"
    filler = small_disk / "filler"
    run_until_a_checkpoint_fails(native, database, acks, 2, "0.3", lambda: fill(filler, leave=snapshot * 7 // 10))
    stale = (database / "snapshot.tmp").stat().st_size
    assert stale > 0 and free_bytes(small_disk) < 4096, (stale, free_bytes(small_disk))

    # On the full disk, the open removes the stale file before it writes its
    # first byte (before issue 33 it failed creating log.pending); its own
    # checkpoint then needs more than the stale file held and fails alike.
    full = recover(native, database, [acks])
    assert full.returncode == 1, (full.stdout, full.stderr)
    removed, failed = full.stderr.strip().splitlines()
    assert removed.startswith(f"dbrepro-native: removed what a crash or a failed checkpoint left in '{database}'")
    assert f"snapshot.tmp ({stale} bytes)" in removed, removed
    assert "log.pending" not in failed and "snapshot.tmp" in failed and "No space left on device" in failed, failed

    # Free room for one snapshot (the stale file is removed by the open itself): the
    # database recovers in place, every acknowledged commit present.
    # What the recovery needs is room for one whole snapshot beside the stale file's space, which it
    # frees itself: a failed checkpoint's partial file can hold less than a whole snapshot (under a
    # parallel suite, 50 MB of a ~100 MB snapshot was seen), so free that much of the filler.
    stale = (database / "snapshot.tmp").stat().st_size
    need = max(stale, snapshot) + (1 << 20)
    os.truncate(filler, max(0, filler.stat().st_size - need))
    done = recover(native, database, [acks])
    assert f"snapshot.tmp ({stale} bytes)" in one_line(done.stderr)
    assert_recovered(done)
    assert not (database / "snapshot.tmp").exists()
