"""Reading and writing raw-run records (JSON files).

Writes are atomic: a crash or Ctrl-C leaves either the old file or the new
one, never half a record that a later step would trust.
"""
from __future__ import annotations

import errno
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any, Iterable

from .result import RecordError, RunResult, check_record_shape

PathLike = str | os.PathLike


def not_a_regular_file(path: PathLike) -> str:
    """'' if `path` is missing or a regular file, else what it is ('a character device', ...)."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return ""
    kinds = ((stat.S_ISREG, ""), (stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"))
    return next((kind for test, kind in kinds if test(mode)), "not a regular file")


def write_record(record: dict[str, Any] | RunResult, path: PathLike) -> Path:
    """Write `record` as JSON to `path` atomically; returns the path.

    A symlink is written through (the file it points to is replaced, the link
    stays); a path that is a device, pipe, socket or folder is refused
    (IsADirectoryError / OSError naming it), never replaced.
    """
    if isinstance(record, RunResult):
        record = record.to_dict()
    check_record_shape(record)
    return write_json_atomic(record, path)


def write_json_atomic(value: Any, path: PathLike) -> Path:
    """Write `value` as JSON to `path` atomically (temporary file, fsync,
    rename); symlinks written through, non-regular files refused."""
    # allow_nan=False: NaN/Infinity are not JSON and other tools reject them.
    text = json.dumps(value, indent=2, sort_keys=False, allow_nan=False) + "\n"

    given = Path(path)
    path = Path(os.path.realpath(given))
    kind = not_a_regular_file(path)
    if kind:
        raise OSError(errno.EINVAL, f"{given} is {kind}, not a regular file")
    path.parent.mkdir(parents=True, exist_ok=True)
    # The temporary file lives in the target folder so os.replace is a rename
    # on one file system (atomic), not a copy.
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as tmp:
            tmp.write(text)
            tmp.flush()
            os.fsync(tmp.fileno())
        os.chmod(tmp_name, 0o644)  # mkstemp makes it 0600
        os.replace(tmp_name, path)
    except BaseException:  # includes KeyboardInterrupt: leave nothing behind
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(path.parent)
    return given


def _fsync_directory(directory: Path) -> None:
    # Makes the rename itself durable; not possible on every platform.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def read_record(path: PathLike) -> dict[str, Any]:
    """Load and check one record; RecordError names the file and the problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise RecordError(f"{path}: not a dbrepro record (not UTF-8 text: {error.reason})") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(
            f"{path}: not a dbrepro record (invalid JSON at line {error.lineno} column {error.colno}: {error.msg})"
        ) from None
    try:
        check_record_shape(record)
    except RecordError as error:
        raise RecordError(f"{path}: not a dbrepro record ({error})") from None
    return record


def load_result(path: PathLike) -> RunResult:
    return RunResult.from_dict(read_record(path))


def load_runs(paths: Iterable[PathLike]):
    """One tidy DataFrame of many records, with a `source` column (the file)."""
    import pandas as pd  # heavy; only needed here

    frames = []
    for path in paths:
        frame = load_result(path).to_frame()
        frame.insert(0, "source", str(path))
        frames.append(frame)
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)
