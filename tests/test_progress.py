"""make repro's progress lines (workflows/scripts/progress.py): the plan's expected time, one
line for the whole run and one per study (jobs done of planned, what runs, time left counting
the wait for the timed resource), the workflow's output kept in a log, its tail on failure; and
the replay of every committed workflow log (reference/workflow-logs/): the printed time left
within a factor of 1.5 of the actual for at least 80% of the prints after the first minute."""
from __future__ import annotations

import csv
import io
import re
import sys
import textwrap
from pathlib import Path

import pytest

from dbrepro import run_times, time_left

REPO = Path(__file__).resolve().parents[1]
import progress  # noqa: E402

LOGS = REPO / "reference" / "workflow-logs"

LOG = textwrap.dedent("""\
    Provided cores: 2
    Job stats:
    job                          count
    -------------------------  -------
    looking_glass_ladder_run         4
    key_cache_run                    2
    cell_settings                    3
    total                            9

    [Sat Nov 28 10:00:00 2026]
    rule looking_glass_ladder_run:
        jobid: 7
        wildcards: rep=1, step=0
        resources: tmpdir=/tmp, timed=1
    [Sat Nov 28 10:00:30 2026]
    Finished jobid: 7 (Rule: looking_glass_ladder_run)
    [Sat Nov 28 10:00:30 2026]
    rule looking_glass_ladder_run:
        jobid: 8
        wildcards: rep=2, step=0
        resources: tmpdir=/tmp, timed=1
    dbrepro: this run's settings differ from the profile's: key_cache.threads
    """)


def expectation(job_s: dict[str, float], total_s: float | None = None) -> run_times.Expectation:
    return run_times.Expectation("quick", "a kind", "a CPU", "a committed run", ["quick-x"], dict(job_s),
                                 dict(job_s), total_s)


def fed(text: str, expected=None) -> progress.Progress:
    state = progress.Progress(expected, timed={"looking_glass_ladder_run", "key_cache_run"})
    for line in text.splitlines(keepends=True):
        state.feed(line)
    return state


def by_name(lines: list[str]) -> dict[str, str]:
    return {line.split()[0] if not line.strip().startswith(progress.WHOLE) else progress.WHOLE: line
            for line in lines}


def left(state: progress.Progress, at_s: float, name: str | None = None) -> float:
    estimate = state.time_left.estimate(at_s)
    return estimate.left_s if name is None else estimate.studies[name].left_s


def test_lines_count_jobs_per_study_and_the_whole_run_with_the_shared_jobs_explained():
    state = fed(LOG, expectation({"key_cache": 100.0}))
    lines = by_name(state.lines(40.0))
    assert "1/4" in lines["looking_glass"] and "running looking_glass_ladder_run" in lines["looking_glass"]
    assert "0/2" in lines["key_cache"] and "waiting" in lines["key_cache"]
    whole = lines[progress.WHOLE]
    assert "1/9 jobs" in whole and "3 of them shared: settings, barriers, looks, figures, claims" in whole
    assert "shared" not in lines  # the shared jobs are counted in the whole run's line, not a line of their own
    assert "~3 min left, of it ~3 min timed runs (one at a time)" in whole
    # timed work left: 3 ladder runs x 30 s (this run's mean; the running one 10 s in) + key_cache's
    # committed 100 s; timed jobs run one at a time, so the whole run has at least all of it left
    assert left(state, 40.0) >= 20 + 2 * 30 + 100 - 1
    assert state.finished_studies() == set()


def test_a_study_waits_for_the_other_studies_timed_work_not_only_its_own():
    """The old estimate (jobs left x the mean of its own finished ones) said a study with little
    work left was nearly done; with the timed resource shared, it ends with the others' repeats."""
    state = fed(LOG, expectation({"key_cache": 100.0}))
    own = 20 + 2 * 30  # looking_glass's own timed work left
    assert left(state, 40.0, "looking_glass") > own  # it waits for key_cache's timed runs too
    assert left(state, 40.0, "looking_glass") <= left(state, 40.0)


def test_the_time_left_moves_with_the_clock_between_jobs():
    """Never frozen: with no job finishing, the estimate still follows the running job's time."""
    state = fed(LOG, expectation({"key_cache": 100.0}))
    assert left(state, 55.0) < left(state, 35.0)


def test_without_a_committed_run_or_a_finished_job_the_time_left_says_unknown():
    state = fed(LOG.split("[Sat Nov 28 10:00:30 2026]")[0])
    lines = by_name(state.lines(10.0))
    assert "time left unknown until a job finishes" in lines[progress.WHOLE]
    assert "time left unknown until a job of it finishes" in lines["key_cache"]


