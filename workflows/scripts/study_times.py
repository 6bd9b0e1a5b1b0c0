"""Where a workflow run's minutes went, per study, read from Snakemake's own
log of the run: each job's start and finish, grouped by the study its rule
belongs to (the rule's name starts with the study's). Printed at the end of
every run (the Snakefile's onsuccess) and written to results/logs/times.csv,
so a profile's budget per study is measured, not guessed (issue 20).

A run's records are written once (issue 41): a run with targets of its own
(`make paper`, one study alone) writes times-<targets>.csv, and a file that
exists is never written over: a later run takes the next free name
(times-2.csv, times-paper-2.csv, ...).

- busy: the time at least one of the study's jobs was running (the union of
  its jobs' intervals), the study's share of the run's wall time;
- job time: the sum of its jobs' times (more than busy where jobs overlapped).
Studies overlap each other on a machine with several cores, so the busy
times add up to more than the total.

By hand:  python workflows/scripts/study_times.py .snakemake/log/<run>.snakemake.log [OUT.csv [TARGET...]]
          (OUT.csv, or with targets OUT-<targets>.csv; the next free name where that exists)
"""

import csv
import re
import sys
from datetime import datetime
from pathlib import Path

from dbrepro import workflow_log
# One reading of Snakemake's log (dbrepro.workflow_log), checkpoints' jobs (makeups, looks) included.
from dbrepro.workflow_log import SHARED, WorkflowLog


def group_of(rule: str) -> str:
    """The study (or the workflow's own step) a rule belongs to, "other" for a rule of none."""
    group = workflow_log.group_of(rule)
    return "other" if group == SHARED else group


def jobs_from_log(lines) -> list[tuple[str, datetime, datetime]]:
    """(rule, start, end) for every job the log shows finished; a job of a
    rule shared by the studies (claims, figure) is named by its `study` wildcard."""
    log = WorkflowLog()
    for line in lines:
        log.feed(line)
    return [(job.study or job.rule, job.start, job.end) for job in log.finished if job.start and job.end]


def union_seconds(intervals) -> float:
    total, end = 0.0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total += (b - a).total_seconds()
            end = b
        elif b > end:
            total += (b - end).total_seconds()
            end = b
    return total


def summarize(jobs) -> list[dict]:
    rows = []
    for group in workflow_log.GROUPS + ("other",):
        mine = [(s, e) for rule, s, e in jobs if group_of(rule) == group]
        if not mine:
            continue
        rows.append({
            "study": group,
            "jobs": len(mine),
            "busy_s": round(union_seconds(mine)),
            "job_s": round(sum((e - s).total_seconds() for s, e in mine)),
        })
    if jobs:
        first = min(s for _, s, _ in jobs)
        last = max(e for _, _, e in jobs)
        rows.append({"study": "total", "jobs": len(jobs), "busy_s": round((last - first).total_seconds()),
                     "job_s": round(sum((e - s).total_seconds() for _, s, e in jobs))})
    return rows


def _minutes(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def report(log_path: str, out_csv: str | None = None) -> list[dict]:
    with open(log_path, encoding="utf-8", errors="replace") as f:
        rows = summarize(jobs_from_log(f))
    if not rows:
        print("study times: no job ran in this run (everything was up to date)")
        return rows
    print("study times (busy: some job of the study running; job time: summed over its jobs):")
    for r in rows:
        print(f"  {r['study']:<14} {r['jobs']:>4} jobs  busy {_minutes(r['busy_s']):>6}  job time {_minutes(r['job_s']):>6}")
    if out_csv:
        Path(out_csv).parent.mkdir(parents=True, exist_ok=True)
        with open(out_csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=["study", "jobs", "busy_s", "job_s"])
            writer.writeheader()
            writer.writerows(rows)
    return rows


def target_label(targets) -> str:
    """The run's targets as a file-name word: a rule by its name, a file by its stem; '' for the default."""
    words = sorted({re.sub(r"[^A-Za-z0-9_.]+", "_", Path(t).stem if "/" in t else t).strip("_.") for t in targets})
    return "+".join(word for word in words if word)[:80]


def fresh_path(out_csv: str, targets=()) -> Path:
    """Where this run's times go: OUT.csv, OUT-<targets>.csv for a run with targets of its own,
    numbered (-2, -3, ...) where that file exists already, so no run's record is written over."""
    out = Path(out_csv)
    label = target_label(targets)
    stem = f"{out.stem}-{label}" if label else out.stem
    path, n = out.with_name(stem + out.suffix), 2
    while path.exists():
        path, n = out.with_name(f"{stem}-{n}{out.suffix}"), n + 1
    return path


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: study_times.py SNAKEMAKE_LOG [OUT.csv [TARGET...]]")
    report(sys.argv[1], str(fresh_path(sys.argv[2], sys.argv[3:])) if len(sys.argv) >= 3 else None)
