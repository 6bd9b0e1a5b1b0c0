"""Duet pairs: the two arms of a single-terminal comparison run at the same
time, one pinned to each CPU (Bulej, Horký, Tůma et al., "Duet Benchmarking:
Improving Measurement Accuracy in the Cloud", ICPE 2020).

    >>> from dbrepro import duet
    >>> arms = [duet.Arm("ladder_step10", duet.study_argv("tpcc", "s10.json", "s10.out.json"), "s10.out.json"),
    ...         duet.Arm("ladder_step11", duet.study_argv("tpcc", "s11.json", "s11.out.json"), "s11.out.json")]
    >>> done = duet.run(arms, repeat=1)          # both at once, step 10 on the first CPU
    >>> done.cpus                                # (0, 1); repeat 2 swaps them: (1, 0)

Why: run one after the other on a shared machine, the two arms of a pair meet
different neighbours (another tenant's burst, the host's other vCPUs, memory
bandwidth), and their ratio carries that difference. Run at once, both see
the same moment; what one arm costs the other (the shared L3 cache and memory
bandwidth) is measured by an A/A duet, the same cell on both CPUs
(benchmarks/cell_spread.py, reference/cell_spread-*.csv).

Each arm is its own process (`dbrepro run STUDY --settings ... --out ...`,
the command a sequential cell runs), started together and pinned with
os.sched_setaffinity before it execs; arm A runs on the first CPU in odd
repeats and on the second in even ones, so that a difference between the
CPUs falls on both arms alike over the repeats. Each record gets `duet` in
its metrics (mode, repeat, arm, cell, partner, cpu, partner_cpu, the
affinity read back from the running process, whether the start gate held,
and how much the two engine calls' windows overlapped: `overlap`, the whole
calls, and `measured_overlap`, their measured phases where a record tells
them). Each arm loads its own database first, which takes a different time
per arm; so that their measured phases start together, a cell whose
settings stop at the start gate (gated_settings: the engine calls back once
at the end of a short warm-up) tells this runner it is ready there and
waits, and both go at once (`gated` in the record; the go's time is
`start_gate_unix` in the record's host).

Foreign load (dbrepro.host_load): the partner is this run's own process, not
another tenant's. The arms measure their own window with this runner added to
their run's roots (DBREPRO_RUN_ROOT_PID), and the duet as a whole is metered
and guarded here: a disturbed duet runs again, both arms, at most max_reruns
times, and both records carry the duet's five fields (each arm's own
measurement kept beside them as `arm_foreign_load`). An arm alone is never
rerun: that would break the pair.

Fewer than two CPUs: the arms run one after the other on the one CPU (mode
`sequential`, the reason in the record).

Stopped (Ctrl-C, SIGTERM, SIGHUP) or failed, a duet keeps no record: the runner
kills its arms, waits for them and removes both records, so that neither an arm
writing after its job has ended nor a record without its pair passes for a whole
duet's; each arm also ends with the runner when that is killed outright
(SIGKILL), before it writes. A resumed workflow runs the duet again, both arms.

Layouts (`layout`, LAYOUTS): `split`, one arm pinned to each CPU, is the
workflow's; `shared` pins both to one CPU (the first in odd repeats, the
second in even), where they take turns, and `free` leaves both unpinned.
What each gives on a loaded 2-vCPU machine: docs/verdicts.md, "Duet pairs".

Command line (what the workflow calls):

    python -m dbrepro duet tpcc --repeat 3 --settings a.json b.json --out a.out.json b.out.json
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from . import host_load
from .children import die_with_parent

MODES = ("duet", "sequential")
# Where a duet's arms run: split (one pinned to each CPU, the default), shared (both at once
# pinned to one CPU, taking turns on it), free (both at once, unpinned: the scheduler places them).
LAYOUTS = ("split", "shared", "free")
# Studies whose cells a duet runs, and the options their run command takes beside --settings and --out.
STUDY_OPTIONS = {"tpcc": ("--no-progress",), "fifo_cache": ()}


# The start gate: an arm's last warm-up transaction is followed by the engine's one progress
# call of its warm-up (progress_every == warmup_transactions), before its measured phase; there
# the arm tells its runner it is ready and waits for the go that both arms get at once.
GATE_ENV = "DBREPRO_DUET_GATE"  # "READY_FD,GO_FD": the arm's ends of its two pipes to the runner
GATE_WARMUP = 100  # warm-up transactions (and progress_every) of a gated cell that has no warm-up of its own
GATE_TIMEOUT_SECONDS = 600.0  # an arm not ready by then: the other is let go (the record says so)


def gated_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """A cell's settings with the start gate's: progress_every equal to warmup_transactions
    (GATE_WARMUP of both where the cell has no warm-up), so the engine calls back once at
    the end of the warm-up, when the measured phase is about to start, and then every
    that many transactions (checked here at step 11, the fastest: a call after every
    transaction did not move its CPU time per transaction beyond its run-to-run spread)."""
    warmup = int(settings.get("warmup_transactions") or 0) or GATE_WARMUP
    return {**settings, "warmup_transactions": warmup, "progress_every": warmup}


def is_gated(settings: dict[str, Any]) -> bool:
    """Whether a cell's settings stop at the start gate (gated_settings)."""
    warmup = int(settings.get("warmup_transactions") or 0)
    return warmup > 0 and int(settings.get("progress_every") or 0) == warmup


