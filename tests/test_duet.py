"""Duet pairs (dbrepro.duet): two arms at once, one pinned to each CPU, swapped
between repeats; the partner is the run's own load; the ladder's claims form
their ratios within a duet. Seconds each, no timing asserted."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from dbrepro import duet, host_load, looking_glass, read_record

TWO_CPUS = len(os.sched_getaffinity(0)) >= 2
needs_two_cpus = pytest.mark.skipif(not TWO_CPUS, reason="a duet needs two CPUs this process may use")

# A stand-in arm: writes a record of what it saw (its CPUs, its foreign-load environment)
# and the wall-clock window of its "engine call", as `dbrepro run tpcc` writes its own.
FAKE_ARM = textwrap.dedent("""
    import os, sys, time
    from dbrepro import write_record
    from dbrepro.result import RunResult
    out, code = sys.argv[1], int(sys.argv[2])
    started = time.time()
    time.sleep(0.2)
    metrics = {"affinity": sorted(os.sched_getaffinity(0)),
               "env": {name: os.environ.get(name) for name in
                       ("DBREPRO_RUN_ROOT_PID", "DBREPRO_MAX_FOREIGN_CORES", "DBREPRO_MAX_RERUNS")},
               "host": {"started_unix": started, "ended_unix": time.time(), "attempts": 1, "disturbed": False}}
    if code != 2:
        write_record(RunResult(kind="fake", config={}, metrics=metrics, provenance={}), out)
    sys.exit(code)
