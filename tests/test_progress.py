"""make repro's progress lines (workflows/scripts/progress.py): per study, jobs done of
planned, what runs, time left; the workflow's output kept in a log; its tail on failure."""
from __future__ import annotations

import io
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
import progress  # noqa: E402

LOG = textwrap.dedent("""\
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
    [Sat Nov 28 10:00:30 2026]
    Finished jobid: 7 (Rule: looking_glass_ladder_run)
    [Sat Nov 28 10:00:30 2026]
    rule looking_glass_ladder_run:
        jobid: 8
    dbrepro: this run's settings differ from the profile's: key_cache.threads
    """)


def test_lines_count_jobs_per_study_and_estimate_from_finished_ones():
    state = progress.Progress(reference={"key_cache": (4, 100.0)})
    for line in LOG.splitlines(keepends=True):
        state.feed(line)
    lines = {line.split()[0]: line for line in state.lines()}
    assert "1/4" in lines["looking_glass"] and "running looking_glass_ladder_run" in lines["looking_glass"]
    assert "~90 s left" in lines["looking_glass"]  # 3 jobs left x 30 s, the mean of the one finished
    assert "0/2" in lines["key_cache"] and "~50 s left" in lines["key_cache"]  # the reference: 100 s for 4 jobs
    assert "0/3" in lines[progress.SHARED] and "time left unknown" in lines[progress.SHARED]
    assert state.finished_studies() == set()


def test_jobs_a_look_adds_after_the_plan_are_shown_running():
    """A checkpoint (workflows/sequential.smk) adds repeats after the plan was printed: a
    study whose planned jobs are done but that runs more is shown, not hidden."""
    state = progress.Progress()
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
    for line in (LOG + extra).splitlines(keepends=True):
        state.feed(line)
    lines = {line.split()[0]: line for line in state.lines()}
    assert "4/4" in lines["looking_glass"] and "running looking_glass_ladder_run" in lines["looking_glass"]
    assert "beyond the plan" in lines["looking_glass"]
    state.feed("Finished jobid: 11 (Rule: looking_glass_ladder_run)\n")
    assert not [line for line in state.lines() if line.split()[0] == "looking_glass"]


def test_the_workflow_output_goes_to_its_log_and_its_tail_on_failure(tmp_path):
    script = tmp_path / "fake_workflow.py"
    script.write_text(f"import sys\nsys.stdout.write({LOG!r})\nsys.stdout.flush()\nsys.exit(int(sys.argv[1]))\n")
    out = io.StringIO()
    log = tmp_path / "logs" / "workflow.log"
    assert progress.run([sys.executable, str(script), "0"], log, every=0.01, out=out) == 0
    text = out.getvalue()
    assert log.read_text() == LOG and "workflow: done" in text and str(log) in text
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
