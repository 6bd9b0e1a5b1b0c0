"""E4, scheduler time quantum: do CPU-bound sessions finish sooner under a
longer quantum when several share a CPU?

    >>> from dbrepro import quantum
    >>> run = quantum.run_sessions(scheduler="engine", workload="cpu", quantum_ms=20, sessions_per_cpu=5)
    >>> run.metrics["mean_seconds"], run.metrics["delta_seconds"]

Three schedulers run the same sessions, spread evenly over the CPUs and
either pinned there or free on all of them (`placement`):
  engine   the engine's own: sessions are fibers on one worker thread per CPU,
           switched cooperatively when their quantum expires;
  os_rr    one thread per session under SCHED_RR, with the kernel's
           round-robin timeslice (kernel.sched_rr_timeslice_ms) set to Q for
           the run and restored afterwards -- needs root;
  os_fair  one thread per session under SCHED_OTHER (the fair scheduler; Q
           does not apply, its base slice is recorded where readable);
  os_fair_q  the fair scheduler with its base slice (debugfs
           sched/base_slice_ns) set to Q for the run and restored -- needs
           root and a kernel that lets debugfs be written (a locked-down
           kernel refuses even reading it: the run then fails and says so).
  os_ts    Solaris's time-sharing class emulated (engine/src/sched/ts_linux.hpp): the
           default ts_dptbl with Q in every level's ts_quantum (our reading of the
           article, which changed the table's quantum and does not print its table);
           sessions SCHED_FIFO at their level's priority, a dispatcher thread above
           them moving them at quantum expiry and at the once-a-second update;
           `ts_time_scale` multiplies every dispatcher time (quanta, the update, the
           tick); `time_limit_s` bounds the run -- needs root.

The memory-bound sessions all scan one table, loaded once into one buffer
cache with a latch per group of hash chains, as the article's Oracle sessions
scanned theirs (engine/src/sched/shared_table.hpp; `latch`: spin_nap, the
default, spins and then sleeps as Oracle's latches; adaptive; futex).

Each run records, per session, its CPU time, voluntary and involuntary
context switches (getrusage RUSAGE_THREAD of its thread), its latch
acquisitions, waits, time waited and the holds in which it was switched out
involuntarily (latch/holder_preemption.hpp), the quantum in effect
read back with sched_rr_get_interval while it ran, and what a switch cost it:
the slope of a least-squares line through its units of work (64 pages, 2^14
iterations), CPU time against the switches inside each unit
(engine/src/sched/unit_meter.hpp); times the switches, the refill cost per
session.

Session length: `calibrate` measures the CPU time of one unit alone and
`size_sessions` turns a session length in seconds into units (the workflow
sizes sessions at the article's ratio of quantum to session length).

Command line:

    dbrepro run quantum --scheduler engine --workload cpu --quantum-ms 20 --out run.json
"""
from __future__ import annotations

import os
import signal
import statistics
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from . import provenance
from .host_load import Guarded, loadavg, row_columns, run_guarded
from .result import FRAME_ROWS, RunResult
from .tpcc import ConfigError, engine_config_error, guard_settings

KIND = "quantum"
PLACEMENTS = ("pinned", "unpinned")  # the engine's table states them (placement); tests and benchmarks sweep them
TIMESLICE_PATH = Path("/proc/sys/kernel/sched_rr_timeslice_ms")
RT_RUNTIME_PATH = Path("/proc/sys/kernel/sched_rt_runtime_us")
FAIR_BASE_SLICE_PATH = Path("/sys/kernel/debug/sched/base_slice_ns")
DEBUGFS = Path("/sys/kernel/debug")
NEEDS_ROOT = "needs root or a privileged container to set kernel.sched_rr_timeslice_ms"
NEEDS_DEBUGFS = "needs root and a writable debugfs to set the fair scheduler's base slice"


class TimesliceError(RuntimeError):
    """The round-robin timeslice cannot be read or set here."""


# ---------------------------------------------------------------------------
# The kernel's round-robin timeslice: set for a run, always restored.


