"""Foreign load: the CPU time the machine spent outside a run's own process
tree while a timed cell ran, and what to do about a cell that saw too much.

    >>> from dbrepro import host_load
    >>> with host_load.HostLoadMeter() as meter:
    ...     run_the_cell()
    >>> meter.result["foreign_cores"]          # other work, in cores, averaged over the cell
    >>> kept = host_load.run_guarded(run_the_cell, max_foreign_cores=0.10, max_reruns=2)
    >>> kept.value, kept.fields()              # the kept attempt's result and its five fields

Busy time is /proc/stat's aggregate `cpu` line: user + nice + system + irq +
softirq (guest and guest_nice are already inside user and nice: not added
again); steal is kept apart. The run's own CPU time is that of its process
tree: this process (every thread) and every live descendant (found by ppid
in /proc/*/stat), each with utime + stime + cutime + cstime, so a child
reaped during the cell still counts through its parent; plus any process a
runner names as its own (`own_pids`) and its descendants, and the workflow
that runs the cell (DBREPRO_RUN_ROOT_PID: Snakemake's main process, which the
workflow names; its scheduler selects jobs as jobs finish, 0.03 of a core
through a smoke run measured here (0.15 before the Snakefile turned off
Snakemake's job-rate limiter), and that is the run's own work, not another
tenant's) and its
descendants; a duet's runner (dbrepro.duet) adds itself there for its arms,
so that the other arm of a pair, running at the same time, is the run's own
too. Our own threads are never foreign: a 64-thread run raising the load
average is expected.

    kernel_cpu_seconds  = kernel threads' delta (kthreadd, pid 2, and its children:
                          kworker, jbd2, ...) + irq + softirq delta
    foreign_cpu_seconds = max(0, busy delta - own delta - kernel delta)
    foreign_cores       = foreign_cpu_seconds / wall seconds
    kernel_cores        = kernel_cpu_seconds / wall seconds (reported, not foreign)
    steal_cores         = steal delta / wall seconds

Why the kernel's threads are apart: their work cannot be told apart by
tenant, and a run that commits with fsync makes them busy itself (E1's
step 0 measured 0.10 to 0.15 of a core of jbd2 and kworker time at 6 s
cells, every cell of it then `disturbed`: reference/runs/trial-ladder-6s/). Another tenant's own CPU time,
its system calls included, is in its process's utime and stime and stays
foreign; only the kernel threads' share of its I/O goes unseen.

A cell is disturbed when foreign_cores + steal_cores exceeds
`max_foreign_cores` (workflows/claims/foreign_load.yaml fixes it); it is run
again at once, at most `max_reruns` times, and the last attempt is kept,
marked `disturbed` if it is still over. Where /proc cannot be read the
figures are None and `unavailable` says why; such a cell is never rerun.

Persistent load: reruns help against a burst, not against a process busy
for the whole run (they would triple the run and still be disturbed). Where
the environment names a state file (DBREPRO_FOREIGN_LOAD_STATE, one per run:
the workflow's) and a count (DBREPRO_PERSISTENT_AFTER), once that many cells
in a row were still disturbed after their reruns, later cells are measured
once (`persistent_load` in their details) until one comes back undisturbed.
Timed cells never overlap (the workflow's timed=1), so the file has one writer
at a time.

The thresholds are keyword settings of every timed runner; not given, they
come from the environment (DBREPRO_MAX_FOREIGN_CORES, DBREPRO_MAX_RERUNS: how
the workflow hands them to `dbrepro run tpcc` and the study modules), else
the cell is only measured (no threshold, never rerun).
"""
from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

KTHREADD_PID = 2  # the kernel's thread parent: its children are kernel threads

# The five fields every timed cell carries (raw record and table row).
FIELDS = ("foreign_cpu_seconds", "foreign_cores", "steal_cores", "attempts", "disturbed")
# The columns every table row of a cell carries.
ROW_COLUMNS = ("foreign_cores", "steal_cores", "attempts", "disturbed")
MAX_FOREIGN_ENV = "DBREPRO_MAX_FOREIGN_CORES"
MAX_RERUNS_ENV = "DBREPRO_MAX_RERUNS"
PERSISTENT_AFTER_ENV = "DBREPRO_PERSISTENT_AFTER"  # cells in a row still disturbed: the load is persistent
LOAD_STATE_ENV = "DBREPRO_FOREIGN_LOAD_STATE"  # the run's file of that streak (one per run, across processes)
RUN_ROOT_ENV = "DBREPRO_RUN_ROOT_PID"  # the workflow's main process: its whole tree is the run's own
DEFAULT_MAX_RERUNS = 2  # workflows/claims/foreign_load.yaml's value; used where a threshold is given alone


