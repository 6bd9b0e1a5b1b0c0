"""Issue 42, through `dbrepro-native`: a durable run holds its directory,
not its name, and `recover` checks what it is told to check before it
writes.

1. While run A holds D, `mv D D.old; mkdir D` (or a symlink given as --dir
   repointed) and run B in the new D: each run keeps writing where it
   started, and `recover` finds every acknowledgement of each in its own
   directory;
2. durable-run and recover take the same checks from the settings table
   (warehouses 0 or 70000: one line, exit 2, nothing written);
3. every argument, the files to read or append to included, is checked
   before the first write: a refusal changes nothing in the directory;
4. `recover --acks` reads a whole file or refuses it (a malformed line, an
   unknown type letter, a line cut short, a directory), naming the line;
5. `recover` creates a database only with --create; durable-run's acks file
   may not be inside the database directory; range messages name the real
   limits, and a value is reported as given.

Runs are awaited by what they write (an acks line, a log file), never by a
fixed sleep.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import time

import pytest

from test_no_silent_loss import (  # noqa: F401 (native is a fixture)
    STACK, acknowledged, assert_recovered, kill, native, one_line, recover, run, start, wait_for_acks)


def generations(directory):
    return {int(p.name[4:]) for p in directory.glob("log.[0-9]*")}


def wait_until(condition, what, children, timeout=120.0):
    """Until condition() holds (polled); fails if a child exits first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        for child in children:
            if child.poll() is not None:
                out, err = child.communicate()
                pytest.fail(f"a durable run exited with {child.returncode} before {what}: {err or out}")
        time.sleep(0.02)
    pytest.fail(f"not within {timeout} s: {what}")


def untouched(directory):
    """What a refusal must leave as it was: every name below the directory,
    each file's size and contents, the directory's mtime."""
    entries = {}
    for path in sorted(directory.rglob("*")):
        data = None if path.is_dir() else path.read_bytes()
        entries[str(path.relative_to(directory))] = data and (len(data), hashlib.sha256(data).hexdigest())
    return entries, directory.stat().st_mtime_ns


# ---------------------------------------------------------------------------
# 1. The directory, not its name.

def _rename_and_replace(tmp_path):
    name = tmp_path / "db"
    name.mkdir()

    def switch():
        name.rename(tmp_path / "db.old")
        name.mkdir()
        return tmp_path / "db.old", name
    return name, switch


def _repoint_symlink(tmp_path):
    first, second, name = tmp_path / "first", tmp_path / "second", tmp_path / "db"
    first.mkdir()
    second.mkdir()
    name.symlink_to(first)

    def switch():
        (tmp_path / "db.new").symlink_to(second)
        os.replace(tmp_path / "db.new", name)  # atomic: the name always resolves
        return first, second
    return name, switch


@pytest.mark.parametrize("make", [_rename_and_replace, _repoint_symlink], ids=["renamed", "symlink-repointed"])
def test_a_run_keeps_writing_where_it_started_when_its_name_changes(native, tmp_path, make):
    name, switch = make(tmp_path)
    acks_a, acks_b = tmp_path / "acks-a.txt", tmp_path / "acks-b.txt"
    a = start(native, name, acks_a, 1, every="0.2")
    b = None
    try:
        # A has checkpointed since it created the database (generation >= 2),
        # so its next logs cannot be taken for B's log.1.
        wait_until(lambda: max(generations(name), default=0) >= 2, "run A checkpointed", [a])
        wait_for_acks(a, acks_a)
        a_dir, b_dir = switch()
        at_switch = max(generations(a_dir))
        b = start(native, name, acks_b, 2, every="0")  # B: one log (log.1) until it is killed
        wait_for_acks(b, acks_b)
        # A checkpoints again after B started (its new log is in its own
        # directory; before issue 42, in B's under the same name), then
        # acknowledges more commits.
        wait_until(lambda: max(generations(a_dir) | generations(b_dir)) > at_switch,
                   "run A checkpointed after the switch", [a, b])
        acked = acks_a.stat().st_size
        wait_until(lambda: acks_a.stat().st_size > acked and acks_b.stat().st_size > 0,
                   "both runs acknowledged commits after A's checkpoint", [a, b])
    finally:
        kill(a)
        if b is not None:
            kill(b)
    assert generations(b_dir) == {1}, f"run A wrote into run B's directory: {sorted(os.listdir(b_dir))}"
    report_a = assert_recovered(recover(native, a_dir, [acks_a]))
    report_b = assert_recovered(recover(native, b_dir, [acks_b]))
    assert report_a["acknowledged"] > 0 and report_b["acknowledged"] > 0


# ---------------------------------------------------------------------------
# 2. and 5. One validation, the real limits.

@pytest.mark.parametrize("command", ["recover", "durable-run"])
@pytest.mark.parametrize("warehouses", ["0", "70000", "4294967296"])
def test_both_commands_refuse_warehouses_outside_the_tables_range(native, tmp_path, command, warehouses):
    empty = tmp_path / "db"
    empty.mkdir()
    extra = ["--create"] if command == "recover" else ["--transactions", "5"]
    done = run(native, command, "--dir", str(empty), *STACK, "--warehouses", warehouses, *extra)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"--warehouses: must be in 1..65535, got {warehouses}" in one_line(done.stderr)
    assert list(empty.iterdir()) == []


