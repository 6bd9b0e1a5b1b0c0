"""Snakemake's log of a workflow run, read a line at a time as it grows: the
plan (its "Job stats" table), the cores it was given, and each job's rule,
study, start, end and whether it holds the `timed` resource (timed jobs run
one at a time across all studies; with `timed_runs_alone` a timed job also
claims every core, which its "threads:" line shows).

A job belongs to the group its rule's name starts with (a study of
dbrepro.studies, or the workflow's own summary, paper and report); a rule of
no one study (cell settings, repeat barriers, looks, figures, claims) is
"shared", and its `study` wildcard names the study it works for.

    log = WorkflowLog()
    for line in open(".snakemake/log/....snakemake.log"):
        log.feed(line)
    log.plan, log.running, log.finished, log.now
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from . import studies

SHARED = "shared"
GROUPS = (*studies.names(), "summary", "paper", "report")

_STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")
_START = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):$")
_JOBID = re.compile(r"^\s+jobid: (\d+)$")
_WILDCARDS = re.compile(r"^\s+wildcards: (.*)$")
_STUDY = re.compile(r"\bstudy=(\w+)")
_REP = re.compile(r"\brep=(\d+)")
_RESOURCES = re.compile(r"^\s+resources: (.*)$")
_THREADS = re.compile(r"^\s+threads: (\d+)$")
_FINISHED = re.compile(r"^Finished jobid: (\d+) \(Rule: (\w+)\)$")
_ERROR = re.compile(r"^Error in rule (\w+):$")
_CORES = re.compile(r"^Provided cores: (\d+)$")
_STATS_ROW = re.compile(r"^(\w+)\s+(\d+)$")
_STEPS = re.compile(r"^(\d+) of (\d+) steps \([\d.]+%\) done$")


def group_of(rule: str) -> str:
    """The study (or the workflow's own step) a rule belongs to; SHARED for a rule of none."""
    for group in GROUPS:
        if rule == group or rule.startswith(group + "_"):
            return group
    return SHARED


def parse_stamp(text: str) -> datetime:
    return datetime.strptime(" ".join(text.split()), "%a %b %d %H:%M:%S %Y")


@dataclass
class Job:
    jobid: str
    rule: str
    start: datetime | None
    study: str = ""  # the study it works for: its group, or a shared rule's `study` wildcard
    timed: bool = False
    threads: int = 1
    rep: int | None = None  # the repeat of a timed grid it runs (its `rep` wildcard)
    end: datetime | None = None

    @property
    def group(self) -> str:
        return group_of(self.rule)

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds() if self.start and self.end else 0.0


@dataclass
class WorkflowLog:
    plan: dict[str, int] = field(default_factory=dict)  # rule -> jobs the invocation will run
    cores: int = 1
    now: datetime | None = None  # the last time stamp read
    first: datetime | None = None  # the first time stamp read
    running: dict[str, Job] = field(default_factory=dict)
    finished: list[Job] = field(default_factory=list)
    failed: list[Job] = field(default_factory=list)
    steps: tuple[int, int] | None = None  # Snakemake's "N of M steps done"
    in_plan: bool = False  # reading the plan's table
    _pending: str | None = None  # a job's header seen, its jobid not yet
    _last: Job | None = None  # the job whose detail lines are being read
    _error: bool = False

    def feed(self, line: str) -> None:
        line = line.rstrip("\n")
        if line.startswith("Job stats:"):
            self.in_plan = True
            self.plan = {}  # a new plan (a resumed or re-evaluated graph): what this invocation runs
            return
        if self.in_plan:
            self._stats_row(line)
            return
        if m := _STAMP.match(line):
            self.now = parse_stamp(m.group(1))
            self.first = self.first or self.now
        elif m := _START.match(line):
            self._pending, self._last, self._error = m.group(1), None, False
        elif m := _ERROR.match(line):
            self._pending, self._last, self._error = None, None, True
        elif m := _JOBID.match(line):
            self._jobid(m.group(1))
        elif self._last and (m := _WILDCARDS.match(line)):
            study, rep = _STUDY.search(m.group(1)), _REP.search(m.group(1))
            self._last.study = study.group(1) if study else self._last.study
            self._last.rep = int(rep.group(1)) if rep else None
        elif self._last and (m := _RESOURCES.match(line)):
            self._last.timed = "timed=1" in m.group(1).replace(" ", "").split(",")
        elif self._last and (m := _THREADS.match(line)):
            self._last.threads = int(m.group(1))
        elif m := _FINISHED.match(line):
            job = self.running.pop(m.group(1), None) or Job(m.group(1), m.group(2), None)
            job.end = self.now
            self.finished.append(job)
        elif m := _STEPS.match(line):
            self.steps = (int(m.group(1)), int(m.group(2)))
        elif m := _CORES.match(line):
            self.cores = int(m.group(1))

    def _stats_row(self, line: str) -> None:
        row = _STATS_ROW.match(line.strip())
        if row and row.group(1) != "total":
            self.plan[row.group(1)] = self.plan.get(row.group(1), 0) + int(row.group(2))
        elif not line.strip() and self.plan:
            self.in_plan = False

    def _jobid(self, jobid: str) -> None:
        if self._error:  # the failed job's block: it runs no more
            job = self.running.pop(jobid, None)
            if job:
                job.end = self.now
                self.failed.append(job)
            self._error = False
        elif self._pending:
            job = Job(jobid, self._pending, self.now)
            job.study = job.group if job.group != SHARED else ""
            self.running[jobid] = job
            self._pending, self._last = None, job

    def elapsed(self) -> float:
        return (self.now - self.first).total_seconds() if self.now and self.first else 0.0
