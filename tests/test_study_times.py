"""The per-study time report printed at the end of a run
(workflows/scripts/study_times.py), on a log written as Snakemake 9 writes one."""
from __future__ import annotations

import sys
from pathlib import Path

from study_times import fresh_path, group_of, report  # noqa: E402

LOG = """\
Select jobs to execute...
Execute 2 jobs...
[Thu Nov 26 01:18:39 2026]
localrule looking_glass_instructions:
    output: results/raw/looking_glass/instructions/step6_new_order.json
    jobid: 20
    wildcards: step=6, txn=new_order
[Thu Nov 26 01:18:39 2026]
rule key_cache_run:
    output: results/raw/key_cache/rep0/run.json
    jobid: 23
[Thu Nov 26 01:18:44 2026]
Finished jobid: 23 (Rule: key_cache_run)
1 of 3 steps (33%) done
[Thu Nov 26 01:18:49 2026]
Finished jobid: 20 (Rule: looking_glass_instructions)
[Thu Nov 26 01:18:49 2026]
localrule looking_glass_claims:
    jobid: 7
[Thu Nov 26 01:18:59 2026]
Finished jobid: 7 (Rule: looking_glass_claims)
[Thu Nov 26 01:18:59 2026]
localrule claims:
    output: results/tables/quantum/claims.csv
    jobid: 8
    reason: Missing output files
    wildcards: study=quantum
[Thu Nov 26 01:19:02 2026]
Finished jobid: 8 (Rule: claims)
[Thu Nov 26 01:19:00 2026]
localrule unfinished_rule:
    jobid: 9
"""


def test_groups_by_study_prefix():
    assert group_of("looking_glass_instructions") == "looking_glass"
    assert group_of("key_cache_mariadb_run") == "key_cache"
    assert group_of("summary") == "summary"
    assert group_of("all") == "other"
    assert group_of("key_cachex") == "other"


def test_busy_is_the_union_of_a_studys_jobs(tmp_path, capsys):
    log = tmp_path / "run.snakemake.log"
    log.write_text(LOG)
    rows = {r["study"]: r for r in report(str(log), str(tmp_path / "times.csv"))}
    # looking_glass: 01:18:39-01:18:49 and 01:18:49-01:18:59, back to back.
    assert rows["looking_glass"] == {"study": "looking_glass", "jobs": 2, "busy_s": 20, "job_s": 20}
    assert rows["key_cache"] == {"study": "key_cache", "jobs": 1, "busy_s": 5, "job_s": 5}
    # The one claims rule counts for the study its wildcard names.
    assert rows["quantum"] == {"study": "quantum", "jobs": 1, "busy_s": 3, "job_s": 3}
    # The whole run: first start to last finish; the job that never finished is left out.
    assert rows["total"] == {"study": "total", "jobs": 4, "busy_s": 23, "job_s": 28}
    assert (tmp_path / "times.csv").read_text().splitlines()[0] == "study,jobs,busy_s,job_s"
    assert "looking_glass" in capsys.readouterr().out


def test_a_run_with_nothing_to_do(tmp_path, capsys):
    log = tmp_path / "empty.log"
    log.write_text("Building DAG of jobs...\nNothing to be done.\n")
    assert report(str(log), str(tmp_path / "times.csv")) == []
    assert "no job ran" in capsys.readouterr().out
    assert not (tmp_path / "times.csv").exists()


def test_a_later_run_writes_its_own_file_never_over_a_record(tmp_path):
    """make repro's times.csv is the run's record: `make paper` (target paper) writes times-paper.csv,
    and a later run of the same targets the next free name; nothing is written over (issue 41)."""
    out = tmp_path / "logs" / "times.csv"
    assert fresh_path(str(out)) == out
    assert fresh_path(str(out), ["paper"]) == out.with_name("times-paper.csv")
    assert fresh_path(str(out), ["results/tables/tpcc/throughput.csv", "key_cache"]) == \
        out.with_name("times-key_cache+throughput.csv")
    out.parent.mkdir()
    out.write_text("study,jobs,busy_s,job_s\ntotal,206,100,150\n")
    assert fresh_path(str(out)) == out.with_name("times-2.csv")
    out.with_name("times-paper.csv").write_text("x")
    assert fresh_path(str(out), ["paper"]) == out.with_name("times-paper-2.csv")
