"""Shared fixtures. The tests use the real compiled engine (dbrepro._engine):
build it first (`pip install --no-build-isolation -e .`)."""
from __future__ import annotations

import os
import subprocess
import sys
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
    """Tests marked `soak` run only when asked for: `pytest -m soak`."""
    if "soak" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="a long soak: run with -m soak")
    for item in items:
        if "soak" in item.keywords:
            item.add_marker(skip)