class StartGate:
    """An arm's side of the gate (from GATE_ENV): at the engine's progress call at the end of
    the warm-up (no measured transaction yet), say ready and wait for the runner's go."""

    def __init__(self, ready_fd: int, go_fd: int):
        self.ready_fd, self.go_fd = ready_fd, go_fd
        self.passed_unix: float | None = None

    @classmethod
    def from_environment(cls) -> StartGate | None:
        text = os.environ.pop(GATE_ENV, "").strip()  # popped: a child of the arm is not gated
        if not text:
            return None
        ready, go = (int(word) for word in text.split(","))
        return cls(ready, go)

    def wait(self) -> None:
        try:
            os.write(self.ready_fd, b"r")
            os.read(self.go_fd, 1)  # the go, or end of file if the runner went away
        finally:
            os.close(self.ready_fd)
            os.close(self.go_fd)
            self.passed_unix = time.time()

    def wrap(self, callback: Callable[[int, int], bool] | None) -> Callable[[int, int], bool]:
        """The engine's progress callback: the gate at the first call with nothing measured, then `callback`."""
        def gated(done: int, total: int) -> bool:
            if self.passed_unix is None and done == 0:
                self.wait()
            return True if callback is None else callback(done, total)
        return gated


class DuetError(RuntimeError):
    """An arm failed (its exit status and output are in the message)."""


@dataclass(frozen=True)
class Arm:
    """One arm: the cell's name, the command that runs it, the record it writes."""

    cell: str
    argv: tuple[str, ...]
    out: Path
    gated: bool = False  # its settings stop at the start gate (gated_settings)

    def __init__(self, cell: str, argv: Sequence[str], out: str | os.PathLike, gated: bool = False):
        object.__setattr__(self, "cell", str(cell))
        object.__setattr__(self, "argv", tuple(str(a) for a in argv))
        object.__setattr__(self, "out", Path(out))
        object.__setattr__(self, "gated", bool(gated))


@dataclass
class DuetResult:
    """What one duet did: its mode, each arm's CPU and exit status, the kept attempt's foreign load."""

    mode: str
    repeat: int
    arms: list[Arm]
    cpus: tuple[int | None, ...]  # each arm's CPU (None: unpinned, layout free)
    returncodes: list[int]
    guarded: host_load.Guarded | None = None
    reason: str = ""
    affinity: list[list[int]] = field(default_factory=list)
    gated: bool = False  # both arms' measured phases started at the start gate's go
    layout: str = "split"

    @property
    def returncode(self) -> int:
        return max(self.returncodes, default=0)