def read_timeslice(path: Path = TIMESLICE_PATH) -> int:
    return _read_setting(Path(path))


def _read_setting(path: Path) -> int:
    try:
        return int(Path(path).read_text().strip())
    except (OSError, ValueError) as error:
        raise TimesliceError(f"cannot read {path}: {error}") from None


def _write_setting(path: Path, value: int) -> None:
    with open(path, "w") as file:
        file.write(f"{value}\n")


def _raise_system_exit(signum, _frame):
    # SIGTERM (Snakemake stopping a job, kill) would end the process without
    # running finally blocks; as an exception, the setting gets restored.
    raise SystemExit(128 + signum)


@contextmanager
def kernel_setting(path: Path | str, value: int, needs: str) -> Iterator[int]:
    """Write the integer `value` to the kernel tunable at `path` inside the
    block; yields the value the kernel reports back. The previous value is
    restored on leaving, also on an exception, Ctrl-C (SIGINT) or SIGTERM.
    `needs` says what a refused write needs (root, a privileged container)."""
    path = Path(path)
    original = _read_setting(path)
    if not os.access(path, os.W_OK):
        raise TimesliceError(f"{needs} ({path} is not writable by uid {os.geteuid()})")
    handlers = {}
    if threading.current_thread() is threading.main_thread():
        handlers[signal.SIGTERM] = signal.signal(signal.SIGTERM, _raise_system_exit)
        handlers[signal.SIGINT] = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        try:
            _write_setting(path, value)
        except PermissionError:
            raise TimesliceError(f"{needs} (writing {path}: permission denied)") from None
        yield _read_setting(path)
    finally:
        # A second Ctrl-C must not cut the restore short: hold signals until it is done.
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
        try:
            _write_setting(path, original)
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _whole_ms(ms: Any) -> int:
    if isinstance(ms, bool) or not isinstance(ms, int) or ms < 1:
        raise ConfigError("quantum_ms", f"must be a whole number of milliseconds >= 1, got {ms!r}")
    return ms


@contextmanager
def rr_timeslice(ms: int, path: Path | str = TIMESLICE_PATH) -> Iterator[int]:
    """Set kernel.sched_rr_timeslice_ms to `ms` inside the block; yields the
    value the kernel reports back (rounded to whole ticks). The previous value
    is restored on leaving, also on an exception, Ctrl-C (SIGINT) or SIGTERM.
    `path` is replaceable so tests can use a plain file."""
    with kernel_setting(path, _whole_ms(ms), NEEDS_ROOT) as effective:
        yield effective


def _mount_debugfs() -> None:
    """Mount debugfs where the fair scheduler's tunables live, if it is not."""
    if (DEBUGFS / "sched").is_dir() or os.geteuid() != 0:
        return
    import subprocess

    subprocess.run(["mount", "-t", "debugfs", "none", str(DEBUGFS)], capture_output=True, check=False)


@contextmanager
def fair_base_slice(ms: int, path: Path | str | None = None) -> Iterator[int]:
    """Set the fair scheduler's base slice (debugfs sched/base_slice_ns) to
    `ms` inside the block, restored as rr_timeslice restores its setting;
    yields the value in nanoseconds the kernel reports back."""
    if path is None:
        _mount_debugfs()
        path = FAIR_BASE_SLICE_PATH
    try:
        with kernel_setting(path, _whole_ms(ms) * 1_000_000, NEEDS_DEBUGFS) as effective:
            yield effective
    except TimesliceError as error:
        if str(error).startswith("cannot read"):  # a locked-down kernel refuses even reading it
            raise TimesliceError(f"{NEEDS_DEBUGFS}: {error}") from None
        raise


def fair_base_slice_status(path: Path | str = FAIR_BASE_SLICE_PATH) -> str:
    """'settable', or why the fair scheduler's base slice cannot be set here."""
    if os.geteuid() != 0:
        return f"{NEEDS_DEBUGFS} (running as uid {os.geteuid()})"
    _mount_debugfs()
    try:
        _read_setting(Path(path))
    except TimesliceError as error:
        return str(error)
    return "settable" if os.access(path, os.W_OK) else f"{path} is not writable"