def test_jobs_a_look_adds_after_the_plan_are_shown_running():
    """A checkpoint (workflows/sequential.smk) adds repeats after the plan was printed: a
    study whose planned jobs are done but that runs more is shown, not hidden."""
    extra = textwrap.dedent("""\
        [Sat Nov 28 10:01:00 2026]
        Finished jobid: 8 (Rule: looking_glass_ladder_run)
        [Sat Nov 28 10:01:00 2026]
        Finished jobid: 9 (Rule: looking_glass_ladder_run)
        [Sat Nov 28 10:01:00 2026]
        Finished jobid: 10 (Rule: looking_glass_ladder_run)
        [Sat Nov 28 10:01:01 2026]
        rule looking_glass_ladder_run:
            jobid: 11
        """)
    state = fed(LOG + extra)
    lines = by_name(state.lines())
    assert "4/4" in lines["looking_glass"] and "running looking_glass_ladder_run" in lines["looking_glass"]
    assert "beyond the plan" in lines["looking_glass"]
    state.feed("Finished jobid: 11 (Rule: looking_glass_ladder_run)\n")
    assert "looking_glass" not in by_name(state.lines())
    assert "looking_glass" in state.finished_studies()


def test_the_workflow_output_goes_to_its_log_the_plan_its_time_and_its_tail_on_failure(tmp_path):
    script = tmp_path / "fake_workflow.py"
    script.write_text(f"import sys\nsys.stdout.write({LOG!r})\nsys.stdout.flush()\nsys.exit(int(sys.argv[1]))\n")
    out = io.StringIO()
    log = tmp_path / "logs" / "workflow.log"
    assert progress.run([sys.executable, str(script), "0"], log, every=0.01, out=out,
                        expectation=expectation({"key_cache": 100.0, "looking_glass": 120.0}, 200.0)) == 0
    text = out.getvalue()
    assert log.read_text() == LOG and "workflow: done" in text and str(log) in text
    assert re.search(r"^plan: 9 jobs; ~\d+ (s|min) on this kind \(a committed run\)$", text, re.M)
    assert "dbrepro: this run's settings differ" in text  # the workflow's words to its reader pass through
    assert "Job stats" not in text  # Snakemake's own lines stay in the log
    out = io.StringIO()
    assert progress.run([sys.executable, str(script), "3"], log, every=0.01, out=out) == 3
    assert "workflow failed (exit 3)" in out.getvalue() and "Finished jobid: 7" in out.getvalue()


def test_bad_usage_is_one_line_and_exit_2(capsys):
    assert progress.main(["--log", "x.log"]) == 2
    assert progress.main(["--log", "x.log", "--every", "0", "--", "true"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("progress:") for line in err)


def test_make_repro_states_the_expected_time_before_anything_else():
    """The Makefile's repro target runs the preflight first: its line is make repro's first."""
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^repro: preflight build$", makefile, re.M)
    recipe = makefile.split("\npreflight:\n", 1)[1].split("\n\n", 1)[0]
    assert recipe.lstrip().startswith("@") and "dbrepro.run_times --profile $(PROFILE)" in recipe
    assert "--profile $(PROFILE)" in makefile.split("\nrepro:", 1)[1].split("\n\n", 1)[0]  # progress.py's estimate


def committed_logs() -> list[dict[str, str]]:
    with (LOGS / "logs.csv").open(encoding="utf-8") as file:
        return list(csv.DictReader(file))


@pytest.mark.parametrize("row", committed_logs(), ids=lambda row: row["name"])
def test_replaying_each_committed_log_the_time_left_is_within_1_5x_for_80_percent_of_prints(row):
    """Each committed workflow log, fed line by line with its time stamps as make repro reads it,
    printing every 30 s as it does, starting from what the committed runs would have told a run
    on that machine (its own log left out); each print's time left against the log's actual end.
    A log whose run failed is replayed with its plan cut to the jobs it finished."""
    loops = {measure: float(row[f"{measure}_loop_s"]) for measure in (run_times.FIXED, run_times.PYTHON)
             if row.get(f"{measure}_loop_s")}
    expected = run_times.expect(row["profile"], row["kind"], row["cpu"], loop=loops.get,
                                exclude=(f"workflow-logs/{row['name']}",))
    replayed = time_left.replay_file(LOGS / f"{row['name']}.log.gz", expected.job_s, expected.total_s, every=30.0)
    ratios = replayed.ratios(after_s=60.0)
    assert len(ratios) >= 5
    share = time_left.Replayed.within(ratios, 1.5)
    assert share >= 0.8, (row["name"], share, [round(r, 2) for r in ratios])