def pairs(cells: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Cells in duets, two by two in order; one left over is a one-cell tuple (it runs alone)."""
    cells = list(cells)
    return [tuple(cells[i:i + 2]) for i in range(0, len(cells), 2)]


def study_argv(study: str, settings: str | os.PathLike, out: str | os.PathLike,
               python: str = sys.executable) -> list[str]:
    """The command a sequential cell of `study` runs: `python -m dbrepro run STUDY --settings S --out O`."""
    if study not in STUDY_OPTIONS:
        raise ValueError(f"study: a duet runs {', '.join(STUDY_OPTIONS)} cells, not {study!r}")
    return [python, "-m", "dbrepro", "run", study, "--settings", str(settings), "--out", str(out),
            *STUDY_OPTIONS[study]]


def available_cpus() -> list[int]:
    """The CPUs this process may run on, lowest first."""
    return sorted(os.sched_getaffinity(0))


def pick_cpus(cpus: Sequence[int] | None = None) -> tuple[int, ...]:
    """The two CPUs of a duet: those given, else the lowest two this process may run on
    (one where it may run on only one)."""
    allowed = available_cpus()
    if cpus is None:
        return tuple(allowed[:2])
    chosen = tuple(int(c) for c in cpus)
    if not 1 <= len(chosen) <= 2 or len(set(chosen)) != len(chosen):
        raise ValueError(f"cpus: one or two different CPUs, got {list(cpus)!r}")
    outside = [c for c in chosen if c not in allowed]
    if outside:
        raise ValueError(f"cpus: {outside} not among the CPUs this process may use ({allowed})")
    return chosen


def placement(repeat: int, cpus: Sequence[int]) -> tuple[int, int]:
    """Each arm's CPU in `repeat` (numbered from 1): arm A on the first CPU in odd
    repeats and on the second in even ones, arm B on the other (both on the one CPU
    where there is one)."""
    if repeat < 1:
        raise ValueError(f"repeat: numbered from 1, got {repeat}")
    if len(cpus) < 2:
        return (cpus[0], cpus[0])
    return (cpus[0], cpus[1]) if repeat % 2 == 1 else (cpus[1], cpus[0])


def arm_environment(base: dict[str, str] | None = None, runner_pid: int | None = None) -> dict[str, str]:
    """An arm's environment: it only measures its foreign load (the duet is guarded as a
    whole), and this runner is among its run's roots, so that its partner is its own."""
    env = dict(os.environ if base is None else base)
    env[host_load.MAX_FOREIGN_ENV] = ""
    env[host_load.MAX_RERUNS_ENV] = "0"
    env[host_load.PERSISTENT_AFTER_ENV] = ""
    roots = [r for r in env.get(host_load.RUN_ROOT_ENV, "").split(",") if r.strip()]
    env[host_load.RUN_ROOT_ENV] = ",".join([*roots, str(runner_pid or os.getpid())])
    return env


def _arm_setup(cpu: int | None) -> Callable[[], None]:
    """In the arm's child, before exec: it ends with this runner (also when the runner is
    killed with SIGKILL: no arm keeps writing after its duet has stopped), and it runs on
    `cpu` from its first instruction (None, layout free: the scheduler places it)."""
    def setup() -> None:
        die_with_parent()
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
    return setup


def _start_arm(arm: Arm, cpu: int | None, env: dict[str, str], output,
               gate: tuple[int, int] | None = None) -> subprocess.Popen:
    if gate is not None:
        env = {**env, GATE_ENV: f"{gate[0]},{gate[1]}"}
    return subprocess.Popen(list(arm.argv), env=env, stdout=output, stderr=subprocess.STDOUT,
                            preexec_fn=_arm_setup(cpu), pass_fds=gate or ())


def _stop(processes: Sequence[subprocess.Popen]) -> None:
    """Arms cut off (Ctrl-C, SIGTERM, an error here) are killed and waited for: none
    writes its record after its duet has stopped."""
    for process in processes:
        if process.poll() is None:
            process.kill()
    for process in processes:
        process.wait()