# ---------------------------------------------------------------------------
# Runs


def available_cpus() -> int:
    from . import _engine

    return int(_engine.available_cpus())


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def config_fields() -> list[dict[str, Any]]:
    """E4's settings, from the engine's one table (engine/src/driver/quantum/fields.cpp):
    name, type, unit, range, default, help."""
    from . import _engine

    return list(_engine.quantum_config_fields())


def validate_config(**settings: Any) -> dict[str, Any]:
    """A run's settings (named as config_fields() lists them), checked by the
    engine as a run checks them, defaults filled in (cpus 0: every CPU this
    process may use); ConfigError names the first bad one. Where the kernel
    takes Q (os_rr, os_fair_q), Q is whole milliseconds."""
    from . import _engine

    try:
        config = dict(_engine.quantum_config(**settings))
    except (ValueError, TypeError) as error:
        raise engine_config_error(error, (field["name"] for field in config_fields())) from None
    quantum_ms = config["quantum_ms"]
    if config["scheduler"] in ("os_rr", "os_fair_q") and quantum_ms != int(quantum_ms):
        raise ConfigError("quantum_ms", f"must be whole milliseconds for {config['scheduler']} (a kernel tunable), "
                                        f"got {quantum_ms!r}")
    if float(quantum_ms).is_integer():
        config["quantum_ms"] = int(quantum_ms)
    return config


def run_sessions(
    *,
    timeslice_path: Path | str = TIMESLICE_PATH,
    fair_slice_path: Path | str | None = None,
    max_foreign_cores: float | None = None,
    max_reruns: int | None = None,
    **settings: Any,
) -> RunResult:
    """One run: `sessions_per_cpu` sessions on each of `cpus` CPUs (0 = all this
    process may use), each doing the workload once, pinned to its CPU or free
    on all of them (`placement`); per-session times and the run's mean, min,
    max, delta (max - min), delta/Q, makespan, CPU time and switches per
    session, latch acquisitions, waits, wait time and holder preemptions per
    session (memory workload: the one shared table's chain latches, of kind
    `latch`), the quantum read back, and the switch (refill) cost.

    `settings`: E4's settings by name (scheduler, workload, placement,
    quantum_ms, sessions_per_cpu, cpus, cpu_iterations, table_mb, passes,
    latch, ...), each described with its unit, range and default by the
    engine's table (config_fields()) and checked there before any work. For
    os_rr the kernel's RR timeslice is set to Q for the run (and restored),
    for os_fair_q the fair scheduler's base slice. The run is metered for
    foreign load and run again at once while disturbed (max_foreign_cores,
    max_reruns: as tpcc.run); metrics["host"] has the five fields."""
    from . import _engine

    engine_settings = validate_config(**settings)
    scheduler, quantum_ms = engine_settings["scheduler"], engine_settings["quantum_ms"]
    config = {**engine_settings, "sessions": engine_settings["sessions_per_cpu"] * engine_settings["cpus"]}
    kernel = {
        "rr_timeslice_ms_before": _read_int(Path(timeslice_path)),
        "rt_runtime_us": _read_int(RT_RUNTIME_PATH),  # RT throttling: RR sessions get at most this share
        "fair_base_slice_ns": _read_int(FAIR_BASE_SLICE_PATH),
        "fair_base_slice": fair_base_slice_status() if scheduler.startswith("os_fair") else None,
    }
    guard = guard_settings(max_foreign_cores, max_reruns)
    loadavg_before = loadavg()
    started = time.perf_counter()

    def sessions() -> Guarded:
        # The sessions are this process's threads: our own tree, never foreign.
        return run_guarded(lambda: _engine.run_sessions(**engine_settings), **guard)

    if scheduler == "os_rr":
        with rr_timeslice(int(quantum_ms), timeslice_path) as effective:
            kernel["rr_timeslice_ms_effective"] = effective
            kept = sessions()
    elif scheduler == "os_fair_q":
        # The engine runs these sessions exactly as os_fair's; only the slice differs.
        with fair_base_slice(int(quantum_ms), fair_slice_path) as effective:
            kernel["fair_base_slice_ns_effective"] = effective
            kept = sessions()
    else:
        kept = sessions()
    # Under os_ts the quantum that acts is Q times the dispatcher's scale.
    acting_ms = quantum_ms * engine_settings["ts_time_scale"] if scheduler == "os_ts" else quantum_ms
    metrics = summarize(kept.value, acting_ms if scheduler != "os_fair" else None)
    metrics["kernel"] = kernel
    metrics["host"] = {
        "wall_seconds": time.perf_counter() - started,
        "loadavg_before": loadavg_before,
        "loadavg_after": loadavg(),
        **kept.cell_fields(),
    }
    return RunResult(kind=KIND, config=config, metrics=metrics, provenance=provenance.collect())