@pytest.mark.parametrize("terminals", ["0", "4096", "4294967296", "18446744073709551615"])
def test_durable_terminals_are_refused_with_their_real_limits(native, tmp_path, terminals):
    done = run(native, "durable-run", "--dir", str(tmp_path), *STACK, "--terminals", terminals, "--transactions", "5")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"--terminals: must be in 1..4095, got {terminals}" in one_line(done.stderr)
    assert list(tmp_path.iterdir()) == []


def test_a_fraction_is_reported_as_given(native):
    done = run(native, "tpcc", "--pool-fraction", "1.0000001", "--transactions", "5")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "pool_fraction: must be in (0, 1], got 1.0000001" in one_line(done.stderr)


# ---------------------------------------------------------------------------
# 3., 4. and 5. Refused before the first write.

@pytest.fixture(scope="module")
def database(native, tmp_path_factory):
    """A database (snapshot, log.1) and the acks of its 40 transactions."""
    folder = tmp_path_factory.mktemp("held")
    db, acks = folder / "db", folder / "acks.txt"
    db.mkdir()
    done = run(native, "durable-run", "--dir", str(db), *STACK, "--terminals", "2", "--transactions", "40",
               "--acks", str(acks))
    assert done.returncode == 0, done.stderr
    assert acks.read_text().count("\n") > 10
    return db, acks


@pytest.fixture
def copy(database, tmp_path):
    db = tmp_path / "db"
    shutil.copytree(database[0], db)
    return db


def test_recover_with_an_acks_file_it_cannot_read_writes_nothing(native, copy):
    before = untouched(copy)
    done = recover(native, copy, ["/nonexistent/a"])
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "acks file '/nonexistent/a'" in one_line(done.stderr)
    assert untouched(copy) == before, "recovered and checkpointed before refusing"


def test_durable_run_with_an_acks_file_it_cannot_open_writes_nothing(native, tmp_path):
    empty = tmp_path / "db"
    empty.mkdir()
    done = run(native, "durable-run", "--dir", str(empty), *STACK, "--acks", "/nonexistent/a", "--transactions", "5")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "acks file '/nonexistent/a'" in one_line(done.stderr)
    assert list(empty.iterdir()) == [], "loaded a database before refusing"


def _bad_acks(acks):
    lines = acks.read_text().splitlines(keepends=True)
    stamp = lines[1].split()[1]  # lines[0] is the run's header
    return {
        # garbage, then a stamp the database does not hold: before issue 42
        # the garbage ended the reading and the missing stamp was never seen
        "garbage": ("".join(lines) + "garbage\nN 999999\n", f"line {len(lines) + 1}: expected 'N STAMP' or 'P STAMP'"),
        "unknown letter": (f"X {stamp}\n", "line 1: expected"),
        "lower case": (f"n {stamp}\n", "line 1: expected"),
        "cut short": ("".join(lines)[:-1], f"line {len(lines)}: cut short"),
    }


@pytest.mark.parametrize("case", ["garbage", "unknown letter", "lower case", "cut short"])
def test_recover_refuses_an_acks_file_it_cannot_read_naming_the_line(native, database, copy, tmp_path, case):
    content, message = _bad_acks(database[1])[case]
    bad = tmp_path / "bad-acks.txt"
    bad.write_text(content)
    before = untouched(copy)
    done = recover(native, copy, [database[1], bad])
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"acks file '{bad}': {message}" in one_line(done.stderr)
    assert untouched(copy) == before


def test_recover_refuses_a_directory_as_an_acks_file(native, copy, tmp_path):
    before = untouched(copy)
    done = recover(native, copy, [tmp_path])
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "is a directory" in one_line(done.stderr)
    assert untouched(copy) == before


def test_recover_counts_every_acknowledgement_of_a_good_file(native, database, copy):
    report = assert_recovered(recover(native, copy, [database[1]]))
    assert report["acknowledged"] == acknowledged(database[1])


def test_recover_creates_a_database_only_when_asked(native, tmp_path):
    empty = tmp_path / "db"
    empty.mkdir()
    done = recover(native, empty, [])
    assert done.returncode == 3, (done.stdout, done.stderr)
    line = one_line(done.stderr)
    assert "holds no database" in line and "--create" in line and str(empty) in line, line
    assert list(empty.iterdir()) == []
    created = run(native, "recover", "--dir", str(empty), *STACK, "--create")
    report = assert_recovered(created)
    assert report["open"]["created"] is True


@pytest.mark.parametrize("where", ["snapshot", "acks.txt", "sub/acks.txt", "link-to-snapshot", "link-to-db/acks"])
def test_durable_run_refuses_an_acks_file_inside_the_database_directory(native, copy, tmp_path, where):
    (copy / "sub").mkdir()
    (tmp_path / "link-to-snapshot").symlink_to(copy / "snapshot")
    (tmp_path / "link-to-db").symlink_to(copy)
    path = copy / where if not where.startswith("link") else tmp_path / where
    before = untouched(copy)
    done = run(native, "durable-run", "--dir", str(copy), *STACK, "--acks", str(path), "--transactions", "5")
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "inside the database directory" in one_line(done.stderr)
    assert untouched(copy) == before, "wrote into the database directory before refusing"
