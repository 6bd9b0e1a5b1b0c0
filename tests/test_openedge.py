"""E3 (OpenEdge 12 server features): the Python API, its command line, bad
input, and the study's workflow from dry run to smoke profile."""
from __future__ import annotations

import re

import pandas as pd
import pytest
import yaml

from dbrepro import openedge, read_record
from dbrepro.tpcc import ConfigError
from workflow_helpers import check_claims_table, job_count, profile, snakemake, target_dry_run

PROFILES = ("smoke", "quick", "full")
TABLES = ("runs", "ladder", "users", "traffic", "scan", "latency", "claims")
FIGURES = ("ladder", "user_stddev", "traffic")


@pytest.fixture(scope="module")
def ladder():
    return openedge.run_ladder(rows=400, servers=2, users=4, prefetch=20, repeats=2)


def test_every_step_runs_each_repeat_interleaved(ladder):
    runs = ladder.metrics["runs"]
    assert [(r["repeat"], r["step"]) for r in runs] == [(rep, s) for rep in (1, 2) for s in range(4)]
    assert [r["name"] for r in runs[:4]] == list(openedge.STEP_NAMES)
    assert ladder.metrics["results_agree"] and not ladder.metrics["interrupted"]


def test_every_step_does_the_same_work_and_counts_it(ladder):
    runs = ladder.metrics["runs"]
    assert len({(r["tuples"], r["checksum"], r["record_reads"]) for r in runs}) == 1
    assert runs[0]["tuples"] > 0
    base, bht, mtdbs, ssj = runs[:4]
    assert base["lookups_avoided"] == 0 and bht["lookups_avoided"] > 0
    assert bht["hash_lookups"] + bht["lookups_avoided"] == base["hash_lookups"]
    buckets = bht["frames"] * 25 // 100
    assert base["latches"] == min(1024, buckets) and bht["latches"] == buckets  # 11.7's 1024; -hashLatchFactor 100
    # Every page was read at the warm-up: no step misses; the index blocks entered are the same.
    assert {r["misses"] for r in runs} == {0} and len({r["index_blocks"] for r in runs}) == 1
    assert bht["lookups_avoided_per_index_block"] > 0 == base["lookups_avoided_per_index_block"]
    assert all({"latch_waits", "latch_wait_ns", "naps"} <= set(r) for r in runs)
    # The server-side join sends only qualifying records: fewer records and messages.
    assert ssj["records_received"] < mtdbs["records_received"]
    assert ssj["messages_on_wire"] < mtdbs["messages_on_wire"]
    assert mtdbs["messages_on_wire"] == base["messages_on_wire"]  # same protocol, other server threading
    for run in runs:
        assert len(run["user_seconds"]) == 4 and run["user_stddev_seconds"] >= 0


def test_every_run_counts_its_context_switches_outside_the_timed_window(ladder):
    """getrusage around each run, read between runs (the engine times each run inside): the
    servers' process and the users' client processes apart, and their voluntary switches per
    message on the wire, what a kind's wake-up cost prices."""
    for run in ladder.metrics["runs"]:
        for who in ("process", "client_processes"):
            assert run[f"{who}_voluntary_switches"] >= 0 and run[f"{who}_involuntary_switches"] >= 0
            assert run[f"{who}_cpu_seconds_rusage"] >= 0
        woken = run["process_voluntary_switches"] + run["client_processes_voluntary_switches"]
        assert run["voluntary_switches_per_message"] == pytest.approx(woken / run["messages_on_wire"])
    # The users run in client processes of their own (the default): theirs are counted once waited for.
    assert sum(r["client_processes_voluntary_switches"] for r in ladder.metrics["runs"]) > 0


def test_record_has_provenance_and_a_frame(ladder):
    record = ladder.to_dict()
    assert record["kind"] == "openedge" and record["provenance"]
    assert record["metrics"]["database"]["table_rows"] == [400] * 7
    assert record["metrics"]["host"]["loadavg_before"] is not None
    frame = ladder.to_frame()
    assert len(frame) == 8 and {"step", "name", "wall_seconds", "records_per_second", "bytes_on_wire"} <= set(frame)