UNIT_NAMES = {"cpu": "cpu_iterations", "memory": "passes"}


def article_start(paper: dict) -> dict[str, float]:
    """How the article's sessions started (issue 55), from its own numbers (the paper-values
    file, workflows/data/quantum_paper.yaml): its start.sh launched them one after another and
    timed the last one twice, by sqlplus (its statement) and by `time` (its sql.sh); at the
    shortest quantum, where the CPUs were shared most finely, the difference is what the last
    session waited for the logins before its own statement, one start per session:
    start_gap_ms = (time - sqlplus) / sessions (10 sessions at 10 ms: 78 ms). Each statement
    starts as its server process wakes to read it, at the level such a process keeps
    (ts_entry_level: the engine's woken level, 58). How much a session's CPU need varies by
    itself: need_jitter, the relative standard deviation of the one session alone as the
    article printed it three times (workload 2). The update's phase is not in the article:
    ts_update_phase 0 draws it for each run."""
    from . import _engine

    w1 = paper["workload1"]
    shortest = min(w1["quanta_ms"])
    sessions = w1["sessions_per_cpu"] * paper["cpus"]
    waited = w1["one_session_time_seconds"][shortest] - w1["one_session_seconds"][shortest]
    alone = paper["workload2"]["one_session_alone_seconds"]
    return {"start_gap_ms": 1000 * waited / sessions,
            "ts_entry_level": int(_engine.ts_dispatch_table()["woken_level"]),
            "ts_update_phase": 0.0,
            "need_jitter": statistics.stdev(alone) / statistics.fmean(alone)}


# The study's one entry, as every study module has it: run(**settings) -> RunResult.
run = run_sessions


def calibrate(workload: str, *, table_mb: float = 8.0, seconds: float = 0.2) -> dict[str, Any]:
    """CPU seconds of one unit of the workload (one iteration of the CPU loop,
    one pass over the shared table of `table_mb`) run alone on one CPU: a
    session of doubling length until it takes `seconds` of CPU time. It runs
    as a SCHED_RR thread where this process may make one (root), so the
    machine's other processes do not share its CPU, as in the runs; else under
    the engine's scheduler (the result says which)."""
    from . import _engine

    # One session alone on one CPU (the table's defaults: pinned, one session per CPU).
    alone = validate_config(workload=workload, cpus=1, quantum_ms=1000, table_mb=table_mb)

    def run(scheduler: str, units: int) -> float:
        raw = _engine.run_sessions(**{**alone, "scheduler": scheduler, "cpu_iterations": units, "passes": units})
        return raw["sessions"][0]["cpu_seconds"]

    units = 1 << 16 if workload == "cpu" else 1
    scheduler = "os_rr"
    while True:
        try:
            cpu = run(scheduler, units)
        except RuntimeError:  # SCHED_RR refused (not root)
            scheduler = "engine"
            continue
        if cpu >= seconds:
            return {"workload": workload, "unit": UNIT_NAMES[workload], "units": units, "cpu_seconds": cpu,
                    "seconds_per_unit": cpu / units, "scheduler": scheduler,
                    "table_mb": table_mb if workload == "memory" else None}
        units *= 2 if cpu <= 0 else max(2, min(64, int(1.2 * seconds / cpu) + 1))