""")


def fake_arms(tmp_path, codes=(0, 0)):
    script = tmp_path / "arm.py"
    script.write_text(FAKE_ARM)
    return [duet.Arm(f"cell_{name}", [sys.executable, str(script), str(tmp_path / f"{name}.json"), str(code)],
                     tmp_path / f"{name}.json") for name, code in zip("ab", codes)]


def test_placement_puts_arm_a_on_the_first_cpu_in_odd_repeats():
    assert [duet.placement(repeat, (0, 1)) for repeat in (1, 2, 3, 4)] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert duet.placement(2, (5, 3)) == (3, 5)
    assert duet.placement(1, (0,)) == (0, 0)  # one CPU: both arms on it (one after the other)
    with pytest.raises(ValueError, match="repeat"):
        duet.placement(0, (0, 1))


def test_pairs_are_two_by_two_and_a_cell_left_over_is_alone():
    assert duet.pairs("abcde") == [("a", "b"), ("c", "d"), ("e",)]
    assert duet.pairs([]) == []


def test_cpus_must_be_ones_this_process_may_use():
    with pytest.raises(ValueError, match="not among"):
        duet.pick_cpus([max(os.sched_getaffinity(0)) + 1])
    with pytest.raises(ValueError, match="different"):
        duet.pick_cpus([0, 0])
    assert len(duet.pick_cpus()) == min(2, len(os.sched_getaffinity(0)))


@needs_two_cpus
def test_the_arms_run_pinned_to_different_cpus_and_swap_between_repeats(tmp_path):
    arms = fake_arms(tmp_path)
    cpus = duet.pick_cpus()
    seen = {}
    for repeat in (1, 2):
        done = duet.run(arms, repeat, echo=lambda text: None)
        assert done.mode == "duet" and done.returncode == 0
        records = [read_record(arm.out) for arm in arms]
        # Each arm ran on its one CPU (as the arm itself saw it, and as read back while it ran).
        assert [r["metrics"]["affinity"] for r in records] == [[cpu] for cpu in done.cpus]
        assert done.affinity == [[cpu] for cpu in done.cpus]
        assert done.cpus[0] != done.cpus[1] and set(done.cpus) == set(cpus)
        for index, record in enumerate(records):
            pair = record["metrics"]["duet"]
            assert pair["cell"] == arms[index].cell and pair["partner"] == arms[1 - index].cell
            assert pair["cpu"] == done.cpus[index] and pair["partner_cpu"] == done.cpus[1 - index]
            assert pair["repeat"] == repeat and pair["arm"] == "ab"[index]
            assert pair["overlap"] is not None and 0.0 <= pair["overlap"] <= 1.0
            assert pair["measured_overlap"] is None  # the stand-in says nothing of a load or a phase
        seen[repeat] = done.cpus
    assert seen[1] == cpus and seen[2] == cpus[::-1]  # arm A: first CPU in odd repeats, second in even


@needs_two_cpus
def test_the_partner_is_the_runs_own_load_and_the_duet_is_guarded_whole(tmp_path, monkeypatch):
    monkeypatch.setenv(host_load.RUN_ROOT_ENV, "4242")  # the workflow's root stays a root
    arms = fake_arms(tmp_path)
    done = duet.run(arms, 1, max_foreign_cores=1000.0, max_reruns=0, echo=lambda text: None)
    for arm in arms:
        record = read_record(arm.out)
        env = record["metrics"]["env"]
        # The arm measures only (never reruns alone), with this runner among its roots: its
        # partner, a child of this runner, is not foreign to it.
        assert env["DBREPRO_RUN_ROOT_PID"].split(",") == ["4242", str(os.getpid())]
        assert env["DBREPRO_MAX_FOREIGN_CORES"] == "" and env["DBREPRO_MAX_RERUNS"] == "0"
        host = record["metrics"]["host"]
        # The duet's own measurement (both arms in one window) is the record's; the arm's beside it.
        assert host["attempts"] == done.guarded.attempts == 1 and host["disturbed"] is False
        assert host["foreign_load"]["max_foreign_cores"] == 1000.0
        assert host["arm_foreign_load"]["attempts"] == 1


def test_run_root_names_every_root_in_the_environment(monkeypatch):
    monkeypatch.setenv(host_load.RUN_ROOT_ENV, "4242,77, 1,x")
    assert host_load.run_root() == (4242, 77)  # pid 1 and words that are not pids are left out
    monkeypatch.setenv(host_load.RUN_ROOT_ENV, "")
    assert host_load.run_root() == ()


@needs_two_cpus
def test_the_other_layouts_share_one_cpu_or_leave_the_arms_unpinned(tmp_path):
    arms = fake_arms(tmp_path)
    cpus = duet.pick_cpus()
    for repeat, cpu in ((1, cpus[0]), (2, cpus[1])):  # shared: both on one CPU, the other one next repeat
        done = duet.run(arms, repeat, layout="shared", echo=lambda text: None)
        assert done.mode == "duet" and done.cpus == (cpu, cpu)
        assert [read_record(arm.out)["metrics"]["affinity"] for arm in arms] == [[cpu], [cpu]]
        assert read_record(arms[0].out)["metrics"]["duet"]["layout"] == "shared"
    done = duet.run(arms, 1, layout="free", echo=lambda text: None)
    assert done.cpus == (None, None)
    allowed = sorted(os.sched_getaffinity(0))
    assert [read_record(arm.out)["metrics"]["affinity"] for arm in arms] == [allowed, allowed]
    with pytest.raises(ValueError, match="layout"):
        duet.run(arms, 1, layout="diagonal", echo=lambda text: None)


def test_one_cpu_runs_the_arms_one_after_the_other(tmp_path):
    arms = fake_arms(tmp_path)
    cpu = duet.pick_cpus()[0]
    done = duet.run(arms, 2, cpus=[cpu], echo=lambda text: None)
    assert done.mode == "sequential" and done.cpus == (cpu, cpu) and "one CPU" in done.reason
    records = [read_record(arm.out) for arm in arms]
    assert all(r["metrics"]["affinity"] == [cpu] for r in records)
    assert all(r["metrics"]["duet"]["mode"] == "sequential" for r in records)


def test_a_failed_arm_fails_the_duet_naming_it(tmp_path):
    arms = fake_arms(tmp_path, codes=(0, 2))
    with pytest.raises(duet.DuetError, match="cell_b: exit status 2"):
        duet.run(arms, 1, echo=lambda text: None)
    # A failed duet keeps neither record (cell_a's has no pair): the job runs again whole.
    assert not (tmp_path / "a.json").exists() and not (tmp_path / "b.json").exists()
    # A crash (Python's exit status 1) writes no record: not a consistency failure.
    (tmp_path / "b.json").write_text("{}")  # a stale record from before must not pass for it
    crashing = fake_arms(tmp_path, codes=(0, 0))
    crashing[1] = duet.Arm("cell_b", [sys.executable, "-c", "raise SystemExit(1)"], tmp_path / "b.json")
    with pytest.raises(duet.DuetError, match="cell_b: exit status 1, no record written"):
        duet.run(crashing, 1, echo=lambda text: None)


def _live_children(pid: int) -> list[int]:
    """The live (not zombie) processes whose parent is `pid`."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=["SIGTERM", "SIGINT", "SIGKILL"])