def _open_gates(processes: Sequence[subprocess.Popen], ready: Sequence[int], go: Sequence[int],
                timeout: float = GATE_TIMEOUT_SECONDS) -> bool:
    """Waits until every arm is ready (or has ended, or the timeout passed), then lets all
    go at once; whether every arm was ready."""
    import select

    waiting, all_ready = set(ready), True
    deadline = time.monotonic() + timeout
    while waiting:
        readable, _, _ = select.select(list(waiting), [], [], max(0.0, deadline - time.monotonic()))
        if not readable:
            all_ready = False
            break
        for fd in readable:
            if os.read(fd, 1) != b"r":  # end of file: the arm ended (or failed) before its gate
                all_ready = False
            waiting.discard(fd)
    for fd in go:
        try:
            os.write(fd, b"g")
        except BrokenPipeError:  # that arm has ended
            pass
    return all_ready and not any(p.poll() is not None for p in processes)


def _run_arms(arms: Sequence[Arm], cpus: Sequence[int], together: bool, env: dict[str, str],
              echo) -> tuple[list[int], list[list[int]], bool]:
    """Runs the arms (together, or one after the other), each pinned to its CPU; together and
    gated, their measured phases start at once (the start gate). Their exit statuses, the
    affinity each process had while it ran, and whether both passed the gate together."""
    codes: list[int] = []
    affinity: list[list[int]] = []
    gated = [False]
    for arm in arms:  # a record left from an earlier attempt must not pass for this one's
        arm.out.unlink(missing_ok=True)
    started: list[subprocess.Popen] = []  # every arm process of this attempt, to stop if it is cut off

    def start(arm: Arm, cpu: int | None, output, gate: tuple[int, int] | None = None) -> subprocess.Popen:
        started.append(_start_arm(arm, cpu, env, output, gate))
        return started[-1]

    with tempfile.TemporaryDirectory(prefix="dbrepro_duet_") as tmp:
        outputs = [open(Path(tmp) / f"arm{i}.log", "w+b") for i in range(len(arms))]
        try:
            if together and all(arm.gated for arm in arms):
                pipes = [(os.pipe(), os.pipe()) for _ in arms]  # (ready r, ready w), (go r, go w)
                processes = [start(arm, cpu, out, gate=(ready[1], go[0]))
                             for arm, cpu, out, (ready, go) in zip(arms, cpus, outputs, pipes)]
                for ready, go in pipes:  # the arms' ends are theirs now
                    os.close(ready[1])
                    os.close(go[0])
                affinity = [_affinity_of(p.pid) for p in processes]
                try:
                    gated[0] = _open_gates(processes, [ready[0] for ready, _ in pipes], [go[1] for _, go in pipes])
                finally:
                    for ready, go in pipes:
                        os.close(ready[0])
                        os.close(go[1])
                codes = [p.wait() for p in processes]
            elif together:
                processes = [start(arm, cpu, out) for arm, cpu, out in zip(arms, cpus, outputs)]
                affinity = [_affinity_of(p.pid) for p in processes]
                codes = [p.wait() for p in processes]
            else:
                for arm, cpu, out in zip(arms, cpus, outputs):
                    process = start(arm, cpu, out)
                    affinity.append(_affinity_of(process.pid))
                    codes.append(process.wait())
            for arm, cpu, code, out in zip(arms, cpus, codes, outputs):
                out.seek(0)
                text = out.read().decode(errors="replace")
                echo(f"== {arm.cell} (cpu {cpu}, exit {code}) ==\n{text}")
                # 1 with a record: a consistency check failed (the record says which); else the arm failed.
                if code not in (0, 1) or not arm.out.is_file():
                    # The arm's own one line, once: without its program's prefix, under the duet's.
                    last = (text.strip().splitlines() or [""])[-1]
                    last = last.split(": error: ", 1)[1] if ": error: " in last else last
                    raise DuetError(f"arm {arm.cell}: exit status {code}, no record written: {last}" if code in (0, 1)
                                    else f"arm {arm.cell}: exit status {code}: {last}")
        except BaseException:
            _stop(started)
            raise
        finally:
            for out in outputs:
                out.close()
    return codes, affinity, gated[0]