def test_ladder_steps_describe_the_features():
    steps = openedge.ladder_steps()
    assert [s["name"] for s in steps] == list(openedge.STEP_NAMES)
    assert [(s["latch_factor"], s["multi_threaded"], s["server_side_join"]) for s in steps] == [
        (False, False, False), (True, False, False), (True, True, False), (True, True, True)]


def test_progress_can_stop_the_ladder():
    seen = []
    result = openedge.run_ladder(rows=100, servers=1, users=1, progress=lambda done, total: seen.append(done) or done < 1)
    assert result.metrics["interrupted"] and len(result.metrics["runs"]) == 1
    assert seen == [0, 1]


@pytest.mark.parametrize(
    "kwargs, parameter",
    [({"rows": 0}, "rows"), ({"servers": 0}, "servers"), ({"users": 1, "servers": 2}, "users"),
     ({"rows": 3, "users": 4, "servers": 1}, "users"), ({"latch_factor": 101}, "latch_factor"),
     ({"prefetch": 0}, "prefetch"), ({"steps": [4]}, "steps"), ({"steps": []}, "steps"),
     ({"fanout": 9}, "fanout"), ({"rows": True}, "rows"), ({"latch_factor": 4}, "latch_factor"),
     ({"nap": 5, "napmax": 4}, "napmax"), ({"users": 21, "servers": 1, "max_clients": 20}, "users")],
)
def test_bad_config_names_the_parameter(kwargs, parameter):
    with pytest.raises(ConfigError) as error:
        openedge.run_ladder(**kwargs)
    assert error.value.parameter == parameter


def test_a_bad_address_is_a_value_error():
    with pytest.raises(ValueError, match="address"):
        openedge.run_ladder(rows=10, servers=1, users=1, address="localhost:1")


# ---------------------------------------------------------------------------
# The command line


def test_cli_runs_and_writes_the_record(python, tmp_path):
    out = tmp_path / "run.json"
    done = python("-m", "dbrepro", "run", "openedge", "--rows", "200", "--servers", "1", "--users", "2",
                  "--steps", "0,3", "--out", str(out))
    assert done.returncode == 0, done.stderr
    record = read_record(out)
    assert [r["name"] for r in record["metrics"]["runs"]] == ["baseline", "ssj"]
    assert "records/s" in done.stdout


@pytest.mark.parametrize(
    "args, option",
    [(["--users", "x"], "--users"), (["--latch-factor", "0"], "--latch-factor"), (["--steps", "1,a"], "--steps"),
     (["--servers", "3", "--users", "2"], "--users")],
)
def test_cli_errors_are_one_line_and_exit_2(python, tmp_path, args, option):
    out = tmp_path / "x.json"
    done = python("-m", "dbrepro.openedge", "--rows", "50", "--out", str(out), *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0], done.stderr
    assert not out.exists()


# ---------------------------------------------------------------------------
# The workflow


@pytest.mark.parametrize("name", PROFILES)
def test_dry_run_of_the_study_is_clean(dry_run, repo, name):
    done = target_dry_run(dry_run, repo, "openedge", name)
    output = done.output
    assert done.returncode == 0, output
    assert "error" not in output.lower() and "warn" not in output.lower(), output
    config = yaml.safe_load(profile(repo, name).read_text())
    repeats = config["openedge"].get("repeats") or config["repeats"]
    assert job_count(output, "openedge_run") == repeats
    assert job_count(output, "figure") == len(FIGURES)  # the one figure rule, for this study only
    assert job_count(output, "openedge_tables") == 1 and job_count(output, "claims") == 1
    assert job_count(output, "openedge_scan_run") == 1
    assert job_count(output, "openedge_latency_run") == (repeats if config["openedge"]["latency_us"] else 0)