def size_sessions(session_seconds: dict[str, float], *, table_mb: float = 8.0,
                  calibration_seconds: float = 0.2) -> dict[str, Any]:
    """Units of work that make a session of each workload take
    `session_seconds[workload]` of CPU time alone here, from `calibrate`."""
    sizing: dict[str, Any] = {}
    for workload, seconds in session_seconds.items():
        measured = calibrate(workload, table_mb=table_mb, seconds=calibration_seconds)
        units = max(1, round(seconds / measured["seconds_per_unit"]))
        sizing[workload] = {"session_seconds": seconds, measured["unit"]: units, "calibration": measured}
    return sizing


def switch_cost_seconds(fits: Sequence[dict[str, float]]) -> float | None:
    """CPU seconds one switch adds to a session: the slope of the least-squares
    line through every unit of work of the given sessions, CPU time against the
    switches inside the unit (sums from the engine's meter). None when the
    switches per unit do not vary (one session per CPU: no switches)."""
    n = sum(f["units"] for f in fits)
    sx, sy = sum(f["sum_x"] for f in fits), sum(f["sum_y"] for f in fits)
    sxy, sxx = sum(f["sum_xy"] for f in fits), sum(f["sum_xx"] for f in fits)
    denominator = n * sxx - sx * sx
    if n < 2 or denominator <= 1e-9 * max(1.0, n * sxx):
        return None
    return (n * sxy - sx * sy) / denominator


