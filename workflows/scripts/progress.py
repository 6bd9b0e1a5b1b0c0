"""`make repro`'s progress: the workflow runs with its own output in a log
file, and this prints, every half minute and when a study finishes, one line
per study that has work left: jobs done of planned, what is running, and an
estimate of the time left; at the end, the log's path, and its last lines if
the workflow failed.

    python workflows/scripts/progress.py --log FILE [--every S] -- COMMAND...

The plan is the workflow's own "Job stats" table (the jobs this invocation
will run), each job counted in the study its rule belongs to
(study_times.group_of, the grouping of logs/times.csv). The estimate for a
study is its jobs left times the mean time of its jobs finished so far;
before its first job finishes, the same study's busy time in the committed
reference run (reference/times-quick.csv, scaled by its share of jobs), and
"unknown" where there is none. Studies share the machine, so the largest
estimate is the wait, not their sum. A line of the log that starts with
"dbrepro:" (the workflow's words to its reader) is printed as it comes.
Ctrl-C reaches the workflow, which stops
its jobs as it always does (make repro again resumes).
"""
from __future__ import annotations

import argparse
import csv
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from study_times import _FINISHED, _JOBID, _STAMP, _START, group_of  # one parser of the log

REPO = Path(__file__).resolve().parents[2]
REFERENCE_TIMES = REPO / "reference" / "times-quick.csv"
_STATS_ROW = re.compile(r"^(\w+)\s+(\d+)$")
TAIL_ON_FAILURE = 40
PASS_THROUGH = "dbrepro:"  # the workflow's own words to its reader (a variation's note) go to the terminal too
SHARED = "shared"  # jobs of no one study: cell settings, repeat barriers, figures, claims


@dataclass
class Study:
    planned: int = 0
    done: int = 0
    running: dict = field(default_factory=dict)  # jobid -> rule
    finished_s: list = field(default_factory=list)


class Progress:
    """What the workflow's log says so far, read incrementally."""

    def __init__(self, reference: dict[str, tuple[int, float]] | None = None):
        self.studies: dict[str, Study] = {}
        self.reference = reference or {}
        self._stamp: datetime | None = None
        self._started: dict[str, tuple[str, datetime | None]] = {}
        self._rule: str | None = None
        self._in_stats = False

    def study(self, name: str) -> Study:
        return self.studies.setdefault(name, Study())

    def feed(self, line: str) -> None:
        line = line.rstrip("\n")
        if line.startswith("Job stats:"):
            self._in_stats = True
            for study in self.studies.values():
                study.planned = study.done  # a new plan (a resumed or re-evaluated graph): what is left
            return
        if self._in_stats:
            row = _STATS_ROW.match(line.strip())
            if row and row.group(1) != "total":
                self.study(group_of(row.group(1))).planned += int(row.group(2))
            elif not line.strip() and any(s.planned for s in self.studies.values()):
                self._in_stats = False
            return
        stamp = _STAMP.match(line)
        if stamp:
            self._stamp = datetime.strptime(stamp.group(1), "%a %b %d %H:%M:%S %Y")
            return
        start = _START.match(line)
        if start:
            self._rule = start.group(1)
            return
        job = _JOBID.match(line)
        if job and self._rule:
            self._started[job.group(1)] = (self._rule, self._stamp)
            self.study(group_of(self._rule)).running[job.group(1)] = self._rule
            self._rule = None
            return
        finished = _FINISHED.match(line)
        if finished:
            jobid, rule = finished.groups()
            study = self.study(group_of(rule))
            study.running.pop(jobid, None)
            study.done += 1
            began = self._started.pop(jobid, (rule, None))[1]
            if began and self._stamp:
                study.finished_s.append((self._stamp - began).total_seconds())

    def left_s(self, name: str) -> float | None:
        study = self.studies[name]
        remaining = max(study.planned - study.done, 0)
        if study.finished_s:
            return remaining * sum(study.finished_s) / len(study.finished_s)
        if name in self.reference and self.reference[name][0]:
            jobs, busy = self.reference[name]
            return busy * remaining / jobs
        return None

    def lines(self) -> list[str]:
        out = []
        for name, study in sorted(self.studies.items()):
            running = sorted(set(study.running.values()))
            beyond = study.done >= study.planned
            if (study.planned == 0 or beyond) and not running:
                continue
            doing = f"running {', '.join(running)}" if running else "waiting"
            if beyond:  # jobs a checkpoint added after the plan was printed (workflows/sequential.smk)
                estimate = "beyond the plan: a look's or a makeup's extra repeats"
            else:
                left = self.left_s(name)
                estimate = f"~{_minutes(left)} left" if left is not None else "time left unknown"
            label = SHARED if name == "other" else name
            out.append(f"  {label:<14} {study.done:>4}/{study.planned:<4} {doing}; {estimate}")
        return out

    def finished_studies(self) -> set[str]:
        return {n for n, s in self.studies.items() if s.planned and s.done >= s.planned}


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 120 else f"{seconds:.0f} s"


def reference_times(path: Path = REFERENCE_TIMES) -> dict[str, tuple[int, float]]:
    """{study: (jobs, busy_s)} of the committed reference run; empty where it is absent."""
    if not path.is_file():
        return {}
    with path.open(encoding="utf-8") as file:
        return {row["study"]: (int(row["jobs"]), float(row["busy_s"])) for row in csv.DictReader(file)}


def run(command: list[str], log: Path, every: float = 30.0, out=sys.stdout) -> int:
    log.parent.mkdir(parents=True, exist_ok=True)
    progress = Progress(reference_times())
    print(f"workflow: {' '.join(command[:3])} ...; its output: {log}", file=out, flush=True)
    with log.open("w", encoding="utf-8") as sink:
        child = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, start_new_session=False)
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the child (same group)
        try:
            with log.open(encoding="utf-8", errors="replace") as reader:
                shown, last = set(), 0.0
                while True:
                    code = child.poll()
                    for line in reader:
                        progress.feed(line)
                        if line.startswith(PASS_THROUGH):
                            print(line.rstrip("\n"), file=out, flush=True)
                    done = progress.finished_studies() - shown
                    for name in sorted(done - {"other"}):
                        print(f"{time.strftime('%H:%M:%S')} {name}: done", file=out, flush=True)
                    shown |= done
                    now = time.monotonic()
                    if code is not None:
                        break
                    if now - last >= every:
                        lines = progress.lines()
                        if lines:
                            print(f"{time.strftime('%H:%M:%S')} progress:", *lines, sep="\n", file=out, flush=True)
                        last = now
                    time.sleep(1.0)
        finally:
            signal.signal(signal.SIGINT, previous)
    if code != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").splitlines()[-TAIL_ON_FAILURE:]
        print(f"workflow failed (exit {code}); the last {len(tail)} lines of {log}:", *tail, sep="\n", file=out)
    else:
        print(f"workflow: done; its output: {log}", file=out, flush=True)
    return code


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        print("progress: usage: progress.py --log FILE [--every S] -- COMMAND...", file=sys.stderr)
        return 2
    split = argv.index("--")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, required=True, help="where the workflow's own output goes")
    parser.add_argument("--every", type=float, default=30.0, help="seconds between progress lines (default 30)")
    args = parser.parse_args(argv[:split])
    command = argv[split + 1:]
    if not command:
        print("progress: no command after --", file=sys.stderr)
        return 2
    if args.every <= 0:
        print("progress: --every must be > 0", file=sys.stderr)
        return 2
    return run(command, args.log, args.every)


if __name__ == "__main__":
    sys.exit(main())