def test_timed_runs_are_ordered_and_alone(dry_run, repo):
    done = target_dry_run(dry_run, repo, "openedge", "quick")
    blocks = re.findall(r"rule openedge_run:\n((?:    .*\n)+)", done.output)
    assert len(blocks) >= 2
    for block in blocks:
        assert "timed=1" in block and "threads: 2" in block, block
        rep = int(re.search(r"rep(\d+)/ladder\.json", block.split("output:")[1]).group(1))
        inputs = re.findall(r"results/raw/openedge/rep(\d+)/ladder\.json", block.split("output:")[0])
        assert inputs == ([str(rep - 1)] if rep > 1 else []), block
        after = re.findall(r"results/raw/openedge/rep(\d+)/latency\.json", block.split("output:")[0])
        assert after == ([str(rep - 1)] if rep > 1 else []), block
    # The latency runs alternate with the ladder's: ladder r, latency r, ladder r + 1.
    latency_blocks = re.findall(r"rule openedge_latency_run:\n((?:    .*\n)+)", done.output)
    assert len(latency_blocks) == len(blocks)
    for block in latency_blocks:
        assert "timed=1" in block, block
        rep = int(re.search(r"rep(\d+)/latency\.json", block.split("output:")[1]).group(1))
        inputs = block.split("output:")[0]
        assert re.findall(r"rep(\d+)/ladder\.json", inputs) == [str(rep)], block
        assert re.findall(r"rep(\d+)/latency\.json", inputs) == ([str(rep - 1)] if rep > 1 else []), block


@pytest.mark.slow
def test_smoke_profile_end_to_end(smoke_run):
    assert smoke_run.returncode == 0, smoke_run.output
    tables = smoke_run.results / "tables" / "openedge"
    for name in TABLES:
        assert (tables / f"{name}.csv").stat().st_size > 0, name
    figures = smoke_run.results / "figures" / "openedge"
    for name in FIGURES:
        assert (figures / f"{name}.png").read_bytes()[:4] == b"\x89PNG", name
        assert (figures / f"{name}.pdf").read_bytes()[:4] == b"%PDF", name
    claims = check_claims_table(tables / "claims.csv", "openedge", claims=10)
    # One repeat planned in smoke: every timed claim is not judged there (issue 40).
    timed = claims[claims["repeats"].notna()]
    assert len(timed) == 6 and set(timed["reproduced"]) == {"not judged"} and set(timed["repeats"]) == {1}
    latency = pd.read_csv(tables / "latency.csv")
    assert sorted(set(latency["message_delay_us"])) == [0, 200] and set(latency["name"]) == {"mtdbs", "ssj"}
    assert (latency.loc[latency["message_delay_us"] == 200, "added_latency_seconds"] > 0).all()
    # The optimistic cursor is judged on the scan workload: a count, decided in smoke too.
    scan = pd.read_csv(tables / "scan.csv").set_index("name")
    assert list(scan.index) == ["baseline", "bht"]
    assert scan.at["baseline", "lookups_avoided"] == 0 and scan.at["bht", "lookups_avoided"] > 0
    optimistic = claims.set_index("claim").filter(like="Optimistic", axis=0)
    # Smoke's one repeat counts on one seed: a count finding needs three (min_seeds), and says so.
    assert len(optimistic) == 1 and optimistic["reproduced"].iloc[0] == "inconclusive"
    assert "needs 3" in optimistic["reason"].iloc[0] and optimistic["pairing"].iloc[0] == "deterministic count on seed 1"
    ladder = pd.read_csv(tables / "ladder.csv")
    assert list(ladder["name"]) == list(openedge.STEP_NAMES)
    assert list(ladder["paper_change_vs_previous_pct"].iloc[1:]) == [-3, -35, -44]
    assert ladder["paper_total_change_pct"].iloc[-1] == -63
    assert ladder["tuples"].nunique() == 1
    assert (ladder["voluntary_switches_per_message"] > 0).all()
    assert (ladder["client_processes_voluntary_switches"] > 0).all()