def _affinity_of(pid: int) -> list[int]:
    """The CPUs a started arm may run on (read back: the pin took), [] if it has already gone."""
    try:
        return sorted(os.sched_getaffinity(pid))
    except OSError:
        return []


def run(
    arms: Sequence[Arm],
    repeat: int,
    *,
    cpus: Sequence[int] | None = None,
    max_foreign_cores: float | None = None,
    max_reruns: int | None = None,
    echo: Callable[[str], Any] = print,
    layout: str = "split",
) -> DuetResult:
    """Runs one duet in `repeat`, guarded against foreign load as a whole (thresholds:
    the arguments, else the environment, as every timed cell), then adds `duet` and the
    duet's foreign load to each arm's record. `layout` (LAYOUTS): split, the workflow's;
    shared and free are there to be measured against it (benchmarks/cell_spread.py)."""
    arms = list(arms)
    if len(arms) != 2:
        raise ValueError(f"arms: a duet has two arms, got {len(arms)}")
    if layout not in LAYOUTS:
        raise ValueError(f"layout: one of {', '.join(LAYOUTS)}, got {layout!r}")
    chosen = pick_cpus(cpus)
    placed = placement(repeat, chosen)
    if layout == "shared":
        placed = (placed[0], placed[0])  # the first CPU in odd repeats, the second in even
    elif layout == "free":
        placed = (None, None)
    if len(chosen) < 2 and layout == "split":
        mode, reason = "sequential", f"one CPU available ({chosen[0]}): the arms ran one after the other on it"
    else:
        mode, reason = "duet", "" if layout == "split" else f"layout {layout}"
    env = arm_environment()
    outcome: dict[str, Any] = {}

    def attempt() -> None:
        outcome["codes"], outcome["affinity"], outcome["gated"] = _run_arms(arms, placed, mode == "duet", env, echo)

    try:
        kept = host_load.run_guarded(attempt, max_foreign_cores=max_foreign_cores, max_reruns=max_reruns)
        result = DuetResult(mode, repeat, arms, placed, outcome["codes"], kept, reason, outcome["affinity"],
                            outcome["gated"], layout)
        annotate(result)
    except BaseException:
        # A duet that failed or was stopped (Ctrl-C, SIGTERM) leaves neither record: one without
        # its pair, or without the pair's fields, must not pass for a whole duet's (a resumed
        # workflow finds the job's outputs missing and runs the duet again, both arms).
        for arm in arms:
            arm.out.unlink(missing_ok=True)
        raise
    return result


def annotate(result: DuetResult) -> None:
    """Adds `duet` (and the duet's foreign load) to each arm's record."""
    from .records import read_record, write_record

    records = [read_record(arm.out) for arm in result.arms]
    overlap = _overlap([_window(record) for record in records])
    measured_overlap = _overlap([_window(record, measured=True) for record in records])
    for index, (arm, record) in enumerate(zip(result.arms, records)):
        other = 1 - index
        record["metrics"]["duet"] = {
            "mode": result.mode,
            "repeat": result.repeat,
            "arm": "ab"[index],
            "cell": arm.cell,
            "partner": result.arms[other].cell,
            "cpu": result.cpus[index],
            "partner_cpu": result.cpus[other],
            "affinity": result.affinity[index] if index < len(result.affinity) else [],
            "layout": result.layout,
            "gated": result.gated,
            "overlap": overlap,
            "measured_overlap": measured_overlap,
            "reason": result.reason,
        }
        if result.guarded is not None:
            host = record["metrics"].setdefault("host", {})
            host["arm_foreign_load"] = {name: host.get(name) for name in (*host_load.FIELDS, "foreign_load")}
            host.update(result.guarded.cell_fields())
        write_record(record, arm.out)