def loadavg() -> list[float] | None:
    """The 1, 5 and 15-minute load averages (rounded), or None where the platform has none."""
    try:
        return [round(x, 3) for x in os.getloadavg()]
    except OSError:
        return None


def settings(max_foreign_cores: float | None = None, max_reruns: int | None = None) -> tuple[float | None, int]:
    """The thresholds in effect: the arguments, else the environment, else
    measure-only (None) and DEFAULT_MAX_RERUNS. ValueError names a bad one."""
    if max_foreign_cores is None and os.environ.get(MAX_FOREIGN_ENV, "").strip():
        max_foreign_cores = _number(MAX_FOREIGN_ENV, os.environ[MAX_FOREIGN_ENV])
    if max_reruns is None and os.environ.get(MAX_RERUNS_ENV, "").strip():
        max_reruns = _number(MAX_RERUNS_ENV, os.environ[MAX_RERUNS_ENV])
    if max_foreign_cores is not None:
        if isinstance(max_foreign_cores, bool) or not isinstance(max_foreign_cores, (int, float)) \
                or not max_foreign_cores >= 0 or math.isinf(max_foreign_cores):
            raise ValueError(f"max_foreign_cores: must be a number >= 0, got {max_foreign_cores!r}")
        max_foreign_cores = float(max_foreign_cores)
    max_reruns = DEFAULT_MAX_RERUNS if max_reruns is None else max_reruns
    if isinstance(max_reruns, bool) or not float(max_reruns).is_integer() or max_reruns < 0:
        raise ValueError(f"max_reruns: must be an integer >= 0, got {max_reruns!r}")
    return max_foreign_cores, int(max_reruns)


