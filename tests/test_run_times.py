"""What a run should take on this kind of machine (dbrepro.run_times): committed runs of the
kind, else the nearest kind scaled by a fixed loop; the full profile's preflight; and the pieces
make repro's clock reads the workflow's log with (dbrepro.workflow_log, dbrepro.time_left)."""
from __future__ import annotations

import io
import textwrap
from pathlib import Path

import pytest

from dbrepro import run_times, studies, time_left
from dbrepro.run_times import Reference
from dbrepro.workflow_log import WorkflowLog

REPO = Path(__file__).resolve().parents[1]
INTEL = "Intel family 6 model 207 stepping 2, L2 2048K, L3 266240K"


def ref(name, kind, total, loops=None, profile="quick", written="2026-11-29"):
    return Reference(name, profile, kind, {"key_cache": total / 2, "quantum": total / 4},
                     {"key_cache": total / 2, "quantum": total / 4}, total, loops or {}, written)


def test_the_committed_runs_are_read_with_their_profile_kind_and_loops():
    refs = {r.name: r for r in run_times.committed()}
    assert refs["quick-t"].profile == "quick" and refs["quick-t"].kind == "unrecorded: Intel(R) Xeon(R) Processor"
    assert refs["quick-t"].total_s == 1012 and refs["quick-t"].busy_s["key_cache"] == 319
    assert refs["quick-v"].loops == {run_times.PYTHON: 2.156}  # reference/make-times.csv, b50a95f
    assert "quick-e-hog" not in refs  # made beside a CPU hog on purpose
    smoke = refs["workflow-logs/smoke-intel"]
    assert smoke.profile == "smoke" and smoke.kind == INTEL and smoke.loops == {run_times.FIXED: 1.12}
    assert "workflow-logs/quick-e32a7b4-intel" not in refs  # not the profile as it is, and it failed
    # A run committed both as reference/runs/<name> and as its workflow log counts once.
    assert "quick-aa" in refs and "workflow-logs/quick-aa" not in refs


def test_runs_of_this_kind_give_the_median_of_the_most_recent():
    refs = [ref(f"quick-{i}", INTEL, 600 + 100 * i, written=f"2026-11-2{i}") for i in range(7)]
    expected = run_times.expect("quick", INTEL, "Intel(R) Xeon(R) Processor", loop=lambda _: 99.0, refs=refs)
    assert expected.runs == [f"quick-{i}" for i in range(2, 7)]  # the 5 most recent, never scaled
    assert expected.total_s == 1000 and expected.busy_s["key_cache"] == 500
    assert expected.line().startswith(f"expected time: ~17 min for the quick profile on this kind ({INTEL}): "
                                      "the median of 5 committed runs of this kind")


def test_a_new_kind_is_scaled_from_the_nearest_by_the_fixed_loop():
    refs = [ref("quick-amd", "unrecorded: AMD EPYC", 1800, {run_times.PYTHON: 2.0}),
            ref("quick-intel", "unrecorded: Intel(R) Xeon(R) Processor", 1000, {run_times.PYTHON: 1.0})]
    measured = []
    expected = run_times.expect("quick", "AMD family 25 model 17 stepping 1, L2 512K, L3 32768K", "AMD EPYC 9B14",
                                loop=lambda measure: measured.append(measure) or 1.5, refs=refs)
    assert measured == [run_times.PYTHON]
    assert expected.runs == ["quick-amd"] and expected.total_s == pytest.approx(1800 * 1.5 / 2.0)
    assert "a new kind; the nearest that ran it: unrecorded: AMD EPYC" in expected.basis
    assert ("scaled by x0.75, the Python loop of benchmarks/make_times.py: 1.5 s here, 2 s on quick-amd"
            in expected.basis)


def test_a_new_kind_whose_nearest_recorded_no_loop_is_unscaled_and_says_so():
    refs = [ref("quick-intel", "unrecorded: Intel(R) Xeon(R) Processor", 1000)]
    expected = run_times.expect("quick", INTEL, "Intel(R) Xeon(R) Processor", loop=lambda _: 1.0, refs=refs)
    assert expected.total_s == 1000 and "unscaled: none of them recorded a loop" in expected.basis