def test_a_stopped_duet_leaves_no_arm_running_and_no_record(tmp_path, signum):
    # The runner alone is signalled (a batch system's or a workflow's stop of the job's
    # process): its arms must not run on and write records after the job has ended.
    settings = tmp_path / "long.json"
    settings.write_text(json.dumps({"warehouses": 1, "transactions": 0, "seconds": 120}))
    outs = [tmp_path / "a.json", tmp_path / "b.json"]
    runner = subprocess.Popen([sys.executable, "-m", "dbrepro", "duet", "tpcc", "--repeat", "1", "--settings",
                               str(settings), str(settings), "--out", *map(str, outs)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 120
        while len(arms := _live_children(runner.pid)) < 2:  # the event: both arms started
            assert runner.poll() is None, runner.communicate()
            assert time.monotonic() < deadline, "the arms did not start"
            time.sleep(0.02)
        runner.send_signal(signum)
        _, stderr = runner.communicate(timeout=60)
    finally:
        if runner.poll() is None:
            runner.kill()
    deadline = time.monotonic() + 30
    while any(_alive(pid) for pid in arms):  # SIGKILL too: each arm ends with its runner
        assert time.monotonic() < deadline, f"arms {arms} outlived their runner"
        time.sleep(0.02)
    assert runner.returncode == (-signal.SIGKILL if signum == signal.SIGKILL else 128 + signum), stderr
    assert not any(out.exists() for out in outs)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_the_command_line_names_each_cell_by_its_settings_file(tmp_path):
    argv = duet.study_argv("tpcc", "results/settings/looking_glass/ladder_step10.json", "out.json", python="py")
    assert argv == ["py", "-m", "dbrepro", "run", "tpcc", "--settings",
                    "results/settings/looking_glass/ladder_step10.json", "--out", "out.json", "--no-progress"]
    with pytest.raises(ValueError, match="quantum"):
        duet.study_argv("quantum", "s.json", "o.json")
    assert duet.main(["tpcc", "--repeat", "1", "--settings", "a.json", "b.json", "--out", "a.out.json",
                      "b.out.json", "--cpus", "0", "0"]) == 2


# ---------------------------------------------------------------------------
# The ladder: its duets, and claims that pair within them


def test_the_ladder_runs_each_claimed_ratio_as_one_duet():
    steps = list(range(12))
    duets = looking_glass.ladder_duets(steps)
    assert [pair for pair, _ in duets[:3]] == list(looking_glass.DUET_PAIRS) == [(11, 10), (10, 2), (10, 0)]
    # Per CPU-second: both steps on one CPU; on wall time (10 / 0): a CPU each.
    assert [layout for _, layout in duets[:3]] == ["shared", "shared", "split"]
    # Every step once in a split duet, for the ladder's wall-clock throughput: 8 duets a repeat, not 12 runs.
    assert duets[3:] == [((1, 2), "split"), ((3, 4), "split"), ((5, 6), "split"), ((7, 8), "split"),
                         ((9, 11), "split")]
    assert {step for pair, layout in duets if layout == "split" for step in pair} == set(steps)
    assert looking_glass.ladder_duets([0, 10, 5]) == [((10, 0), "split"), ((5,), "")]  # one left over: alone
    assert looking_glass.ladder_duets([3]) == [((3,), "")]


def ladder_runs():
    """Five repeats of step 10 in duets with 11, 2 and 0: step 10's speed differs by
    duet (as a neighbour on the shared cache would make it), and each whole duet is
    slower or faster by repeat (as the machine's load would make it)."""
    rows = []
    for repeat in range(1, 6):
        wobble = 1.0 + 0.1 * repeat  # the whole duet slower or faster: a ratio within it does not move
        for partner, stripped, other in ((11, 10.0, 30.0), (2, 12.0, 3.0), (0, 20.0, 2.0)):
            for step, value, its_partner in ((10, stripped, partner), (partner, other, 10)):
                rows.append({"source": f"results/raw/looking_glass/ladder/rep{repeat}/duet/step{step}.json",
                             "duet_layout": "split" if partner == 0 else "shared",
                             "step": step, "partner_step": float(its_partner), "cpu_tps": value * wobble,
                             "throughput_tps": value * wobble, "disturbed": False})
    return pd.DataFrame(rows)


def test_the_ladder_claims_form_each_ratio_within_its_duet():
    from dbrepro import verdicts as vd
    import looking_glass_claims as claims_script

    runs = ladder_runs()
    tables = claims_script.Tables(pd.DataFrame(columns=["step", "txn_type", "phase", "instructions", "backend"]),
                                  pd.DataFrame({"step": []}), pd.DataFrame({"txn_type": [], "component": []}),
                                  pd.DataFrame({"step": []}), {}, runs)
    # Step 10's samples in the duet with step 2 only, one per repeat.
    expected = [12.0 * (1 + r / 10) for r in range(1, 6)]
    assert list(tables.tps_samples(10, "cpu_tps", partner=2)) == pytest.approx(expected)
    assert len(tables.tps_samples(10, "cpu_tps")) == 5  # without a partner: every run's median per repeat
    criteria = vd.load_criteria("looking_glass").claims
    stripped_in_memory = claims_script.speedup(tables, criteria["speedup_stripped_vs_in_memory"], 10, 2, "cpu_tps")
    stripped_flushing = claims_script.speedup(tables, criteria["speedup_stripped_vs_flushing"], 10, 0)
    optimal = claims_script.speedup(tables, criteria["speedup_optimal_vs_stripped"], 11, 10, "cpu_tps")
    assert stripped_in_memory.outcome.value == pytest.approx(12.0 / 3.0)  # 4x, not step 10's median over duets
    assert stripped_in_memory.ours.startswith("4.0x (16 / 4 txn per CPU-second)")  # the duet's medians (x 1.3)
    assert stripped_flushing.outcome.value == pytest.approx(20.0 / 2.0)
    assert optimal.outcome.value == pytest.approx(30.0 / 10.0)
    # Within each duet the ratio is the same every repeat, however the duet's speed moves:
    # the paired interval has no width (step 10's median over every duet would have one).
    assert stripped_flushing.outcome.ci_low == pytest.approx(stripped_flushing.outcome.ci_high)
    assert stripped_flushing.outcome.repeats == 5
    assert stripped_in_memory.outcome.pairing.startswith("paired within duets (both steps at once on one CPU")
    assert stripped_flushing.outcome.pairing.startswith("paired within duets (both steps at once, one on each CPU")


def test_the_ladder_table_reads_each_arms_partner():
    from looking_glass_ladder_table import partner_step

    assert partner_step({"partner": "ladder_step11"}) == 11.0
    assert pd.isna(partner_step({}))  # a run alone, or one from before duets


@pytest.fixture(autouse=True)
def _scripts_on_path(repo, monkeypatch):
    monkeypatch.syspath_prepend(str(repo / "workflows" / "scripts"))