def _number(name: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{name}: must be a number, got {text!r}") from None


# ---------------------------------------------------------------------------
# Reading /proc


def _clock_ticks() -> int:
    return os.sysconf("SC_CLK_TCK")


def read_cpu_ticks(proc: str | os.PathLike = "/proc") -> tuple[int, int]:
    """(busy, steal) clock ticks of the aggregate `cpu` line of /proc/stat."""
    busy, _interrupts, steal = read_cpu_ticks_detail(proc)
    return busy, steal


def read_cpu_ticks_detail(proc: str | os.PathLike = "/proc") -> tuple[int, int, int]:
    """(busy, irq + softirq, steal) clock ticks of the aggregate `cpu` line of /proc/stat."""
    with open(Path(proc) / "stat", encoding="ascii") as stat:
        fields = stat.readline().split()
    if not fields or fields[0] != "cpu":
        raise OSError(f"{proc}/stat has no aggregate cpu line")
    values = [int(v) for v in fields[1:]] + [0] * 8  # old kernels have fewer columns
    user, nice, system, _idle, _iowait, irq, softirq, steal = values[:8]
    return user + nice + system + irq + softirq, irq + softirq, steal


def _process_stats(proc: Path) -> dict[int, tuple[int, int]]:
    """pid -> (ppid, utime + stime + cutime + cstime in ticks) of every process in /proc."""
    stats = {}
    for entry in os.scandir(proc):
        if not entry.name.isdigit():
            continue
        try:
            with open(os.path.join(entry.path, "stat"), "rb") as file:
                text = file.read()
        except OSError:  # ended between the listing and the read
            continue
        # The name (field 2) may hold spaces and parentheses: split after the last ')'.
        rest = text[text.rfind(b")") + 2:].split()
        try:
            stats[int(entry.name)] = (int(rest[1]), int(rest[11]) + int(rest[12]) + int(rest[13]) + int(rest[14]))
        except (IndexError, ValueError):
            continue
    return stats


def tree_ticks(roots: Iterable[int], proc: str | os.PathLike = "/proc") -> tuple[int, set[int]]:
    """CPU ticks of the processes `roots` and all their live descendants (each
    counted once), and their pids."""
    return _tree_ticks_of(_process_stats(Path(proc)), roots)


def _tree_ticks_of(stats: dict[int, tuple[int, int]], roots: Iterable[int]) -> tuple[int, set[int]]:
    """tree_ticks over one reading of /proc (so that several trees are read at one instant)."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    seen: set[int] = set()
    todo = [pid for pid in roots if pid in stats]
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        todo.extend(children.get(pid, ()))
    return sum(stats[pid][1] for pid in seen), seen


# ---------------------------------------------------------------------------
# The meter


class HostLoadMeter:
    """Foreign and steal CPU over one cell: start(), run it, stop() -> dict.
    Also a context manager (the dict is `.result` after the block).

    own_pids: processes of the run that are not descendants of this one (a
    server started elsewhere), as pids or a callable returning them (read at
    start and stop); add_own_pid() adds one during the cell."""

    def __init__(self, own_pids: Iterable[int] | Callable[[], Iterable[int]] = (), proc: str | os.PathLike = "/proc"):
        self.proc = Path(proc)
        self._own_pids = own_pids
        self._added: set[int] = set()
        self._start: tuple[float, int, int, int, int] | None = None
        self._unavailable = ""
        self.result: dict[str, Any] | None = None

    def add_own_pid(self, pid: int) -> None:
        self._added.add(int(pid))

    def _roots(self) -> set[int]:
        extra = self._own_pids() if callable(self._own_pids) else self._own_pids
        return {os.getpid(), *(int(pid) for pid in extra), *self._added, *run_root()}

    def _sample(self) -> tuple[float, int, int, int, int]:
        busy, interrupts, steal = read_cpu_ticks_detail(self.proc)
        stats = _process_stats(self.proc)  # one reading of /proc for both trees
        own, _ = _tree_ticks_of(stats, self._roots())
        kernel_threads, _ = _tree_ticks_of(stats, [KTHREADD_PID])
        return time.perf_counter(), busy, steal, own, kernel_threads + interrupts

    def start(self) -> HostLoadMeter:
        self.result = None
        try:
            self._start = self._sample()
        except (OSError, ValueError) as error:  # no /proc (not Linux), or one we cannot parse
            self._start, self._unavailable = None, f"cannot read {self.proc}: {error}"
        return self

    def stop(self) -> dict[str, Any]:
        if self._start is None:
            self.result = unavailable(self._unavailable or "the meter was not started")
            return self.result
        try:
            wall, busy, steal, own, kernel = self._sample()
        except (OSError, ValueError) as error:
            self.result = unavailable(f"cannot read {self.proc}: {error}")
            return self.result
        wall -= self._start[0]
        tick = 1.0 / _clock_ticks()
        busy_s, steal_s = (busy - self._start[1]) * tick, (steal - self._start[2]) * tick
        own_s = (own - self._start[3]) * tick
        # Kernel threads that exit during the cell take their ticks with them: at least 0.
        kernel_s = max(0.0, (kernel - self._start[4]) * tick)
        foreign_s = max(0.0, busy_s - own_s - kernel_s)
        self.result = {
            "foreign_cpu_seconds": round(foreign_s, 4),
            "foreign_cores": round(foreign_s / wall, 4) if wall > 0 else None,
            "steal_cores": round(steal_s / wall, 4) if wall > 0 else None,
            "kernel_cores": round(kernel_s / wall, 4) if wall > 0 else None,
            "kernel_cpu_seconds": round(kernel_s, 4),
            "wall_seconds": round(wall, 4),
            "busy_cpu_seconds": round(busy_s, 4),
            "own_cpu_seconds": round(own_s, 4),
            "steal_cpu_seconds": round(steal_s, 4),
        }
        return self.result

    def __enter__(self) -> HostLoadMeter:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def run_root() -> tuple[int, ...]:
    """The roots of the run's own tree the environment names (DBREPRO_RUN_ROOT_PID, pids
    separated by commas): the workflow's main process, so that the scheduler running the cell
    is not foreign load, and a duet's runner (dbrepro.duet), so that an arm's partner is not."""
    words = (word.strip() for word in os.environ.get(RUN_ROOT_ENV, "").split(","))
    return tuple(int(word) for word in words if word.isdigit() and int(word) > 1)


def unavailable(reason: str) -> dict[str, Any]:
    """A measurement that could not be made: None figures and the reason."""
    return {"foreign_cpu_seconds": None, "foreign_cores": None, "steal_cores": None, "unavailable": reason}


def over(load: dict[str, Any], max_foreign_cores: float | None) -> bool:
    """Whether a measurement exceeds the threshold (never, without one or without figures)."""
    if max_foreign_cores is None or load.get("foreign_cores") is None:
        return False
    return load["foreign_cores"] + (load.get("steal_cores") or 0.0) > max_foreign_cores


# ---------------------------------------------------------------------------
# Guarded cells


@dataclass
class Guarded:
    """A cell's kept attempt: its value, its measurement, the thresholds, and
    the measurements of the attempts discarded before it (nothing lost)."""

    value: Any
    load: dict[str, Any]
    max_foreign_cores: float | None
    max_reruns: int
    discarded: list[dict[str, Any]] = field(default_factory=list)

    @property
    def attempts(self) -> int:
        return len(self.discarded) + 1

    @property
    def disturbed(self) -> bool:
        return over(self.load, self.max_foreign_cores)

    def fields(self) -> dict[str, Any]:
        """The five fields: foreign_cpu_seconds, foreign_cores, steal_cores, attempts, disturbed."""
        return {"foreign_cpu_seconds": self.load.get("foreign_cpu_seconds"),
                "foreign_cores": self.load.get("foreign_cores"), "steal_cores": self.load.get("steal_cores"),
                "attempts": self.attempts, "disturbed": self.disturbed}

    def details(self) -> dict[str, Any]:
        """Everything measured: the kept attempt's figures, the thresholds, and each discarded attempt's."""
        return {**self.load, "max_foreign_cores": self.max_foreign_cores, "max_reruns": self.max_reruns,
                "discarded_attempts": list(self.discarded)}

    def cell_fields(self) -> dict[str, Any]:
        """What a cell's dict in a raw record gets: the five fields and `foreign_load` (details())."""
        return {**self.fields(), "foreign_load": self.details()}