def test_a_profile_no_committed_run_made_is_unknown():
    expected = run_times.expect("full", INTEL, "", loop=lambda _: None, refs=[ref("quick-x", INTEL, 1000)])
    assert expected.total_s is None and "no committed run of the full profile" in expected.line()


def test_the_reference_loop_is_the_one_benchmarks_make_times_times():
    code = run_times.reference_loop(REPO)
    assert code is not None and 10_000_000 in code.co_consts and "range" in code.co_names


def test_the_full_profile_needs_are_read_from_its_comments_and_disk_csv():
    needs = {n.study: n for n in run_times.needs("full")}
    assert needs["key_cache"].hours == 4 and needs["quantum"].hours == 10  # ~2.5 h and about 7.5 h more
    assert needs["key_cache"].disk_gb == 8 and needs["fifo_cache"].disk_gb == 10
    assert needs["fifo_cache"].memory_gb == 15  # RSS 10.0 GB at 100 warehouses and a pool up to 5 GB
    quick = {n.study: n for n in run_times.needs("quick")}
    assert quick["key_cache"].disk_from == "reference/disk.csv" and 0.9 < quick["key_cache"].disk_gb < 1.1


@pytest.mark.parametrize("free_gb, memory, refused", [
    (500.0, 64.0, None), (12.0, 64.0, "of disk"), (500.0, 16.0, "of memory")])
def test_the_full_profile_preflight_prints_each_study_and_refuses_in_one_line(free_gb, memory, refused):
    out = io.StringIO()
    expected = run_times.expect("full", INTEL, "Intel(R) Xeon(R) Processor", loop=lambda _: None)
    code = run_times.preflight("full", Path("results"), expected, out, free_gb=free_gb, memory=memory)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("expected time: more than ~")
    assert [line.split()[0] for line in lines[2:8]] == list(studies.names())
    assert "time ~4 h (config/full.yaml's comments); disk 8.0 GB (config/full.yaml)" in lines[4]
    assert [line for line in lines if line.startswith("refused")] == ([lines[-1]] if refused else [])
    assert code == (1 if refused else 0) and (refused is None or refused in lines[-1])


LOG = textwrap.dedent("""\
    Provided cores: 2
    Job stats:
    job           count
    ----------  -------
    quantum_run       4
    claims            1
    total             5

    [Mon Dec  7 10:00:00 2026]
    localrule quantum_run:
        jobid: 3
        wildcards: rep=1, run=a
        resources: tmpdir=/tmp, timed=1
        threads: 2
    [Mon Dec  7 10:00:10 2026]
    Finished jobid: 3 (Rule: quantum_run)
    [Mon Dec  7 10:00:10 2026]
    localcheckpoint claims:
        jobid: 9
        wildcards: study=quantum
        resources: tmpdir=/tmp
    [Mon Dec  7 10:00:10 2026]
    localrule quantum_run:
        jobid: 4
        wildcards: rep=2, run=a
        resources: tmpdir=/tmp, timed=1
        threads: 2
    [Mon Dec  7 10:00:12 2026]
    Error in rule claims:
        message: None
        jobid: 9
    """)


def test_the_log_reader_reads_jobs_checkpoints_repeats_and_failures():
    log = WorkflowLog()
    for line in LOG.splitlines(keepends=True):
        log.feed(line)
    assert log.cores == 2 and log.plan == {"quantum_run": 4, "claims": 1}
    (done,) = log.finished
    assert (done.rule, done.seconds, done.timed, done.threads, done.rep) == ("quantum_run", 10.0, True, 2, 1)
    assert list(log.running) == ["4"] and log.running["4"].rep == 2
    assert [(job.rule, job.study) for job in log.failed] == [("claims", "quantum")]  # a checkpoint's job


def test_timed_jobs_that_claim_every_core_add_up_with_the_rest_over_the_cores():
    log = WorkflowLog()
    for line in LOG.splitlines(keepends=True)[:-4]:
        log.feed(line)
    estimate = time_left.TimeLeft(log, timed={"quantum_run"}).estimate(12.0)
    quantum = estimate.studies["quantum"]
    assert estimate.alone and quantum.rounds == 3  # one run a repeat, 3 repeats left with the running one
    assert quantum.timed_s == pytest.approx(8 + 2 * 10)  # the running one 2 s in, two more of 10 s
    assert estimate.work_s == pytest.approx(quantum.timed_s + estimate.studies["shared"].other_s / 2)
