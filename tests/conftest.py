"""Shared fixtures. The tests use the real compiled engine (dbrepro._engine):
build it first (`pip install --no-build-isolation -e .`).

The suite runs in parallel (pytest-xdist, `make test-python`: `-n N
--dist loadscope`). What several tests read is made once per session, across
workers (tests/shared_runs.py): the smoke workflow (`smoke_run`) starts in
the background as soon as a test that needs it is collected, and those tests
run last; `tpcc_results` and `run_once` the same way under a file lock. Tests
that set the real kernel RR timeslice hold `kernel_timeslice`."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import shared_runs

REPO = Path(__file__).resolve().parents[1]

# Small enough to keep the suite fast, large enough to exercise both
# transaction types and the consistency checks.
SMALL_RUN = {"warehouses": 1, "transactions": 500, "seed": 7}


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def vd():
    """The verdict package, dbrepro.verdicts."""
    from dbrepro import verdicts

    return verdicts


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


# ---------------------------------------------------------------------------
# Made once per session, shared by xdist's workers (tests/shared_runs.py).


@pytest.fixture(scope="session")
def shared_root(request) -> Path:
    return shared_runs.shared_root(request.config)


@dataclass
class DryRun:
    """A `snakemake -n` of this repository's Snakefile, run once per session."""
    returncode: int
    output: str  # stdout and stderr together


@pytest.fixture(scope="session")
def dry_run(shared_root):
    """`dry_run(*args)`: Snakemake's dry run with these arguments, made once per
    session for every worker (each one parses the whole workflow, a few seconds
    of CPU: tests that ask for the same dry run read one), in an empty folder."""
    from workflow_helpers import snakemake

    def run(*args: str) -> DryRun:
        key = hashlib.sha1("\0".join(args).encode()).hexdigest()[:16]

        def produce(folder: Path) -> dict:
            done = snakemake(run_python, REPO, folder, *args)
            return {"returncode": done.returncode, "output": done.stdout + done.stderr}

        return DryRun(**shared_runs.run_once(shared_root, f"dry-run-{key}", produce)[1])

    return run


@pytest.fixture
def kernel_timeslice(shared_root):
    """Held while a test may set the real kernel RR timeslice: xdist's workers
    never change it at once, and the smoke run (which holds it) is not disturbed."""
    with shared_runs.kernel_timeslice_lock(shared_root):
        yield


@pytest.fixture
def cpus_without_realtime_sessions(shared_root):
    """Held while a test's assertion needs the CPUs' time: as root the smoke run runs E4's SCHED_RR
    and SCHED_FIFO sessions, which leave every ordinary process 5% of a CPU while they run
    (a busy process beside them got 0.05 CPU-s of a 0.6 s window). Waits for the smoke run, which
    holds the same lock as `kernel_timeslice`."""
    with shared_runs.kernel_timeslice_lock(shared_root):
        yield


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
def smoke_run(shared_root) -> SmokeRun:
    """The whole smoke profile, run once per session in the background for every
    end-to-end test (they check its outputs; none writes into its folder)."""
    shared_runs.start_smoke_run(shared_root, REPO)  # started at collection already, normally
    return SmokeRun(shared_root / shared_runs.SMOKE, **shared_runs.wait_for_smoke_run(shared_root))


# The tests that read the smoke run, or set the real RR timeslice (which the
# smoke run holds), or need the CPUs free of its real-time sessions, run last:
# one scheduling unit at the end of the queue.
LAST = {"smoke_run", "kernel_timeslice", "cpus_without_realtime_sessions"}
_background = []  # the smoke run this process started


def _runs_last(item) -> bool:
    return bool(LAST & set(getattr(item, "fixturenames", ())))


@pytest.hookimpl(trylast=True)  # after -m and -k have deselected
def pytest_collection_modifyitems(config, items):
    """Tests marked `soak` run only when asked for: `pytest -m soak`. The smoke
    run starts now, in the background, if a selected test needs it."""
    last = [item for item in items if _runs_last(item)]
    chosen = {id(item) for item in last}
    items[:] = [item for item in items if id(item) not in chosen] + last
    root = shared_runs.shared_root(config)
    if os.environ.get("PYTEST_XDIST_WORKER"):  # for the controller's scheduler
        shared_runs.write_json_atomic(root / f"last-{os.environ['PYTEST_XDIST_WORKER']}.json",
                                      [item.nodeid for item in last])
    if any("smoke_run" in item.fixturenames for item in last) and not config.getoption("collectonly"):
        started = shared_runs.start_smoke_run(root, REPO)
        if started is not None:
            _background.append(started)
    if "soak" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="a long soak: run with -m soak")
    for item in items:
        if "soak" in item.keywords:
            item.add_marker(skip)


def pytest_sessionfinish(session, exitstatus):
    # Interrupted or stopped early (Ctrl-C, -x): the smoke run is stopped, and
    # a test still waiting for it is told why.
    if _background and (exitstatus == pytest.ExitCode.INTERRUPTED or session.shouldstop):
        for process in _background:
            shared_runs.stop_smoke_run(shared_runs.shared_root(session.config), process)
        _background.clear()


def pytest_unconfigure(config):
    # The session ends after its smoke run: never an orphan still writing.
    for process in _background:
        try:
            process.wait(timeout=1800)
        except (subprocess.TimeoutExpired, KeyboardInterrupt):
            shared_runs.stop_smoke_run(shared_runs.shared_root(config), process)


@pytest.hookimpl(optionalhook=True)  # xdist's hook: `-p no:xdist` runs the suite in one process
def pytest_xdist_make_scheduler(config, log):
    """--dist loadscope, with the run-last tests as one unit at the end (xdist's
    own groups, loadgroup, do not work with pytest 9: it renames node ids)."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    root = config._tmp_path_factory.getbasetemp()

    class RunLastScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            if not hasattr(self, "_last"):
                self._last = set()
                for path in root.glob("last-*.json"):
                    self._last.update(json.loads(path.read_text()))
            return "run-last" if nodeid in self._last else super()._split_scope(nodeid)

        def _assign_work_unit(self, node):
            # xdist queues the units by their number of tests (--loadscope-reorder, its
            # default), which put the run-last unit early: its worker then waited about
            # 110 s for the smoke run while the other one held the rest of the suite.
            if "run-last" in self.workqueue:
                self.workqueue.move_to_end("run-last")
            super()._assign_work_unit(node)

    return RunLastScheduling(config, log)
