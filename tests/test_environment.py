"""The pinned environment (issue 54, item 3): `make repro` and `make test` install
env/requirements.lock with its hashes, so the interpreter running the tests has every package of
the lock at the lock's version."""
from __future__ import annotations

import importlib.metadata
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LOCK = REPO / "env" / "requirements.lock"
PIN = re.compile(r"^([A-Za-z0-9_.-]+)==([^\s\\]+)", re.M)


def skip_outside_the_project_venv() -> None:
    if Path(sys.prefix).resolve() != (REPO / ".venv").resolve():
        pytest.skip("not the project's .venv: the lock is what `make setup` installs there")


def pins() -> dict[str, str]:
    return dict(PIN.findall(LOCK.read_text(encoding="utf-8")))


def test_every_package_of_the_lock_is_installed_at_its_version():
    skip_outside_the_project_venv()
    wrong = {}
    for name, version in pins().items():
        try:
            found = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found = None
        if found != version:
            wrong[name] = (version, found)
    assert not wrong, f"the .venv differs from env/requirements.lock (locked, installed): {wrong}"


def hashed_blocks(lock: Path) -> list[str]:
    """The lock's pins, one block each, every one with its hashes (asserted)."""
    blocks = [block for block in re.split(r"\n(?=[A-Za-z0-9_.-]+==)", lock.read_text(encoding="utf-8").strip())
              if PIN.match(block)]
    for block in blocks:
        assert "--hash=sha256:" in block, block.splitlines()[0]
    return blocks


def test_the_lock_pins_every_file_by_hash_and_the_makefile_installs_it():
    assert len(hashed_blocks(LOCK)) == len(pins()) > 50
    # The installer, uv, is pinned by hash too, and pip installs it with its hashes first.
    assert [block.split("==")[0] for block in hashed_blocks(LOCK.with_name("bootstrap.lock"))] == ["uv"]
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "pip install --quiet --require-hashes --no-deps -r env/bootstrap.lock" in makefile
    assert "--require-hashes --no-deps -r env/requirements.lock" in makefile
    assert '-e ".[dev]"' not in makefile  # lower bounds only: never the default path again


def test_the_locked_packages_are_compiled_to_bytecode_ahead():
    """make setup compiles the lock's packages when it installs them: where bytecode is not written
    (PYTHONDONTWRITEBYTECODE), every process would otherwise compile them again at import."""
    skip_outside_the_project_venv()
    import importlib.util

    import pandas
    import snakemake

    for module in (pandas, snakemake):
        assert Path(importlib.util.cache_from_source(module.__file__)).is_file(), module.__name__
