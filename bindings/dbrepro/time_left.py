"""How long a running workflow has left, for the whole run and per study,
from its Snakemake log as it grows (dbrepro.workflow_log) and what committed
runs took on this kind of machine (dbrepro.run_times.Expectation).

Three figures for the whole run, each better at another time:

- the work left (the structure): each rule's jobs left times the mean of its
  jobs finished in this run; the rules none of whose jobs finished yet share
  what the committed runs' job time for their study leaves over, a timed job
  weighing as this run's typical timed job so far, another as its typical
  other job (no committed time: the typical job itself). A job is timed
  (it holds the `timed` resource: one at a time across all studies) or not,
  so the run has left at least its timed work, and at least all its work over
  the cores; where timed jobs run alone (they claim every core), the timed
  work plus the rest over the cores;
- the committed run's time for the share of the plan's work still to do
  (each study's share of its jobs, weighted by its committed time);
- this run's own pace: the time so far times the work left over the work done.

The estimate is their weighted geometric mean, the committed figure weighing
less and the pace more as the run goes on (weights: 1 for the structure,
1 - done and done for the other two), so that neither a committed run of
another speed nor a slow first minute holds it; and never less than the timed
work left, the timed jobs' queue.

A study's time left is when its last job should end: its timed grids'
repeats wait for each other and the studies' timed jobs take turns, so the
studies go through their repeats side by side, and one with k repeats left
ends once each study has run up to k more of its own; never after the run.

    replay_file(path) -> the estimates a run would have printed every 30 s,
                         and the log's actual ends (the tests' measure)
"""
from __future__ import annotations

import gzip
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean

from .workflow_log import SHARED, WorkflowLog, group_of
from .source import repo_root

REPO = repo_root()
_TIMED_RESOURCE = re.compile(r"^\s+timed\s*=\s*1\s*,?\s*$", re.M)
_RULE_HEADER = re.compile(r"^(?:rule|checkpoint) (\w+):", re.M)
PACE_FROM = 0.02  # the run's own pace counts once this share of the work is done
OVERRUN = 0.1  # a job past its rule's mean is taken to need a tenth of that mean more


def timed_rules(root: Path = REPO) -> set[str]:
    """The rules whose resources say timed=1, read from the workflow's sources (for a rule
    none of whose jobs started yet; a started job's own resources line wins)."""
    found = set()
    for source in sorted((root / "workflows").glob("*.smk")):
        text = source.read_text(encoding="utf-8")
        headers = list(_RULE_HEADER.finditer(text))
        for here, after in zip(headers, [*headers[1:], None]):
            if _TIMED_RESOURCE.search(text[here.end():after.start() if after else len(text)]):
                found.add(here.group(1))
    return found


@dataclass
class StudyLeft:
    planned: int
    done: int
    running: list[str]  # the rules of its jobs running now
    timed_s: float | None  # timed work left (None: nothing to go on yet)
    other_s: float | None  # untimed work left
    rounds: int | None = None  # repeats of its timed grids left (None: not known yet)
    left_s: float | None = None  # when its last job should end, from now

    @property
    def work_s(self) -> float | None:
        return None if self.timed_s is None or self.other_s is None else self.timed_s + self.other_s

    @property
    def finished(self) -> bool:
        return self.done >= self.planned and not self.running


@dataclass
class Estimate:
    studies: dict[str, StudyLeft]  # by study, the workflow's own steps, and SHARED
    left_s: float | None  # the whole run's time left
    done: int
    planned: int
    alone: bool  # timed jobs claim every core
    work_s: float | None = None  # the structure's figure, before the committed run and the pace weigh in