def run_guarded(
    run_cell: Callable[[], Any],
    *,
    max_foreign_cores: float | None = None,
    max_reruns: int | None = None,
    own_pids: Iterable[int] | Callable[[], Iterable[int]] = (),
    meter: Callable[[], HostLoadMeter] | None = None,
    first: tuple[Any, dict[str, Any]] | None = None,
    measured_by_cell: bool = False,
) -> Guarded:
    """Run `run_cell()` under a meter; while the attempt is disturbed
    (foreign_cores + steal_cores > max_foreign_cores), run it again at once,
    at most `max_reruns` times. Returns the last attempt (disturbed if still
    over) with every earlier attempt's measurement.

    Thresholds not given come from settings() (the environment, else
    measure-only). `meter` makes a fresh meter per attempt (tests inject
    one); `first` is an attempt already run and measured, as (value,
    measurement), so only the reruns run here; measured_by_cell: run_cell
    meters itself and returns (value, measurement) (a window narrower than
    the call)."""
    max_foreign_cores, max_reruns = settings(max_foreign_cores, max_reruns)
    make_meter = meter or (lambda: HostLoadMeter(own_pids))
    attempt = run_cell if measured_by_cell else lambda: _attempt(run_cell, make_meter)
    streak = PersistentLoad.from_environment() if max_foreign_cores is not None else None
    persistent = streak is not None and streak.persistent()
    discarded: list[dict[str, Any]] = []
    if first is not None:
        value, load = first
    else:
        value, load = attempt()
    while over(load, max_foreign_cores) and len(discarded) < (0 if persistent else max_reruns):
        discarded.append({**load, "attempt": len(discarded) + 1})
        value, load = attempt()
    if persistent:
        load = {**load, "persistent_load": True}
    kept = Guarded(value, load, max_foreign_cores, max_reruns, discarded)
    if streak is not None and load.get("foreign_cores") is not None:
        streak.record(kept.disturbed)
    return kept


@dataclass
class PersistentLoad:
    """The run's streak of cells still disturbed after their reruns, in a small file."""

    path: Path
    after: int

    @classmethod
    def from_environment(cls) -> PersistentLoad | None:
        path, after = os.environ.get(LOAD_STATE_ENV, "").strip(), os.environ.get(PERSISTENT_AFTER_ENV, "").strip()
        if not path or not after:
            return None
        value = _number(PERSISTENT_AFTER_ENV, after)
        if not value.is_integer() or value < 1:
            raise ValueError(f"{PERSISTENT_AFTER_ENV}: must be an integer >= 1, got {after!r}")
        return cls(Path(path), int(value))

    def streak(self) -> int:
        try:
            return max(0, int(self.path.read_text(encoding="ascii").split()[0]))
        except (OSError, ValueError, IndexError):  # no file yet, or a torn one: no streak
            return 0

    def persistent(self) -> bool:
        return self.streak() >= self.after

    def record(self, disturbed: bool) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        temporary.write_text(f"{self.streak() + 1 if disturbed else 0}\n", encoding="ascii")
        os.replace(temporary, self.path)


def _attempt(run_cell: Callable[[], Any], make_meter: Callable[[], HostLoadMeter]) -> tuple[Any, dict[str, Any]]:
    meter = make_meter()
    meter.start()
    value = run_cell()
    return value, dict(meter.stop())


# ---------------------------------------------------------------------------
# Table rows


def row_columns(cell: dict[str, Any] | None) -> dict[str, Any]:
    """A table row's foreign-load columns from a cell's (or a record's host)
    dict; a record from before the meter: unmeasured (None), one attempt, not disturbed."""
    cell = cell or {}
    return {"foreign_cpu_seconds": cell.get("foreign_cpu_seconds"), "foreign_cores": cell.get("foreign_cores"),
            "steal_cores": cell.get("steal_cores"), "attempts": cell.get("attempts", 1),
            "disturbed": bool(cell.get("disturbed", False))}