def summarize(raw: dict[str, Any], quantum_ms: float | None) -> dict[str, Any]:
    """The run's figures from its per-session dicts (the engine's output). A session's time is
    its own, from its start to its end, as the article's sqlplus timed each statement: the
    wall time from the common start less its start (0 unless os_ts staggered the starts)."""
    sessions = raw["sessions"]
    walls = [s["wall_seconds"] - s.get("start_seconds", 0.0) for s in sessions]
    cpu = [s["cpu_seconds"] for s in sessions]
    first, last = walls.index(min(walls)), walls.index(max(walls))
    makespan = raw["makespan_seconds"]
    kernel_switches = sum(s["voluntary_switches"] + s["involuntary_switches"] for s in sessions)
    engine_switches = sum(s["engine_switches"] for s in sessions)
    delta = max(walls) - min(walls)
    fits = [s["switch_cost_fit"] for s in sessions]
    switch_cost = switch_cost_seconds(fits)
    metered_switches = sum(f["sum_x"] for f in fits) / len(sessions)
    figures = {
        "sessions": sessions,
        "table_bytes": raw["table_bytes"],
        "cache_bytes": raw["cache_bytes"],
        "latches": raw["latches"],
        "makespan_seconds": makespan,
        "mean_seconds": statistics.fmean(walls),
        "min_seconds": min(walls),
        "max_seconds": max(walls),
        "delta_seconds": delta,
        "delta_over_q": delta / (quantum_ms / 1000) if quantum_ms else None,  # JSON has no NaN
        "mean_cpu_seconds": statistics.fmean(cpu),
        "cpu_s_per_session": statistics.fmean(cpu),
        "total_cpu_seconds": sum(cpu),
        "voluntary_switches": statistics.fmean(s["voluntary_switches"] for s in sessions),
        "involuntary_switches": statistics.fmean(s["involuntary_switches"] for s in sessions),
        "effective_quantum_ms": statistics.median(s["effective_quantum_ms"] for s in sessions),
        # Method: in-run regression of each unit's CPU time on the switches inside it (unit_meter.hpp).
        "switch_cost_us": None if switch_cost is None else switch_cost * 1e6,
        "refill_s_per_session": None if switch_cost is None else switch_cost * metered_switches,
        # The shared table's chain latches, per session (latch/holder_preemption.hpp); 0 for the CPU workload.
        "latch_acquisitions": statistics.fmean(s["latch_acquisitions"] for s in sessions),
        "latch_waits": statistics.fmean(s["latch_waits"] for s in sessions),
        "latch_wait_ms": statistics.fmean(s["latch_wait_ns"] for s in sessions) / 1e6,
        "holder_preemptions": statistics.fmean(s["latch_holder_preemptions"] for s in sessions),
        "kernel_switches": kernel_switches,
        "engine_switches": engine_switches,
        "kernel_switches_per_second": kernel_switches / makespan if makespan > 0 else 0.0,
        "engine_switches_per_second": engine_switches / makespan if makespan > 0 else 0.0,
        "results_agree": len({s["result"] for s in sessions}) == 1,
        # The session started last (the article's one timed session), and the share of a CPU the first and
        # the last to finish had over their own time (finishing order: equal shares under processor sharing).
        "last_started_seconds": walls[max(range(len(sessions)), key=lambda i: (sessions[i].get("start_seconds", 0.0), i))],
        "first_finisher_cpu_share": cpu[first] / walls[first] if walls[first] > 0 else None,
        "last_finisher_cpu_share": cpu[last] / walls[last] if walls[last] > 0 else None,
        # os_ts (the TS dispatcher, engine/src/sched/ts_linux.hpp); 0 under the other schedulers.
        "ts_boosts": statistics.fmean(s.get("ts_boosts", 0) for s in sessions),
        "ts_expiries": statistics.fmean(s.get("ts_expiries", 0) for s in sessions),
        "ts_boosts_per_second": sum(s.get("ts_boosts", 0) for s in sessions) / makespan if makespan > 0 else 0.0,
        "ts_expiries_per_second": sum(s.get("ts_expiries", 0) for s in sessions) / makespan if makespan > 0 else 0.0,
        **_dispatcher_figures(raw.get("dispatcher")),
    }
    # The scheduler's own switches: the kernel's, less the TS dispatcher's tick preemptions (a
    # thread here, an interrupt on Solaris; 0 under the other schedulers).
    # The count is an estimate (a session that ran part of a tick and then slept counts as preempted):
    # never below zero.
    own = max(0, kernel_switches - figures["dispatcher_preemptions"])
    figures["scheduler_switches_per_second"] = own / makespan if makespan > 0 else 0.0
    return figures


def _dispatcher_figures(dispatcher: dict[str, Any] | None) -> dict[str, Any]:
    """The TS dispatcher's own cost: its CPU time per second of its run, its ticks and updates."""
    d = dispatcher or {}
    wall = d.get("wall_seconds", 0.0)
    return {
        "dispatcher_cpu_seconds": d.get("cpu_seconds", 0.0),
        "dispatcher_cpu_ms_per_second": 1000 * d.get("cpu_seconds", 0.0) / wall if wall > 0 else 0.0,
        "dispatcher_updates": d.get("updates", 0),
        "dispatcher_late_ticks": d.get("late_ticks", 0),
        "dispatcher_timed_out": bool(d.get("timed_out", False)),
        "dispatcher_preemptions": d.get("preemptions", 0),
        # Its own SCHED_FIFO priority at its end (90 unless something lowered it; 0 where none ran).
        "dispatcher_priority_end": d.get("priority_end", 0),
        # When its first update fell, in update periods after its start (drawn per run where asked).
        "update_phase": d.get("update_phase"),
    }


def scheduler_label(config: dict[str, Any]) -> str:
    """The scheduler as the workflow and its tables name it: the engine's, except os_ts run with a
    reading or a start other than os_ts's until issue 55 (Q in every level, sessions at level 29 at
    once, the update a period after the start), which is os_ts_<reading> (the workflow's os_ts_rt:
    the rt reading with the article's start, dbrepro.quantum.article_start)."""
    scheduler = config["scheduler"]
    if scheduler != "os_ts":
        return scheduler
    from . import _engine

    entry = int(_engine.ts_dispatch_table()["entry_level"])
    reading = config.get("ts_reading", "all")
    as_until_55 = (reading == "all" and not config.get("start_gap_ms") and config.get("ts_update_phase", 1.0) == 1.0
                   and config.get("ts_entry_level", entry) == entry)
    return scheduler if as_until_55 else f"os_ts_{reading}"


