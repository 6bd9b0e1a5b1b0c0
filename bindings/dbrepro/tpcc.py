"""Run TPC-C New Order / Payment on the dbrepro engine from Python.

    >>> from dbrepro import tpcc
    >>> result = tpcc.run(warehouses=1, transactions=2000)
    >>> result.to_frame()

The settings are the engine's (engine/src/driver/tpcc/fields.cpp:
name, type, unit, range, default, help; `registry.run_config_fields()`), and
the engine checks them once, before a database is loaded; a bad one is a
ConfigError naming it.
"""
from __future__ import annotations

import math
import resource
import sys
import time
from typing import Any, Callable, Mapping

from . import host_load, provenance, registry
from .result import RunResult

KIND = "tpcc"
TXN_TYPES = ("new_order", "payment", "order_status", "delivery", "stock_level")
VARIANTS = ("paper", "spec")
KEY_COMPARES = ("auto", "generic", "integer")
# STACKS, CACHE_POLICIES and CONCURRENT_STACKS come from the engine's
# registries (dbrepro.registry), read on first use (module __getattr__ below).
# E5, stack "disk": trace formats.
TRACE_FORMATS = ("txt", "csv", "oracle_general")  # engine/src/cache/trace_file.hpp
METERS = ("none", "perf")
DEFAULT_MIX = {"new_order": 0.5, "payment": 0.5}
# Limits the engine enforces too (engine/src/driver/tpcc/run_config.cpp).
WAREHOUSES_MAX = 65535
PAGE_SIZE_MIN, PAGE_SIZE_MAX = 1024, 65536
# The bindings take every integer as a signed 64-bit value: larger ones are
# refused here with a line naming the parameter, not a pybind11 TypeError.
_ENGINE_INT_MAX = (1 << 63) - 1

ProgressFn = Callable[[int, int], bool | None]

_REGISTRY_LISTS = {
    "STACKS": registry.stack_names,  # bare; step0..step10, E1's ladder; optimal; disk (E5)
    "CACHE_POLICIES": registry.policies,  # E5, stack "disk"
    "CONCURRENT_STACKS": registry.concurrent_stacks,  # locking, latching and the main log
    "PARAMETERS": registry.run_parameters,  # the engine's settings of a run, in its order
}


