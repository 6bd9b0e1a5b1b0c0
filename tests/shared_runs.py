"""Runs that many tests read, made once per session for every xdist worker.

The session's shared folder (`root`) is the base temporary folder that every
worker's own lies inside. `run_once` makes something there under a file lock
(the first process to ask makes it, the others wait and reuse it). The smoke
workflow is started in the background as soon as a process collects a test
that needs it (`start_smoke_run`), so that it runs beside the rest of the
suite; `wait_for_smoke_run` waits for its result file.

Run as a script (`python shared_runs.py ROOT REPO`), this is that background
run: the smoke profile by Snakemake in ROOT/smoke_run, its exit status and
output's tail written atomically to ROOT/smoke_run.json.
"""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SMOKE = "smoke_run"


def shared_root(config) -> Path:
    """The session's folder that every xdist worker sees (without xdist, the base folder)."""
    base = config._tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def file_lock(path: Path):
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def write_json_atomic(path: Path, value) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(value))
    os.replace(tmp, path)


def run_once(root: Path, name: str, produce):
    """`produce(folder)` once per session for all workers; returns the folder
    and what produce returned (JSON-able; kept beside the folder, so a failed
    run is reported to every test that needs it, not run again)."""
    folder, made = root / name, root / f"{name}.json"
    with file_lock(root / f"{name}.lock"):
        if not made.exists():
            folder.mkdir(exist_ok=True)
            write_json_atomic(made, produce(folder))
    return folder, json.loads(made.read_text())


def kernel_timeslice_lock(root: Path):
    """Held while the real kernel.sched_rr_timeslice_ms may be set (E4's os_rr runs)."""
    return file_lock(root / "kernel-timeslice.lock")


def start_smoke_run(root: Path, repo: Path):
    """Starts the background smoke run unless a process of this session did;
    returns its Popen (None if another process started it)."""
    with file_lock(root / f"{SMOKE}.lock"):
        started = root / f"{SMOKE}.started"
        if started.exists():
            return None
        started.touch()
        # A session of its own: stopped early, it goes with Snakemake and its jobs (stop_smoke_run).
        return subprocess.Popen([sys.executable, __file__, str(root), str(repo)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)


def stop_smoke_run(root: Path, process) -> None:
    """Kills the background run with everything it started; a test still
    waiting for it is told why."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    made = root / f"{SMOKE}.json"
    if not made.exists():
        write_json_atomic(made, {"returncode": -1, "output": "the session stopped before the smoke run ended",
                                 "timeslice_before": None})


def wait_for_smoke_run(root: Path, timeout: float = 1800) -> dict:
    made = root / f"{SMOKE}.json"
    deadline = time.monotonic() + timeout
    while not made.exists():
        if time.monotonic() > deadline:
            raise TimeoutError(f"the smoke run in {root / SMOKE} did not finish within {timeout} s")
        time.sleep(0.5)
    return json.loads(made.read_text())


def smoke_arguments(repo: Path) -> list[str]:
    """Snakemake's options of the smoke run (after its targets: --configfile takes every word after it);
    a later run in a copy of its folder gives the same, so nothing reruns for a changed setting."""
    # Not root: E4's SCHED_RR runs cannot set the kernel's timeslice; the smoke
    # run uses the schedulers that need no privilege.
    unprivileged = [] if os.geteuid() == 0 else ["--config", "quantum={'schedulers': ['engine', 'os_fair']}"]
    return ["--cores", "2", "--resources", "timed=1", "--configfile", str(repo / "config" / "smoke.yaml"),
            *unprivileged]


def _smoke_run(root: Path, repo: Path) -> dict:
    from dbrepro import quantum

    folder = root / SMOKE
    folder.mkdir(exist_ok=True)
    with kernel_timeslice_lock(root):
        before = quantum.read_timeslice() if os.path.exists(quantum.TIMESLICE_PATH) else None
        try:
            done = subprocess.run(
                [sys.executable, "-m", "snakemake", "-s", str(repo / "Snakefile"), "--directory", str(folder),
                 *smoke_arguments(repo)],
                capture_output=True, text=True, timeout=1800)
            returncode, output = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired as expired:
            returncode, output = -1, f"snakemake ran past 1800 s: {expired}"
    return {"returncode": returncode, "output": output[-20000:], "timeslice_before": before}


if __name__ == "__main__":
    root = Path(sys.argv[1])
    try:
        result = _smoke_run(root, Path(sys.argv[2]))
    except Exception as error:  # every waiting test reports it
        result = {"returncode": -1, "output": f"the smoke run failed to start: {error!r}", "timeslice_before": None}
    write_json_atomic(root / f"{SMOKE}.json", result)