@pytest.mark.parametrize("rows, fanout, tuples, checksum, record_reads", [
    (300, 2, 881, 5511947972236168211, 6203),
    (1000, 1, 376, 11442215303310198680, 5838),
])
def test_rows_are_those_before_the_index_moved_onto_the_shared_btree(rows, fanout, tuples, checksum, record_reads):
    # Measured with the index of sorted leaves and the pool of its own (commit
    # b1ff9b9); the B-tree in the shared page cache returns the same rows.
    result = openedge.run_ladder(rows=rows, fanout=fanout, servers=1, users=2, prefetch=20, steps=[0, 3])
    assert [(r["tuples"], r["checksum"], r["record_reads"]) for r in result.metrics["runs"]] == [
        (tuples, checksum, record_reads)] * 2


def test_added_latency_is_recorded_per_request():
    result = openedge.run_ladder(rows=200, servers=1, users=2, prefetch=20, steps=[2, 3], message_delay_us=500)
    mtdbs, ssj = result.metrics["runs"]
    for run in (mtdbs, ssj):
        assert run["added_latency_seconds"] == pytest.approx(run["messages_sent"] * 500e-6)
    assert ssj["added_latency_seconds"] < mtdbs["added_latency_seconds"]  # the server-side join sends fewer requests
    assert result.config["message_delay_us"] == 500


def test_a_scan_stays_in_an_index_block_for_many_records():
    result = openedge.run_ladder(rows=5000, servers=1, users=2, prefetch=100, steps=[0, 1], workload="scan")
    base, bht = result.metrics["runs"]
    assert base["tuples"] == bht["tuples"] == 5000 and base["checksum"] == bht["checksum"]
    # Each user's cursor reads 2500 keys from leaves of 453 entries (a full 8 KB slotted B-tree node):
    # a handful of blocks, hundreds of records in each, and a lookup avoided for every record after the first.
    assert bht["index_blocks"] <= 2 * (2500 // 453 + 2)
    assert bht["lookups_avoided"] == bht["record_reads"] == 5000
    assert bht["lookups_avoided_per_index_block"] > 300 and base["lookups_avoided_per_index_block"] == 0



def test_one_table_of_settings_serves_the_api_and_the_command_line():
    """The ladder's settings are the engine's one table: the checked config has
    exactly its fields, and the command line has one option per field."""
    fields = {f["name"]: f for f in openedge.config_fields()}
    config = openedge.validate_config(rows=100, users=2)
    assert set(config) == set(fields)
    assert config["rows"] == 100 and config["users"] == 2
    assert all(config[name] == f["default"] for name, f in fields.items() if name not in ("rows", "users"))
    options = {a.dest for a in openedge.build_parser()._actions} - {"help", "out", "settings", "progress"}
    assert options == set(fields)
    with pytest.raises(ValueError, match="unknown setting"):
        openedge.validate_config(rows=100, bogus=1)


@pytest.mark.parametrize("users, servers, title", [(20, 1, ": 20 users on 1 server"),
                                                   (1, 8, ": 1 user on 8 servers")])
def test_user_stddev_title_counts_in_words(repo, monkeypatch, users, servers, title):
    """'20 users on 1 servers' no more (issue 41, item 11)."""
    import pandas as pd

    monkeypatch.syspath_prepend(str(repo))
    from figures.openedge_user_stddev import plot

    table = pd.DataFrame({"step": [0, 1], "name": ["baseline", "bht"], "users": users, "servers": servers,
                          "user_mean_seconds": [1.0, 0.9], "user_stddev_seconds": [0.1, 0.1],
                          "user_stddev_min": [0.05, 0.05], "user_stddev_max": [0.2, 0.2]})
    text = plot(table)._suptitle.get_text()
    assert text.startswith("E3") and text.endswith(title), text