def __getattr__(name: str) -> Any:
    if name in _REGISTRY_LISTS:
        return _REGISTRY_LISTS[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ConfigError(ValueError):
    """A bad configuration value; `parameter` is the offending name."""

    def __init__(self, parameter: str, message: str):
        super().__init__(f"{parameter}: {message}")
        self.parameter = parameter
        self.reason = message


# ---------------------------------------------------------------------------
# Validation


def _integer(name: str, value: Any, *, minimum: int, maximum: int | None = None) -> int:
    """An int in minimum..maximum (maximum None: the bindings' 64-bit limit)."""
    maximum = _ENGINE_INT_MAX if maximum is None else maximum
    allowed = f"an integer in {minimum}..{maximum}"
    # bool is an int subclass; True warehouses is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(name, f"must be {allowed}, got {value!r}")
    if value < minimum or value > maximum:
        raise ConfigError(name, f"must be {allowed}, got {value}")
    return value


def engine_config_error(error: ValueError, names) -> ValueError:
    """The engine's "name: reason" as a ConfigError naming the setting, where
    `name` is one of `names` (a settings table's); any other error unchanged."""
    name, _, reason = str(error).partition(": ")
    if reason and name in set(names):
        return ConfigError(name, reason)
    return error


def validate_config(**settings: Any) -> dict[str, Any]:
    """The engine's keyword arguments: every setting of a run (named as
    run_config_fields() lists them), checked by the engine as a run checks
    them (engine/src/driver/tpcc/run_config.cpp), defaults filled in; raises
    ConfigError naming the first bad one. The mix keeps every transaction
    type, weight 0 where omitted."""
    try:
        config = dict(_engine().run_config(**settings))
    except (ValueError, TypeError) as error:
        raise engine_config_error(error, registry.run_parameters()) from None
    config["mix"] = {txn_type: float(config["mix"].get(txn_type, 0.0)) for txn_type in TXN_TYPES}
    return config


# ---------------------------------------------------------------------------
# Progress on stderr


class ProgressLine:
    """A one-line progress display on stderr, redrawn at most every `interval` s."""

    def __init__(self, label: str, stream=None, interval: float = 0.25):
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.started = time.monotonic()
        self.last_drawn = -math.inf
        self.latest: tuple[int, int] | None = None  # (done, total) of the last tick
        self.shown: tuple[int, int] | None = None  # what the line shows now

    def __call__(self, done: int, total: int) -> bool:
        self.latest = (done, total)
        now = time.monotonic()
        if now - self.last_drawn >= self.interval:
            self.last_drawn = now
            self._draw()
        return True  # never stops the run

    def _draw(self) -> None:
        done, total = self.latest
        amount = f"{done}/{total} txns ({100.0 * done / total:.0f}%)" if total else f"{done} txns"
        elapsed = time.monotonic() - self.started
        self.stream.write(f"\r{self.label}: {amount}, {elapsed:.1f} s")
        self.stream.flush()
        self.shown = self.latest

    def close(self) -> None:
        """Show the final count and end the line."""
        if self.latest is None:
            return
        if self.shown != self.latest:
            self._draw()
        self.stream.write("\n")
        self.stream.flush()


def _progress_callback(progress: bool | ProgressFn | None, label: str) -> tuple[ProgressFn | None, ProgressLine | None]:
    if progress is None:
        progress = sys.stderr.isatty()
    if progress is True:
        line = ProgressLine(label)
        return line, line
    if progress is False:
        return None, None
    if callable(progress):
        # Only an explicit False stops the run: a callback that returns
        # nothing (None) must not end it after the first tick.
        return (lambda done, total: progress(done, total) is not False), None
    raise ConfigError("progress", f"must be True, False, None or a callable(done, total), got {progress!r}")


# ---------------------------------------------------------------------------
# The run


def _engine():
    return registry.engine()


def _process_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(
    *,
    progress: bool | ProgressFn | None = None,
    max_foreign_cores: float | None = None,
    max_reruns: int | None = None,
    **settings: Any,
) -> RunResult:
    """Load a TPC-C database and run the transaction mix on it.

    settings        the engine's run settings, by name: warehouses,
                    transactions, mix, variant, seed, stack, terminals, E5's
                    cache_policy and pool_fraction, ... Each one's type, unit,
                    range, default and meaning are in the engine's settings
                    table (engine/src/driver/tpcc/fields.cpp), which
                    `registry.run_config_fields()` and `dbrepro list` print;
                    those omitted keep their defaults. The engine checks them
                    all before any work (ConfigError names the first bad one).
                    The stacks are E1's removal ladder ("step0".."step10",
                    "optimal"), "bare" (storage only) and E5's "disk".
    progress        True: progress line on stderr; False: none; a callable
                    progress(done, total) -> bool (False stops the run);
                    None (default): a progress line if stderr is a terminal.
    max_foreign_cores, max_reruns  foreign load (dbrepro.host_load): a run
                    whose foreign CPU plus steal, in cores over the call,
                    exceeds max_foreign_cores is run again at once, at most
                    max_reruns times (default 2); the last is kept, marked
                    `disturbed` if still over. Not given: from
                    $DBREPRO_MAX_FOREIGN_CORES / $DBREPRO_MAX_RERUNS, else
                    measured only. The workflow gives
                    workflows/claims/foreign_load.yaml's values.

    Returns a RunResult; `.to_dict()` is the raw-run record, `.to_frame()` a
    table with one row per transaction type.
    """
    from .duet import StartGate

    config = validate_config(**settings)
    guard = guard_settings(max_foreign_cores, max_reruns)
    callback, progress_line = _progress_callback(progress, f"tpcc {config['variant']} w={config['warehouses']}")
    gate = StartGate.from_environment()  # an arm of a duet (dbrepro.duet): wait for the other at the warm-up's end
    if gate is not None:
        callback = gate.wrap(callback)
    engine = _engine()

    def engine_run() -> Mapping[str, Any]:
        try:
            return engine.run_tpcc(**config, progress=callback)
        finally:
            if progress_line is not None:
                progress_line.close()

    result = measured(engine_run, **guard)
    if gate is not None:
        result.metrics["host"]["start_gate_unix"] = round(gate.passed_unix, 4) if gate.passed_unix else None
    return result


def guard_settings(max_foreign_cores: float | None = None, max_reruns: int | None = None) -> dict[str, Any]:
    """The foreign-load thresholds in effect (dbrepro.host_load.settings:
    the arguments, else the environment), checked; ConfigError names a bad one."""
    try:
        max_foreign_cores, max_reruns = host_load.settings(max_foreign_cores, max_reruns)
    except ValueError as error:
        name, _, reason = str(error).partition(": ")
        name = {host_load.MAX_FOREIGN_ENV: "max_foreign_cores", host_load.MAX_RERUNS_ENV: "max_reruns"}.get(name, name)
        raise ConfigError(name, reason) from None
    return {"max_foreign_cores": max_foreign_cores, "max_reruns": max_reruns}


def measured(
    engine_run: Callable[[], Mapping[str, Any]],
    *,
    max_foreign_cores: float | None = None,
    max_reruns: int | None = None,
    guarded: bool = True,
) -> RunResult:
    """The RunResult of an engine call that returns a run's dict (run_tpcc,
    E5's LoadedDisk.run_cell): the provenance taken before it, the host's
    wall time, CPU time and load average around it, and the foreign load over
    it (host_load.run_guarded: the call is repeated while disturbed; the
    record's `host` has the five fields and `foreign_load`, every attempt's
    figures). guarded=False: no foreign load here (a caller that meters and
    reruns the call itself, as E5's forked cells)."""
    run_provenance = provenance.collect()  # before the run: it spawns git/valgrind
    if not guarded:
        raw, host_metrics = _timed(engine_run)
        return from_engine_dict(raw, host_metrics=host_metrics, run_provenance=run_provenance)
    kept = host_load.run_guarded(lambda: _timed(engine_run), max_foreign_cores=max_foreign_cores,
                                 max_reruns=max_reruns)
    raw, host_metrics = kept.value
    host_metrics.update(kept.cell_fields())
    return from_engine_dict(raw, host_metrics=host_metrics, run_provenance=run_provenance)


def _timed(engine_run: Callable[[], Mapping[str, Any]]) -> tuple[Mapping[str, Any], dict[str, Any]]:
    """The engine call's dict, and the host's wall time, CPU time and load average around it."""
    loadavg_before = host_load.loadavg()
    cpu_before = _process_cpu_seconds()
    started_unix = time.time()
    wall_before = time.perf_counter()
    raw = engine_run()
    wall_seconds = time.perf_counter() - wall_before
    ended_unix = time.time()
    process_cpu_seconds = _process_cpu_seconds() - cpu_before
    loadavg_after = host_load.loadavg()

    host_metrics = {
        # Whole call as seen from Python (a run: load + run + checks; E5's
        # loaded cell: its file write + run + checks, the load being
        # load_seconds), and this process's CPU time over it; the engine's
        # own numbers cover the measured phase only.
        "wall_seconds": wall_seconds,
        "process_cpu_seconds": process_cpu_seconds,
        "loadavg_before": loadavg_before,
        "loadavg_after": loadavg_after,
        # The call's window on the wall clock: how much two arms run at once overlapped (dbrepro.duet).
        "started_unix": round(started_unix, 4),
        "ended_unix": round(ended_unix, 4),
    }
    return raw, host_metrics


def from_engine_dict(
    raw: Mapping[str, Any],
    *,
    host_metrics: Mapping[str, Any] | None = None,
    run_provenance: Mapping[str, Any] | None = None,
) -> RunResult:
    """Wrap the dict returned by `_engine.run_tpcc` (or `dbrepro-native tpcc`)."""
    metrics = {key: value for key, value in raw.items() if key not in ("config", "consistency")}
    metrics["host"] = dict(host_metrics or {})
    return RunResult(
        kind=KIND,
        config=dict(raw["config"]),
        metrics=metrics,
        provenance=dict(run_provenance or {}),
        extra={"consistency": list(raw.get("consistency", []))},
    )
