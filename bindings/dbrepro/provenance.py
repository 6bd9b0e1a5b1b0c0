"""Where, when and with what a run was made; stored in every record.

Each probe is best-effort: a missing tool or file gives "unknown"/None and an
explanation, never an exception, because a run must not fail for the sake of
describing itself.
"""
from __future__ import annotations

import ctypes
import errno
import os
import platform
import shutil
import socket
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

UNKNOWN = "unknown"


def collect() -> dict[str, Any]:
    from . import __version__

    return {
        "timestamp_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "package": {"name": "dbrepro", "version": __version__},
        "git": git_info(),
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "build": build_info(),
        "host": host_info(),
        "hardware_counters": hardware_counters(),
        "valgrind": valgrind_info(),
    }


# ---------------------------------------------------------------------------
# Source and build


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_info() -> dict[str, Any]:
    """Commit and dirty flag of the repository holding this package, else of cwd."""
    for start in (Path(__file__).resolve().parent, Path.cwd()):
        root = _git(["rev-parse", "--show-toplevel"], start)
        if root is None:
            continue
        # A repository without commits yet has no HEAD: commit stays unknown.
        commit = _git(["rev-parse", "--verify", "--quiet", "HEAD"], start) or UNKNOWN
        # Untracked files (results, build folders) do not make the source dirty.
        status = _git(["status", "--porcelain", "--untracked-files=no"], start)
        return {"commit": commit, "dirty": None if status is None else bool(status), "root": root}
    # Inside the pinned image there is no repository: the image records the
    # commit it was built from (env/Dockerfile).
    image_commit = os.environ.get("DBREPRO_SOURCE_COMMIT", "").strip()
    if image_commit and image_commit != UNKNOWN:
        return {"commit": image_commit, "dirty": None, "root": None, "source": "image (DBREPRO_SOURCE_COMMIT)"}
    return {"commit": UNKNOWN, "dirty": None, "root": None}


def build_info() -> dict[str, Any]:
    """Compiler, flags and build type reported by the compiled engine."""
    try:
        from . import _engine
    except ImportError as error:
        return {"error": f"dbrepro._engine not importable: {error}"}
    return dict(_engine.build_info())


# ---------------------------------------------------------------------------
# Machine


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                # x86 says "model name"; some ARM kernels only "Hardware"/"CPU part".
                if key.strip() in ("model name", "Hardware"):
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or UNKNOWN


def host_info() -> dict[str, Any]:
    uname = platform.uname()
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    return {
        "hostname": socket.gethostname(),
        "os": uname.system,
        "kernel": uname.release,
        "kernel_version": uname.version,
        "machine": uname.machine,
        "cpu_model": cpu_model(),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": usable,
    }


# ---------------------------------------------------------------------------
# Instruction counting: hardware counters if the CPU exposes them, else callgrind

# perf_event_open has no libc wrapper; its number differs per architecture.
_SYS_PERF_EVENT_OPEN = {"x86_64": 298, "amd64": 298, "aarch64": 241, "arm64": 241, "i386": 336, "i686": 336}
_PERF_TYPE_HARDWARE = 0
_PERF_COUNT_HW_INSTRUCTIONS = 1
_FLAG_DISABLED = 1 << 0
_FLAG_EXCLUDE_KERNEL = 1 << 5
_FLAG_EXCLUDE_HV = 1 << 6


class _PerfEventAttr(ctypes.Structure):
    # The leading fields of struct perf_event_attr (PERF_ATTR_SIZE_VER1, 72
    # bytes); the kernel accepts an older, shorter size.
    _fields_ = [
        ("type", ctypes.c_uint32),
        ("size", ctypes.c_uint32),
        ("config", ctypes.c_uint64),
        ("sample_period", ctypes.c_uint64),
        ("sample_type", ctypes.c_uint64),
        ("read_format", ctypes.c_uint64),
        ("flags", ctypes.c_uint64),
        ("wakeup_events", ctypes.c_uint32),
        ("bp_type", ctypes.c_uint32),
        ("config1", ctypes.c_uint64),
        ("config2", ctypes.c_uint64),
    ]


def _errno_text(code: int) -> str:
    return f"{errno.errorcode.get(code, f'E{code}')}: {os.strerror(code)}"


def perf_event_instructions() -> tuple[bool, str | None]:
    """Try to open a user-space instruction counter for this process."""
    number = _SYS_PERF_EVENT_OPEN.get(platform.machine().lower())
    if number is None or sys.platform != "linux":
        return False, f"perf_event_open not supported on {sys.platform}/{platform.machine()}"
    attr = _PerfEventAttr()
    attr.type = _PERF_TYPE_HARDWARE
    attr.size = ctypes.sizeof(_PerfEventAttr)
    attr.config = _PERF_COUNT_HW_INSTRUCTIONS
    attr.flags = _FLAG_DISABLED | _FLAG_EXCLUDE_KERNEL | _FLAG_EXCLUDE_HV
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    # pid 0 = this process, cpu -1 = any, group_fd -1 = no group, flags 0.
    fd = libc.syscall(
        ctypes.c_long(number), ctypes.byref(attr), ctypes.c_int(0), ctypes.c_int(-1),
        ctypes.c_int(-1), ctypes.c_ulong(0),
    )
    if fd < 0:
        return False, _errno_text(ctypes.get_errno())
    os.close(fd)
    return True, None


def valgrind_info() -> dict[str, Any]:
    path = shutil.which("valgrind")
    if path is None:
        return {"available": False, "version": None, "path": None}
    try:
        done = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10, check=False)
        version = done.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        version = None
    return {"available": True, "version": version, "path": path}


def hardware_counters() -> dict[str, Any]:
    """Which instruction-count backend experiments can use here, and why."""
    available, error = perf_event_instructions()
    if available:
        backend = "perf_event"
    elif shutil.which("valgrind"):
        backend = "callgrind"
    else:
        backend = None
    return {"available": available, "backend": backend, "error": error}
