"""The engine's registries: the stacks a TPC-C run can pick, the page
replacement policies and the settings of a run, read from the compiled engine
(`engine/src/driver/tpcc/stack_registry.hpp`, `engine/src/cache/policies.hpp`,
`engine/src/driver/tpcc/fields.hpp`).

The Python API, the CLI's choices, the workflow's config check and the
Snakefile all read these; no other file spells the lists out.

    >>> from dbrepro import registry
    >>> registry.stack_names()[:3]
    ('bare', 'step0', 'step1')
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any


def engine():
    """The compiled module, or an ImportError that says how to build it."""
    try:
        from . import _engine
    except ImportError as error:
        raise ImportError(
            "dbrepro._engine (the compiled engine) is not built or not importable; "
            "install the package with `pip install --no-build-isolation -e .` "
            f"({error})"
        ) from error
    return _engine


@lru_cache(maxsize=None)
def stacks() -> tuple[dict[str, Any], ...]:
    """One dict per stack: name, step, concurrent, disk, metered, study, summary."""
    return tuple(dict(row) for row in engine().stacks())


def stack_names() -> tuple[str, ...]:
    return tuple(row["name"] for row in stacks())


def concurrent_stacks() -> tuple[str, ...]:
    """Stacks that run more than one terminal (locking, latching and the main log)."""
    return tuple(row["name"] for row in stacks() if row["concurrent"])


def ladder_stack(step: int) -> str:
    """The stack of E1's ladder step (0..11; 11 is the optimal kernel)."""
    for row in stacks():
        if row["step"] == step:
            return row["name"]
    raise ValueError(f"step: no ladder stack for step {step}")


@lru_cache(maxsize=None)
def policies() -> tuple[str, ...]:
    """The page replacement policies of the one page cache, in the engine's order."""
    return tuple(engine().policies())


@lru_cache(maxsize=None)
def run_config_fields() -> tuple[dict[str, Any], ...]:
    """The settings of a TPC-C run (engine/src/driver/tpcc/fields.hpp):
    name, type, default, help; `_engine.run_tpcc` takes them by name."""
    return tuple(dict(row) for row in engine().run_config_fields())


@lru_cache(maxsize=None)
def key_cache_modes() -> tuple[str, ...]:
    """How E2's clients reach the key cache (engine/src/driver/key_cache/run.hpp), the default first:
    client_server (a client process, a server thread per connection), client_server_in_process, direct."""
    return tuple(engine().key_cache_modes())


def run_parameters() -> tuple[str, ...]:
    return tuple(row["name"] for row in run_config_fields())