def _window(record: dict[str, Any], measured: bool = False) -> tuple[float, float] | None:
    """The engine call's wall-clock window (load, measured phase, checks) of a record, if it
    has one; measured: its measured phase's (from the start gate's go, else from the end of
    the load in a run without warm-up, whose phase follows the load at once), else None."""
    metrics = record.get("metrics", {})
    host = metrics.get("host", {})
    start, end = host.get("started_unix"), host.get("ended_unix")
    if start is None or end is None:
        return None
    if not measured:
        return float(start), float(end)
    gate, load, elapsed = host.get("start_gate_unix"), metrics.get("load_seconds"), metrics.get("elapsed_seconds")
    if elapsed is None:
        return None
    if gate is not None:  # the measured phase started at the gate's go
        return float(gate), float(gate) + float(elapsed)
    if load is None or record.get("config", {}).get("warmup_transactions"):
        return None
    return float(start) + float(load), float(start) + float(load) + float(elapsed)


def _overlap(windows: Sequence[tuple[float, float] | None]) -> float | None:
    """The share of the longer window during which the other ran too (1: fully together)."""
    if any(w is None for w in windows):
        return None
    (a0, a1), (b0, b1) = windows
    longest = max(a1 - a0, b1 - b0)
    return round(max(0.0, min(a1, b1) - max(a0, b0)) / longest, 4) if longest > 0 else None


# ---------------------------------------------------------------------------
# Command line


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (no usage dump)
        self.exit(2, f"{self.prog}: error: {message.removeprefix('argument ')}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="dbrepro duet",
        description="Run two cells of one study at once, one pinned to each CPU (a duet), and "
                    "add the pair to both records. Exit status: the worse of the arms' (0 ok, 1 a "
                    "consistency check failed, records written), 2 bad arguments or an arm failed, 128+N "
                    "stopped by signal N (the arms stopped, no record kept).")
    parser.add_argument("study", choices=sorted(STUDY_OPTIONS), help="the cells' study (its run command)")
    parser.add_argument("--repeat", type=int, required=True, metavar="R",
                        help="the repeat (from 1): arm A runs on the first CPU in odd repeats, the second in even")
    parser.add_argument("--settings", nargs=2, required=True, metavar="FILE.json",
                        help="the two arms' settings files (A, then B); each cell is named by its stem")
    parser.add_argument("--out", nargs=2, required=True, metavar="FILE.json", help="the two arms' records")
    parser.add_argument("--cpus", nargs=2, type=int, default=None, metavar="CPU",
                        help="the two CPUs (default: the lowest two this process may use)")
    parser.add_argument("--layout", choices=LAYOUTS, default="split",
                        help="split: one arm pinned to each CPU; shared: both pinned to one CPU (the first in "
                             "odd repeats), taking turns; free: both unpinned")
    return parser


def _settings_of(path: str) -> dict[str, Any]:
    import json

    try:
        with open(path, encoding="utf-8") as file:
            return json.load(file)
    except (OSError, ValueError):
        return {}  # the arm's own command says what is wrong with it


def _exit_on_signal(signum, _frame):
    # SIGTERM or SIGHUP (a workflow or batch system stopping the job) would end this runner
    # at once, its arms left running; as an exception, run() stops them and removes the records.
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _exit_on_signal)
    arms = [Arm(Path(s).stem, study_argv(args.study, s, o), o, gated=is_gated(_settings_of(s)))
            for s, o in zip(args.settings, args.out)]
    try:
        done = run(arms, args.repeat, cpus=args.cpus, echo=lambda text: print(text, flush=True), layout=args.layout)
    except (ValueError, DuetError) as error:
        print(f"dbrepro duet: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("dbrepro duet: interrupted; the arms stopped, no record kept", file=sys.stderr)
        return 128 + signal.SIGINT
    pairs = ", ".join(f"{arm.cell} on cpu {cpu}" for arm, cpu in zip(done.arms, done.cpus))
    print(f"duet ({done.mode}, repeat {done.repeat}): {pairs}; attempts {done.guarded.attempts}, "
          f"disturbed {done.guarded.disturbed}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
