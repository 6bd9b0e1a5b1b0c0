"""`make repro`'s progress: the workflow runs with its own output in a log
file, and this prints, once the workflow has planned its jobs, how long the
run should take on this kind of machine, then every half minute and when a
study finishes, one line for the whole run and one per study with work left:
jobs done of planned, what is running, and the time left; at the end, the
log's path, and its last lines if the workflow failed.

    python workflows/scripts/progress.py --log FILE [--profile P] [--every S] -- COMMAND...

The plan is the workflow's own "Job stats" table (the jobs this invocation
will run), each job counted in the study its rule belongs to; the whole
run's line counts the shared jobs too (each cell's settings, the repeat
barriers, the looks, figures and claims: rules of no one study). The time
left (dbrepro.time_left) counts the wait for the `timed` resource: timed jobs
run one at a time across all studies, so the run has at least the timed work
left in all of them together, and a study waits for the others' repeats as
long as it has repeats of its own. It starts from the committed runs of this
machine's kind and the profile (dbrepro.run_times; --profile) and is
corrected by every job that finishes. A line of the log that starts with
"dbrepro:" (the workflow's words to its reader) is printed as it comes.
Ctrl-C reaches the workflow, which stops its jobs as it always does (make
repro again resumes).
"""
from __future__ import annotations

import argparse
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

from dbrepro import run_times
from dbrepro.run_times import minutes
from dbrepro.time_left import TimeLeft
from dbrepro.workflow_log import SHARED, WorkflowLog

TAIL_ON_FAILURE = 40
PASS_THROUGH = "dbrepro:"  # the workflow's own words to its reader (a variation's note) go to the terminal too
WHOLE = "whole run"


class Progress:
    """What the workflow's log says so far, read incrementally, and the time left."""

    def __init__(self, expectation: run_times.Expectation | None = None, timed: set[str] | None = None):
        self.log = WorkflowLog()
        self.expectation = expectation
        self.time_left = TimeLeft(self.log, expectation.job_s if expectation else None,
                                  expectation.total_s if expectation else None, timed)

    def feed(self, line: str) -> None:
        self.log.feed(line)

    def planned(self) -> bool:
        return bool(self.log.plan) and not self.log.in_plan

    def now_s(self) -> float:
        """Seconds since the log's first time stamp, by this machine's clock (the log's stamps are local)."""
        return (datetime.now() - self.log.first).total_seconds() if self.log.first else 0.0

    def plan_line(self) -> str:
        estimate = self.time_left.estimate(0.0)
        basis = f" ({self.expectation.basis})" if self.expectation and self.expectation.total_s else ""
        left = f"~{minutes(estimate.left_s)} on this kind{basis}" if estimate.left_s is not None else (
            "time unknown until its first jobs finish: no committed run of this profile on a near kind")
        return f"plan: {estimate.planned} jobs; {left}"

    def lines(self, now_s: float | None = None) -> list[str]:
        estimate = self.time_left.estimate(now_s)
        shared = estimate.studies.get(SHARED)
        timed_left = sum(s.timed_s or 0.0 for s in estimate.studies.values())
        if estimate.left_s is None:
            whole = "time left unknown until a job finishes"
        else:
            whole = f"~{minutes(estimate.left_s)} left"
            if timed_left >= 60:
                whole += f", of it ~{minutes(timed_left)} timed runs (one at a time)"
        also = f" ({shared.planned} of them shared: settings, barriers, looks, figures, claims)" if shared else ""
        out = [f"  {WHOLE:<14} {estimate.done}/{estimate.planned} jobs{also}; {whole}"]
        for name, study in estimate.studies.items():
            beyond = study.done >= study.planned
            if name == SHARED or ((study.planned == 0 or beyond) and not study.running):
                continue
            doing = f"running {', '.join(study.running)}" if study.running else "waiting"
            if beyond:  # jobs a checkpoint added after the plan was printed (workflows/sequential.smk)
                left = "beyond the plan: a look's or a makeup's extra repeats"
            elif study.left_s is None:
                left = "time left unknown until a job of it finishes"
            else:
                left = f"~{minutes(study.left_s)} left"
            out.append(f"  {name:<14} {study.done}/{study.planned} {doing}; {left}")
        return out

    def finished_studies(self) -> set[str]:
        estimate = self.time_left.estimate()
        return {n for n, s in estimate.studies.items() if n != SHARED and s.planned and s.finished}


def run(command: list[str], log: Path, every: float = 30.0, out=sys.stdout,
        expectation: run_times.Expectation | None = None) -> int:
    log.parent.mkdir(parents=True, exist_ok=True)
    progress = Progress(expectation)
    print(f"workflow: {' '.join(command[:3])} ...; its output: {log}", file=out, flush=True)
    with log.open("w", encoding="utf-8") as sink:
        child = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, start_new_session=False)
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the child (same group)
        try:
            with log.open(encoding="utf-8", errors="replace") as reader:
                shown, last, told = set(), time.monotonic(), False
                while True:
                    code = child.poll()
                    for line in reader:
                        progress.feed(line)
                        if line.startswith(PASS_THROUGH):
                            print(line.rstrip("\n"), file=out, flush=True)
                    if not told and progress.planned():
                        print(progress.plan_line(), file=out, flush=True)
                        told = True
                    done = progress.finished_studies() - shown
                    for name in sorted(done):
                        print(f"{time.strftime('%H:%M:%S')} {name}: done", file=out, flush=True)
                    shown |= done
                    now = time.monotonic()
                    if code is not None:
                        break
                    if told and now - last >= every:
                        print(f"{time.strftime('%H:%M:%S')} progress:", *progress.lines(progress.now_s()),
                              sep="\n", file=out, flush=True)
                        last = now
                    time.sleep(min(1.0, every))
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
        print("progress: usage: progress.py --log FILE [--profile P] [--every S] -- COMMAND...", file=sys.stderr)
        return 2
    split = argv.index("--")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log", type=Path, required=True, help="where the workflow's own output goes")
    parser.add_argument("--every", type=float, default=30.0, help="seconds between progress lines (default 30)")
    parser.add_argument("--profile", default="",
                        help="the workflow's profile: its committed runs on this kind start the estimate")
    args = parser.parse_args(argv[:split])
    command = argv[split + 1:]
    if not command:
        print("progress: no command after --", file=sys.stderr)
        return 2
    if args.every <= 0:
        print("progress: --every must be > 0", file=sys.stderr)
        return 2
    expectation = run_times.expect_here(args.profile) if args.profile else None
    return run(command, args.log, args.every, expectation=expectation)


if __name__ == "__main__":
    sys.exit(main())
