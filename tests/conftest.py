"""Shared fixtures. The tests use the real compiled engine (dbrepro._engine):
build it first (`pip install --no-build-isolation -e .`).

The suite runs in parallel (pytest-xdist, `make test-python`: `-n auto`).
What several tests read is made once per session, across workers:
`run_once` (a file lock; the first worker to ask makes it, the others wait
and reuse its folder). The smoke workflow (`smoke_run`) runs once for every
end-to-end test; tests that set the real kernel RR timeslice hold
`kernel_timeslice` so that no two of them overlap."""
from __future__ import annotations

import contextlib
import fcntl
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Small enough to keep the suite fast, large enough to exercise both
# transaction types and the consistency checks.
SMALL_RUN = {"warehouses": 1, "transactions": 500, "seed": 7}


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def small_config() -> dict:
    return dict(SMALL_RUN)


@pytest.fixture(scope="session")
def small_run():
    """One small TPC-C run, shared by the tests that only read its result."""
    from dbrepro import tpcc

    calls = []

    def progress(done, total):
        calls.append((done, total))
        return True

    result = tpcc.run(**SMALL_RUN, progress=progress, progress_every=100)
    result.progress_calls = calls  # for test_api
    return result


def run_python(*args: str, cwd: Path | None = None, timeout: float = 300, env_extra=None):
    """Run `python ARGS...` with this interpreter; returns CompletedProcess (text)."""
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )


@pytest.fixture(scope="session")
def python():
    return run_python


def pytest_collection_modifyitems(config, items):
    """Tests marked `soak` run only when asked for: `pytest -m soak`.
    The tests that read the shared smoke run, and those that set the real RR
    timeslice (which the smoke run holds while it runs), go first as one
    xdist group (`--dist loadgroup`): one worker runs the workflow and then
    them, while the others run the rest of the suite instead of waiting."""
    grouped = {"smoke_run", "kernel_timeslice"}
    first = [item for item in items if grouped & set(getattr(item, "fixturenames", ()))]
    for item in first:
        item.add_marker(pytest.mark.xdist_group("smoke_run"))
    chosen = {id(item) for item in first}
    items[:] = first + [item for item in items if id(item) not in chosen]
    if "soak" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="a long soak: run with -m soak")
    for item in items:
        if "soak" in item.keywords:
            item.add_marker(skip)


# ---------------------------------------------------------------------------
# Made once per session, shared by xdist's workers.


def shared_root(tmp_path_factory) -> Path:
    """The session's temporary folder that every xdist worker sees (each
    worker's own base folder lies inside it); without xdist, the base folder."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@contextlib.contextmanager
def file_lock(path: Path):
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run_once(tmp_path_factory, name: str, produce) -> tuple[Path, object]:
    """`produce(folder)` once per session for all workers; returns the folder
    and what produce returned (JSON-able; kept beside the folder, so a failed
    run is reported to every test that needs it, not run again)."""
    root = shared_root(tmp_path_factory)
    folder, made = root / name, root / f"{name}.json"
    with file_lock(root / f"{name}.lock"):
        if not made.exists():
            folder.mkdir(exist_ok=True)
            made.write_text(json.dumps(produce(folder)))
    return folder, json.loads(made.read_text())


@pytest.fixture(scope="session")
def kernel_timeslice_lock(tmp_path_factory):
    """A context manager held while the real kernel.sched_rr_timeslice_ms may be
    set (E4's os_rr runs): xdist's workers then never change it at once, and a
    test that reads it before and after sees only its own changes."""
    return lambda: file_lock(shared_root(tmp_path_factory) / "kernel-timeslice.lock")


@pytest.fixture
def kernel_timeslice(kernel_timeslice_lock):
    with kernel_timeslice_lock():
        yield


# Not root: E4's SCHED_RR runs cannot set the kernel's timeslice; the smoke run
# uses the schedulers that need no privilege.
SMOKE_UNPRIVILEGED = [] if os.geteuid() == 0 else ["--config", "quantum={'schedulers': ['engine', 'os_fair']}"]


@dataclass
class SmokeRun:
    """The smoke profile run once by Snakemake (every study, the summary)."""
    workdir: Path
    returncode: int
    output: str              # the tail of snakemake's stdout and stderr
    timeslice_before: int | None  # the kernel's RR timeslice before the run (None: no such file)

    @property
    def results(self) -> Path:
        return self.workdir / "results"


@pytest.fixture(scope="session")
def smoke_run(tmp_path_factory, kernel_timeslice_lock) -> SmokeRun:
    """The whole smoke profile, run once per session for every end-to-end test
    (the tests check its outputs; none writes into its folder)."""
    def produce(folder):
        from dbrepro import quantum

        with kernel_timeslice_lock():
            before = quantum.read_timeslice() if os.path.exists(quantum.TIMESLICE_PATH) else None
            done = run_python("-m", "snakemake", "-s", str(REPO / "Snakefile"), "--directory", str(folder),
                              "--cores", "2", "--resources", "timed=1",
                              "--configfile", str(REPO / "config" / "profiles" / "smoke.yaml"),
                              *SMOKE_UNPRIVILEGED, timeout=1800)
        return {"returncode": done.returncode, "output": (done.stdout + done.stderr)[-20000:],
                "timeslice_before": before}

    folder, made = run_once(tmp_path_factory, "smoke_run", produce)
    return SmokeRun(folder, **made)