@dataclass
class _Rule:
    """What the log says of one rule so far."""
    planned: int = 0
    done: int = 0
    seconds: list = field(default_factory=list)  # its finished jobs' durations
    running: list = field(default_factory=list)  # its jobs running now
    reps: dict = field(default_factory=dict)  # repeat -> its jobs started in that repeat
    timed: bool | None = None

    @property
    def mean_s(self) -> float | None:
        return mean(self.seconds) if self.seconds else None

    @property
    def queued(self) -> int:
        return max(self.planned - self.done - len(self.running), 0)

    def rounds_left(self) -> int | None:
        """Repeats of its grid left (each repeat's runs wait for the last repeat's)."""
        left = max(self.planned - self.done, 0)
        per_repeat = self.reps.get(1, 0)
        if not left:
            return 0
        if self.reps and max(self.reps) >= 2 and per_repeat:
            return -(-left // per_repeat)
        return 1 if self.reps and per_repeat >= self.planned else None


class TimeLeft:
    """The estimate at the log's latest time stamp, or at a given time."""

    def __init__(self, log: WorkflowLog, expected_job_s: dict[str, float] | None = None,
                 expected_total_s: float | None = None, timed: set[str] | None = None):
        self.log = log
        # study -> committed job seconds; times.csv's "other" is the jobs of no study, this log's SHARED
        self.expected_job_s = {SHARED if k == "other" else k: v for k, v in (expected_job_s or {}).items() if v > 0}
        self.expected_total_s = expected_total_s  # the committed run's wall time
        self.timed = set(timed_rules() if timed is None else timed)

    def _rules(self) -> dict[str, _Rule]:
        rules: dict[str, _Rule] = defaultdict(_Rule)
        for rule, count in self.log.plan.items():
            rules[rule].planned = count
        for job in self.log.finished:
            rules[job.rule].done += 1
            if job.start is not None:
                rules[job.rule].seconds.append(job.seconds)
        for job in [*self.log.finished, *self.log.running.values()]:
            rules[job.rule].timed = job.timed
            if job.rep is not None:
                rules[job.rule].reps[job.rep] = rules[job.rule].reps.get(job.rep, 0) + 1
        for job in self.log.running.values():
            rules[job.rule].running.append(job)
        for name, rule in rules.items():
            rule.timed = name in self.timed if rule.timed is None else rule.timed
        return rules

    def estimate(self, now_s: float | None = None) -> Estimate:
        log = self.log
        now_s = log.elapsed() if now_s is None else now_s
        rules = self._rules()
        jobs = [*log.finished, *log.running.values()]
        alone = any(job.timed and job.threads >= log.cores > 1 for job in jobs)
        typical_s = {flag: mean(s for r in rules.values() if r.timed == flag for s in r.seconds)
                     if any(r.seconds for r in rules.values() if r.timed == flag) else None for flag in (True, False)}
        groups: dict[str, dict[str, _Rule]] = defaultdict(dict)
        for name, rule in rules.items():
            if rule.planned or rule.running:
                groups[group_of(name)][name] = rule
        out = {name: self._study(name, mine, typical_s, now_s) for name, mine in groups.items()}
        cores = max(log.cores, 1)
        work = whole = None
        if out and all(s.work_s is not None for s in out.values() if not s.finished):
            timed_left = sum(s.timed_s or 0.0 for s in out.values())
            other_left = sum(s.other_s or 0.0 for s in out.values())
            work = timed_left + other_left / cores if alone else max(timed_left, (timed_left + other_left) / cores)
            whole = max(self._weighed(work, now_s, out), timed_left)  # the timed jobs' queue at the least
        _study_ends(out, whole)
        done = sum(min(r.done, r.planned) for r in rules.values())
        return Estimate(out, whole, done, sum(log.plan.values()), alone, work)

    def _study(self, name: str, rules: dict[str, _Rule], typical_s: dict, now_s: float) -> StudyLeft:
        """A study's work left, timed and not: each rule's jobs left times its own mean; the
        rules not seen yet share what the committed time leaves over (else the run's typical job)."""
        prior = self.expected_job_s.get(name)
        # a job not seen yet weighs as the run's typical job of its kind (timed or not) so far
        weight = {flag: typical_s[flag] or 1.0 for flag in (True, False)}
        unseen = sum(max(r.planned - r.done, 0) * weight[r.timed] for r in rules.values() if r.mean_s is None)
        projected = sum(max(r.planned, r.done) * r.mean_s for r in rules.values() if r.mean_s is not None)
        share = None
        if prior is not None and unseen:
            share = {flag: max(prior - projected, 0.0) * weight[flag] / unseen for flag in (True, False)}
        elif name == SHARED:
            share = {True: 0.0, False: 0.0}  # the shared rules' time is in each study's committed time
        timed_s = other_s = 0.0
        known = True
        for rule in rules.values():
            per_job = next((x for x in (rule.mean_s, share and share[rule.timed], typical_s[rule.timed])
                            if x is not None), None)
            if per_job is None:
                known = known and not (rule.queued or rule.running)
                continue
            left = rule.queued * per_job
            for job in rule.running:
                ran = now_s - (job.start - self.log.first).total_seconds() if job.start and self.log.first else 0.0
                left += max(per_job - ran, per_job * OVERRUN)
            if rule.timed:
                timed_s += left
            else:
                other_s += left
        rounds = [r.rounds_left() for r in rules.values() if r.timed and r.planned > r.done]
        study = StudyLeft(sum(r.planned for r in rules.values()), sum(min(r.done, r.planned) for r in rules.values()),
                          sorted(n for n, r in rules.items() if r.running), timed_s if known else None,
                          other_s if known else None, None if None in rounds else max(rounds, default=0))
        return study

    def _done_share(self, out: dict[str, StudyLeft]) -> float | None:
        """The share of the plan's work done: each study's share of its jobs, weighted by its
        committed time (by its jobs where none was committed)."""
        weighed = [(self.expected_job_s.get(name, s.planned if not self.expected_job_s else 0), s)
                   for name, s in out.items() if name != SHARED and s.planned]
        total = sum(w for w, _ in weighed)
        return sum(w * min(s.done / s.planned, 1.0) for w, s in weighed) / total if total else None

    def _weighed(self, work: float, now_s: float, out: dict[str, StudyLeft]) -> float:
        if work <= 0:
            return 0.0
        done = self._done_share(out)
        if done is None:
            return work
        parts = [(1.0, work)]
        if self.expected_total_s and self.expected_job_s:
            planned = sum(v for k, v in self.expected_job_s.items() if k in out) / sum(self.expected_job_s.values())
            parts.append((1.0 - done, self.expected_total_s * planned * (1.0 - done)))
        if done >= PACE_FROM and now_s > 0:
            parts.append((done, now_s * (1.0 - done) / done))
        parts = [(w, v) for w, v in parts if w > 0 and v > 0]
        return math.exp(sum(w * math.log(v) for w, v in parts) / sum(w for w, _ in parts))


def _study_ends(out: dict[str, StudyLeft], whole: float | None) -> None:
    """Each study's time left: side by side through their repeats (the module's words)."""
    if whole is None:
        return
    timed = [s for s in out.values() if s.timed_s and not s.finished]
    total = sum(s.timed_s for s in timed)
    for study in out.values():
        if study.finished:
            study.left_s = 0.0
        elif study.work_s is not None:
            study.left_s = whole
            if study.rounds and total > 0 and all(s.rounds for s in timed):
                study.left_s = whole * sum(s.timed_s * min(s.rounds, study.rounds) / s.rounds for s in timed) / total


# ---- replaying a committed log -------------------------------------------------------------

@dataclass
class Print:
    at_s: float  # seconds since the log's first time stamp
    whole_s: float | None
    studies: dict[str, float | None]


@dataclass
class Replayed:
    prints: list[Print]
    end_s: float  # the log's last time stamp, seconds since its first
    ends: dict[str, float]  # each study's last job's end

    def ratios(self, after_s: float = 60.0) -> list[float]:
        """Printed over actual time left, the whole run's line, every print after `after_s`."""
        return [p.whole_s / (self.end_s - p.at_s) for p in self.prints
                if p.at_s >= after_s and p.whole_s is not None and self.end_s > p.at_s]

    def study_ratios(self, after_s: float = 60.0) -> list[float]:
        """The same for each study's line (a study's actual end: its last job's)."""
        return [left / (self.ends[name] - p.at_s) for p in self.prints if p.at_s >= after_s
                for name, left in p.studies.items()
                if left is not None and name != SHARED and self.ends.get(name, 0.0) > p.at_s]

    @staticmethod
    def within(ratios: list[float], factor: float = 1.5) -> float:
        return sum(1 for r in ratios if 1 / factor <= r <= factor) / len(ratios) if ratios else 0.0


def read_log(path: Path) -> list[str]:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as file:
        return file.readlines()


def replay(lines: list[str], expected_job_s=None, expected_total_s=None, every: float = 30.0,
           timed: set[str] | None = None) -> Replayed:
    """Feed a log's lines in order, as `make repro` reads them, and take the estimate every
    `every` seconds of the log's own time. A log that did not run to its last step has its plan
    cut to the jobs it finished, so that its last line is the end of the work it planned."""
    whole_log = WorkflowLog()
    for line in lines:
        whole_log.feed(line)
    complete = bool(whole_log.steps and whole_log.steps[0] == whole_log.steps[1])
    finished: dict[str, int] = defaultdict(int)
    for job in whole_log.finished:
        finished[job.rule] += 1

    log = WorkflowLog()
    estimator = TimeLeft(log, expected_job_s, expected_total_s, timed)
    prints: list[Print] = []
    at, cut = every, False
    for line in lines:
        before = log.now
        log.feed(line)
        cut = cut and not line.startswith("Job stats:")
        if not complete and log.plan and not log.in_plan and not cut:
            log.plan = {rule: min(count, finished[rule]) for rule, count in log.plan.items()}
            cut = True
        if log.now != before and log.first is not None:
            while log.elapsed() >= at:  # a print between the last time stamp and this one
                estimate = estimator.estimate(at)
                prints.append(Print(at, estimate.left_s, {n: s.left_s for n, s in estimate.studies.items()}))
                at += every
    ends: dict[str, float] = {}
    for job in whole_log.finished:
        if job.end is not None and whole_log.first is not None:
            group = group_of(job.rule)
            ends[group] = max(ends.get(group, 0.0), (job.end - whole_log.first).total_seconds())
    return Replayed(prints, whole_log.elapsed(), ends)


def replay_file(path: Path, expected_job_s=None, expected_total_s=None, every: float = 30.0,
                timed: set[str] | None = None) -> Replayed:
    return replay(read_log(path), expected_job_s, expected_total_s, every, timed)


def main(argv: list[str] | None = None) -> int:
    """`python -m dbrepro.time_left LOG --profile P`: replay a workflow log (a fresh run's:
    results/<run>/logs/workflow-*.log) as make repro would have printed it on this machine's
    kind, and say how many prints after the first minute were within 1.5x of the actual."""
    import argparse

    from . import run_times

    parser = argparse.ArgumentParser(prog="python -m dbrepro.time_left", description=main.__doc__.split("\n")[0])
    parser.add_argument("log", type=Path, help="a Snakemake log of a workflow run (.gz or not)")
    parser.add_argument("--profile", required=True, help="the run's profile")
    parser.add_argument("--every", type=float, default=30.0, help="seconds between prints (default 30)")
    args = parser.parse_args(argv)
    expected = run_times.expect(args.profile)
    replayed = replay_file(args.log, expected.job_s, expected.total_s, args.every)
    whole, studies = replayed.ratios(), replayed.study_ratios()
    print(expected.line())
    print(f"whole run: {Replayed.within(whole):.0%} of {len(whole)} prints within 1.5x of the actual time left; "
          f"per study: {Replayed.within(studies):.0%} of {len(studies)}")
    return 0 if Replayed.within(whole) >= 0.8 else 1


if __name__ == "__main__":
    import sys

    sys.exit(main())