def _quantum_rows(result: RunResult) -> list[dict[str, Any]]:
    """One row per run: config and the run's scalar figures; `scheduler` as scheduler_label names it."""
    scalars = {k: v for k, v in result.metrics.items() if v is None or isinstance(v, (int, float, bool, str))}
    kernel = result.metrics.get("kernel", {})
    return [{**result.config, **scalars, "scheduler": scheduler_label(result.config),
             "rr_timeslice_ms_effective": kernel.get("rr_timeslice_ms_effective"),
             **row_columns(result.metrics.get("host"))}]


FRAME_ROWS[KIND] = _quantum_rows


# ---------------------------------------------------------------------------
# Command line: dbrepro run quantum --out run.json ...


PROG = "dbrepro run quantum"


def build_parser():
    """One option per setting of the engine's table, with its unit, range and default; --sizing."""
    from . import settings
    from .command import DefaultsHelpFormatter, OneLineErrorParser

    parser = OneLineErrorParser(prog=PROG, description=__doc__, formatter_class=DefaultsHelpFormatter)
    settings.add_options(parser, config_fields())
    settings.add_settings_file(parser)
    parser.add_argument("--sizing", help="a sizing record (JSON, from size_sessions): its cpu_iterations or passes "
                        "for the workload (os_ts: its ts_ entry where it has one) replace --cpu-iterations / --passes")
    parser.add_argument("--out", required=True, metavar="FILE.json", help="raw-run record to write (JSON)")
    return parser


def _sized(args, given: dict[str, Any]) -> dict[str, Any]:
    """The settings, the sizing record's cpu_iterations or passes for the workload in their place."""
    if not args.sizing:
        return given
    import json

    try:
        sizing = json.loads(Path(args.sizing).read_text())
        # os_ts sessions have their own length (the article's times ts_time_scale), where the record has one.
        ts_key = f"ts_{given['workload']}"
        record = sizing[ts_key if given.get("scheduler") == "os_ts" and ts_key in sizing else given["workload"]]
    except (OSError, ValueError, KeyError) as error:
        raise ConfigError("sizing", f"no {given['workload']} sizing in {args.sizing}: {error}") from None
    unit = UNIT_NAMES[given["workload"]]
    return {**given, unit: record[unit]}


def main(argv: Sequence[str] | None = None) -> int:
    from . import settings
    from .command import CliError, check_writable, write_record

    def fail(message: str, code: int = 2) -> int:
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return code

    try:
        args = settings.parse_args(build_parser(), argv, config_fields())
    except (CliError, ValueError) as error:
        return fail(str(error))
    given = settings.given(args, config_fields())
    try:
        check_writable(args.out)  # fail now, not after the sessions ran
        run = run_sessions(**_sized(args, given))
    except ConfigError as error:
        return fail(f"{settings.option(error.parameter)}: {error.reason}")
    except TimesliceError as error:
        return fail(f"--scheduler {given['scheduler']}: {error}")
    except CliError as error:
        return fail(str(error))
    except KeyboardInterrupt:
        return fail("interrupted (the kernel's scheduler settings were restored)", 130)
    try:
        write_record(run, args.out)
    except CliError as error:
        return fail(str(error))
    m, c = run.metrics, run.config
    print(f"{c['scheduler']} {c['placement']} {c['workload']} Q={c['quantum_ms']} ms "
          f"(in effect {m['effective_quantum_ms']:g} ms), {c['sessions']} sessions: "
          f"mean {m['mean_seconds']:.3f} s, min {m['min_seconds']:.3f}, max {m['max_seconds']:.3f}, "
          f"makespan {m['makespan_seconds']:.3f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
