"""E4, scheduler time quantum: do CPU-bound sessions finish sooner under a
longer quantum when several share a CPU?

    >>> from dbrepro import quantum
    >>> run = quantum.run_sessions(scheduler="engine", workload="cpu", quantum_ms=20, sessions_per_cpu=5)
    >>> run.metrics["mean_seconds"], run.metrics["delta_seconds"]

Three schedulers run the same sessions (pinned evenly to the CPUs):
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

Command line (used by the workflow): python -m dbrepro.quantum --out run.json ...
"""
from __future__ import annotations

import argparse
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
from .result import FRAME_ROWS, RunResult
from .tpcc import ConfigError

KIND = "quantum"
SCHEDULERS = ("engine", "os_rr", "os_fair", "os_fair_q")
WORKLOADS = ("cpu", "memory")
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


def validate(*, scheduler, workload, quantum_ms, sessions_per_cpu, cpus, cpu_iterations, table_mb, passes) -> None:
    if scheduler not in SCHEDULERS:
        raise ConfigError("scheduler", f"invalid choice {scheduler!r} (allowed: {', '.join(SCHEDULERS)})")
    if workload not in WORKLOADS:
        raise ConfigError("workload", f"invalid choice {workload!r} (allowed: {', '.join(WORKLOADS)})")
    if not isinstance(quantum_ms, (int, float)) or isinstance(quantum_ms, bool) or not quantum_ms > 0:
        raise ConfigError("quantum_ms", f"must be > 0, got {quantum_ms!r}")
    if scheduler in ("os_rr", "os_fair_q") and quantum_ms != int(quantum_ms):
        raise ConfigError("quantum_ms", f"must be whole milliseconds for {scheduler} (a kernel tunable), got {quantum_ms!r}")
    for name, value, low in (("sessions_per_cpu", sessions_per_cpu, 1), ("cpus", cpus, 0),
                             ("cpu_iterations", cpu_iterations, 1), ("passes", passes, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ConfigError(name, f"must be an integer >= {low}, got {value!r}")
    if not isinstance(table_mb, (int, float)) or isinstance(table_mb, bool) or not table_mb > 0:
        raise ConfigError("table_mb", f"must be > 0, got {table_mb!r}")


def run_sessions(
    *,
    scheduler: str = "engine",
    workload: str = "cpu",
    quantum_ms: float = 20,
    sessions_per_cpu: int = 1,
    cpus: int = 0,
    cpu_iterations: int = 10_000_000,
    table_mb: float = 8.0,
    passes: int = 25,
    timeslice_path: Path | str = TIMESLICE_PATH,
    fair_slice_path: Path | str | None = None,
) -> RunResult:
    """One run: `sessions_per_cpu` sessions on each of `cpus` CPUs (0 = all this
    process may use), each doing the workload once; per-session times and the
    run's mean, min, max, delta (max - min), delta/Q and makespan."""
    validate(scheduler=scheduler, workload=workload, quantum_ms=quantum_ms, sessions_per_cpu=sessions_per_cpu,
             cpus=cpus, cpu_iterations=cpu_iterations, table_mb=table_mb, passes=passes)
    from . import _engine

    cpus_used = cpus or available_cpus()
    if cpus_used > available_cpus():
        raise ConfigError("cpus", f"this process may use {available_cpus()} CPU(s), asked for {cpus_used}")
    config = {
        "scheduler": scheduler, "workload": workload, "quantum_ms": quantum_ms,
        "sessions_per_cpu": sessions_per_cpu, "cpus": cpus_used, "sessions": sessions_per_cpu * cpus_used,
        "cpu_iterations": cpu_iterations, "table_mb": table_mb, "passes": passes,
    }
    arguments = dict(
        scheduler=scheduler, workload=workload, cpus=cpus_used, sessions_per_cpu=sessions_per_cpu,
        quantum_ms=float(quantum_ms), cpu_iterations=cpu_iterations, table_bytes=int(table_mb * (1 << 20)),
        passes=passes,
    )
    kernel = {
        "rr_timeslice_ms_before": _read_int(Path(timeslice_path)),
        "rt_runtime_us": _read_int(RT_RUNTIME_PATH),  # RT throttling: RR sessions get at most this share
        "fair_base_slice_ns": _read_int(FAIR_BASE_SLICE_PATH),
        "fair_base_slice": fair_base_slice_status() if scheduler.startswith("os_fair") else None,
    }
    loadavg_before = list(os.getloadavg())
    started = time.perf_counter()
    if scheduler == "os_rr":
        with rr_timeslice(int(quantum_ms), timeslice_path) as effective:
            kernel["rr_timeslice_ms_effective"] = effective
            raw = _engine.run_sessions(**arguments)
    elif scheduler == "os_fair_q":
        # The engine runs these sessions exactly as os_fair's; only the slice differs.
        with fair_base_slice(int(quantum_ms), fair_slice_path) as effective:
            kernel["fair_base_slice_ns_effective"] = effective
            raw = _engine.run_sessions(**{**arguments, "scheduler": "os_fair"})
    else:
        raw = _engine.run_sessions(**arguments)
    metrics = summarize(raw, quantum_ms if scheduler != "os_fair" else None)
    metrics["kernel"] = kernel
    metrics["host"] = {
        "wall_seconds": time.perf_counter() - started,
        "loadavg_before": loadavg_before,
        "loadavg_after": list(os.getloadavg()),
    }
    return RunResult(kind=KIND, config=config, metrics=metrics, provenance=provenance.collect())


def summarize(raw: dict[str, Any], quantum_ms: float | None) -> dict[str, Any]:
    """The run's figures from its per-session dicts (the engine's output)."""
    sessions = raw["sessions"]
    walls = [s["wall_seconds"] for s in sessions]
    cpu = [s["cpu_seconds"] for s in sessions]
    makespan = raw["makespan_seconds"]
    kernel_switches = sum(s["voluntary_switches"] + s["involuntary_switches"] for s in sessions)
    engine_switches = sum(s["engine_switches"] for s in sessions)
    delta = max(walls) - min(walls)
    return {
        "sessions": sessions,
        "table_bytes": raw["table_bytes"],
        "makespan_seconds": makespan,
        "mean_seconds": statistics.fmean(walls),
        "min_seconds": min(walls),
        "max_seconds": max(walls),
        "delta_seconds": delta,
        "delta_over_q": delta / (quantum_ms / 1000) if quantum_ms else None,  # JSON has no NaN
        "mean_cpu_seconds": statistics.fmean(cpu),
        "total_cpu_seconds": sum(cpu),
        "kernel_switches": kernel_switches,
        "engine_switches": engine_switches,
        "kernel_switches_per_second": kernel_switches / makespan if makespan > 0 else 0.0,
        "engine_switches_per_second": engine_switches / makespan if makespan > 0 else 0.0,
        "results_agree": len({s["result"] for s in sessions}) == 1,
    }


def _quantum_rows(result: RunResult) -> list[dict[str, Any]]:
    """One row per run: config and the run's scalar figures."""
    scalars = {k: v for k, v in result.metrics.items() if v is None or isinstance(v, (int, float, bool, str))}
    kernel = result.metrics.get("kernel", {})
    return [{**result.config, **scalars, "rr_timeslice_ms_effective": kernel.get("rr_timeslice_ms_effective")}]


FRAME_ROWS[KIND] = _quantum_rows


# ---------------------------------------------------------------------------
# Command line: python -m dbrepro.quantum --out run.json ...


def build_parser():
    from .cli import DefaultsHelpFormatter, OneLineErrorParser, _choice, _integer, _number

    parser = OneLineErrorParser(prog="dbrepro.quantum", description=__doc__, formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--scheduler", type=_choice(*SCHEDULERS), default="engine")
    parser.add_argument("--workload", type=_choice(*WORKLOADS), default="cpu")
    parser.add_argument("--quantum-ms", type=_number, default=20.0, help="Q, milliseconds")
    parser.add_argument("--sessions-per-cpu", type=_integer, default=1)
    parser.add_argument("--cpus", type=_integer, default=0, help="CPUs to use; 0 = all this process may use")
    parser.add_argument("--cpu-iterations", type=_integer, default=10_000_000, help="N of workload cpu")
    parser.add_argument("--table-mb", type=_number, default=8.0, help="table size of workload memory, MiB")
    parser.add_argument("--passes", type=_integer, default=25, help="full scans per memory session")
    parser.add_argument("--out", required=True, help="raw-run record to write (JSON)")
    return parser


_OPTION = {"quantum_ms": "--quantum-ms", "sessions_per_cpu": "--sessions-per-cpu", "cpus": "--cpus",
           "cpu_iterations": "--cpu-iterations", "table_mb": "--table-mb", "passes": "--passes",
           "scheduler": "--scheduler", "workload": "--workload"}


def main(argv: Sequence[str] | None = None) -> int:
    from .cli import CliError, _check_writable, _write

    def fail(message: str, code: int = 2) -> int:
        print(f"dbrepro.quantum: error: {message}", file=sys.stderr)
        return code

    try:
        args = build_parser().parse_args(argv)
    except CliError as error:
        return fail(str(error))
    quantum_ms = int(args.quantum_ms) if float(args.quantum_ms).is_integer() else args.quantum_ms
    try:
        _check_writable(args.out)  # fail now, not after the sessions ran
        run = run_sessions(scheduler=args.scheduler, workload=args.workload, quantum_ms=quantum_ms,
                           sessions_per_cpu=args.sessions_per_cpu, cpus=args.cpus,
                           cpu_iterations=args.cpu_iterations, table_mb=args.table_mb, passes=args.passes)
    except ConfigError as error:
        return fail(f"{_OPTION.get(error.parameter, error.parameter)}: {error.reason}")
    except TimesliceError as error:
        return fail(f"--scheduler {args.scheduler}: {error}")
    except CliError as error:
        return fail(str(error))
    except KeyboardInterrupt:
        return fail("interrupted (the kernel's scheduler settings were restored)", 130)
    try:
        _write(run, args.out)
    except CliError as error:
        return fail(str(error))
    m = run.metrics
    print(f"{args.scheduler} {args.workload} Q={quantum_ms} ms, {run.config['sessions']} sessions: "
          f"mean {m['mean_seconds']:.3f} s, min {m['min_seconds']:.3f}, max {m['max_seconds']:.3f}, "
          f"makespan {m['makespan_seconds']:.3f} s -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
