"""Study key_cache (E2): the Python API, the `python -m dbrepro.key_cache`
command line, the workflow (dry runs, and the smoke profile end to end), and
the engine's behaviour the article's findings rest on.
"""
from __future__ import annotations

import re

import pandas as pd
import pytest
import yaml

from dbrepro import key_cache, read_record
from workflow_helpers import check_claims_table, job_count, profile, snakemake, target_dry_run

PROFILES = ["smoke", "quick", "full"]
TABLES = ["throughput", "relative", "mutex_waits", "cache_sizes", "claims", "model_vs_real", "mutex_account"]
FIGURES = ["heatmap", "relative", "mutex_account"]
# cache_size where a profile runs some cell at more than one cache size (quick runs one:
# nothing swept, so no figure), mariadb where it runs the real MariaDB.
CACHE_SIZE_SWEPT = {"smoke": True, "quick": False, "full": True}
QUICK = {"seconds": 0.2, "warmup_seconds": 0.02}


@pytest.fixture(scope="module")
def table_dir(tmp_path_factory):
    directory = tmp_path_factory.mktemp("sbtest")
    key_cache.build_table(directory, rows=5000, seed=3)
    return directory


# ---------------------------------------------------------------------------
# The API


def test_run_gives_one_row_per_cell(table_dir):
    result = key_cache.run(table_dir=table_dir, segments=8, threads=[1, 2], points=[10, 50], **QUICK)
    frame = result.to_frame()
    assert len(frame) == 4
    assert set(frame["threads"]) == {1, 2} and set(frame["points"]) == {10, 50}
    assert (frame["queries_per_second"] > 0).all() and (frame["hits"] > 0).all()
    assert (frame["segments"] == 8).all() and (frame["table_rows"] == 5000).all()
    assert (frame["latency_us_p50"] <= frame["latency_us_p99"]).all()
    assert (frame["mode"] == "client_server").all()  # the default: MariaDB's shape
    assert (frame["connections"] == frame["threads"]).all()  # a server thread per client connection
    record = result.to_dict()
    assert record["kind"] == "key_cache" and all(c["segment_count"] == 8 for c in record["metrics"]["cells"])
    assert record["config"]["mode"] == "client_server" and record["metrics"]["cache"]["mode"] == "client_server"


def test_segment_settings_are_interleaved_per_cell(table_dir):
    # As the real MariaDB's runner: in every (threads, P) cell each segments
    # value in turn, the order rotated by one per repeat.
    result = key_cache.run(table_dir=table_dir, segments=[0, 4, 16], repeat=2, threads=[1, 2], mode="direct",
                           seconds=0.02, warmup_seconds=0.01)
    frame = result.to_frame()
    assert list(frame["segments"]) == [4, 16, 0, 4, 16, 0]
    assert list(frame["threads"]) == [1, 1, 1, 2, 2, 2]
    assert list(frame["segment_count"]) == [4, 16, 1, 4, 16, 1]
    assert result.metrics["cache"]["order"] == [4, 16, 0] and (frame["repeat"] == 2).all()


@pytest.mark.parametrize("mode", ["client_server", "client_server_in_process", "direct"])
def test_every_mode_runs_and_is_recorded(table_dir, mode):
    assert key_cache.modes()[0] == "client_server" and mode in key_cache.modes()
    frame = key_cache.run(table_dir=table_dir, segments=[0, 2], threads=[2], mode=mode, **QUICK).to_frame()
    assert (frame["mode"] == mode).all() and (frame["queries"] > 0).all()
    assert (frame["connections"] == (0 if mode == "direct" else 2)).all()
    # Only the forked client process reports its own CPU time.
    assert ((frame["client_cpu_seconds"] > 0) == (mode == "client_server")).all()


def test_run_without_a_table_builds_a_temporary_one():
    result = key_cache.run(rows=2000, segments=0, **QUICK)
    assert result.config["rows"] == 2000 and result.metrics["cells"][0]["segment_count"] == 1


def test_k_is_the_row_number_by_default_and_each_point_one_row(table_dir, tmp_path):
    # The article's sysbench 0.5 script prepared k = id: a point matches one
    # row, whichever distribution drew it (a point of thread 0's slice may be
    # 0, which matches none). sysbench 1.0's oltp_common draws k at load from
    # "special" (75% in the middle 1%): a point in that band matches dozens.
    assert key_cache.table_info(table_dir)["distribution"] == "id"
    for distribution in key_cache.DISTRIBUTIONS:
        result = key_cache.run(table_dir=table_dir, segments=4, distributions=distribution, **QUICK)
        cell = result.metrics["cells"][0]
        assert 9 <= cell["rows"] / cell["queries"] <= 10  # sorted, de-duplicated IN lists of 10 points
        assert result.to_frame()["distribution"].iloc[0] == distribution
        assert result.to_frame()["table_k"].iloc[0] == "id"
    key_cache.build_table(tmp_path, rows=5000, seed=3, distribution="special")
    cell = key_cache.run(table_dir=tmp_path, segments=4, distributions="special", **QUICK).metrics["cells"][0]
    assert cell["rows"] / cell["queries"] > 20


def test_both_distributions_are_cells_of_one_run(table_dir):
    result = key_cache.run(table_dir=table_dir, segments=[0, 4], distributions=["special", "uniform"], **QUICK)
    frame = result.to_frame()
    assert list(frame["distribution"]) == ["special", "special", "uniform", "uniform"]
    with pytest.raises(ValueError, match=r"distributions"):
        key_cache.run(table_dir=table_dir, segments=[0, 4], distributions="zipf", **QUICK)


def test_bad_distribution_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"^distribution\b.*allowed: id, special, uniform"):
        key_cache.build_table(tmp_path, rows=100, distribution="zipf")


def test_the_index_fits_the_auto_sized_cache(table_dir):
    cell = key_cache.run(table_dir=table_dir, segments=4, seconds=0.1, warmup_seconds=0.1).metrics["cells"][0]
    assert cell["misses"] == 0  # warmed: every block read is a hit


def test_cache_sizes_and_extra_grids_are_cells_of_one_record(table_dir):
    # The grid at each cache size, then each extra grid; every cell says its cache size.
    result = key_cache.run(table_dir=table_dir, segments=[0, 4], threads=[1, 2], index_fractions=[1.0, 0.25],
                           extra_grids=[{"threads": [2], "points": [50], "index_fractions": [0.5]}], mode="direct",
                           seconds=0.05, warmup_seconds=0.01)
    frame = result.to_frame()
    cells = list(zip(frame["index_fraction"], frame["threads"], frame["points"]))
    assert cells == [(1.0, 1, 10)] * 2 + [(1.0, 2, 10)] * 2 + [(0.25, 1, 10)] * 2 + [(0.25, 2, 10)] * 2 + \
        [(0.5, 2, 50)] * 2
    assert list(frame["segments"]) == [0, 4] * 5  # each cell runs every segments value in turn
    whole, quarter = frame[frame["index_fraction"] == 1.0], frame[frame["index_fraction"] == 0.25]
    # A quarter of the index misses and reads the file (MyISAM's miss path); the whole index never misses.
    # A cell is 0.05 s of random points: one quarter cell can draw only blocks it holds (seen once in
    # a make test at load 2), so the quarter's misses are asserted over its cells, not in each.
    assert (whole["misses"] == 0).all() and quarter["misses"].sum() > 0
    assert (quarter["buffer_bytes"] < whole["buffer_bytes"].min()).all()
    assert result.config["index_fractions"] == [1.0, 0.25] and len(result.config["extra_grids"]) == 1


@pytest.mark.parametrize(
    "kwargs, parameter",
    [({"index_fractions": [1.0, 1.5]}, "index_fractions"), ({"index_fractions": [0.5, 0.5]}, "index_fractions"),
     ({"extra_grids": [{"threads": [1], "points": [10]}]}, "extra_grids[0]"),
     ({"extra_grids": [{"threads": [0], "points": [10], "index_fractions": [1]}]}, "extra_grids[0].threads")],
)
def test_bad_cache_sizes_name_the_parameter(table_dir, kwargs, parameter):
    with pytest.raises(key_cache.ConfigError) as error:
        key_cache.run(table_dir=table_dir, **kwargs)
    assert error.value.parameter == parameter


@pytest.mark.parametrize(
    "kwargs, parameter",
    [({"segments": 65}, "segments"), ({"threads": [0]}, "threads"), ({"points": []}, "points"),
     ({"replacement": "fifo"}, "replacement"), ({"seconds": 0}, "seconds"), ({"division_limit": 0}, "division_limit")],
)
def test_bad_config_names_the_parameter(table_dir, kwargs, parameter):
    with pytest.raises(key_cache.ConfigError) as error:
        key_cache.run(table_dir=table_dir, **kwargs)
    assert error.value.parameter == parameter


def test_the_segment_mutex_is_chosen_and_recorded(table_dir):
    # MariaDB's cache_lock is adaptive (MY_MUTEX_INIT_FAST): the default.
    assert key_cache.latches()[0] == "adaptive" and {"futex", "spin"} <= set(key_cache.latches())
    for latch in key_cache.latches():
        result = key_cache.run(table_dir=table_dir, segments=2, latch=latch, **QUICK)
        assert result.config["latch"] == latch and result.metrics["cache"]["latch"] == latch
        frame = result.to_frame()
        assert (frame["latch"] == latch).all()
        # The cache's counters: waits for the segment mutexes and the time waited, reads.
        assert {"mutex_waits", "mutex_wait_ns", "inflight_waits", "reads", "read_arounds"} <= set(frame.columns)
        assert (frame["mutex_wait_ns"] >= 0).all()


def test_bad_latch_is_named(table_dir):
    with pytest.raises(key_cache.ConfigError, match="allowed: adaptive, futex, spin") as error:
        key_cache.run(table_dir=table_dir, latch="ticket")
    assert error.value.parameter == "latch"


def test_missing_table_is_a_config_error(tmp_path):
    with pytest.raises(key_cache.ConfigError, match="table_dir"):
        key_cache.run(table_dir=tmp_path / "none")


# ---------------------------------------------------------------------------
# The command line


def test_cli_builds_and_runs(python, tmp_path):
    table = tmp_path / "t"
    done = python("-m", "dbrepro.key_cache", "build", "--table-dir", str(table), "--rows", "3000")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "run.json"
    done = python("-m", "dbrepro.key_cache", "run", "--table-dir", str(table), "--segments", "32",
                  "--threads", "1,2", "--points", "10", "--seconds", "0.05", "--warmup-seconds", "0.02",
                  "--out", str(out))
    assert done.returncode == 0, done.stderr
    record = read_record(out)
    assert record["config"]["segments"] == [32] and len(record["metrics"]["cells"]) == 2
    done = python("-m", "dbrepro.key_cache", "run", "--table-dir", str(table), "--segments", "0,32",
                  "--repeat", "2", "--mode", "direct", "--threads", "1", "--points", "10", "--seconds", "0.05",
                  "--warmup-seconds", "0.02", "--out", str(out))
    assert done.returncode == 0, done.stderr
    record = read_record(out)
    assert [c["segments"] for c in record["metrics"]["cells"]] == [32, 0] and record["config"]["mode"] == "direct"
    done = python("-m", "dbrepro.key_cache", "run", "--table-dir", str(table), "--segments", "0,4", "--mode", "direct",
                  "--threads", "1", "--points", "10", "--index-fractions", "1,0.5", "--grid",
                  "threads=2:points=50:index_fractions=0.25", "--seconds", "0.05", "--warmup-seconds", "0.02",
                  "--out", str(out))
    assert done.returncode == 0, done.stderr
    cells = read_record(out)["metrics"]["cells"]
    assert [(c["index_fraction"], c["threads"], c["points"]) for c in cells[::2]] == [(1.0, 1, 10), (0.5, 1, 10),
                                                                                     (0.25, 2, 50)]


@pytest.mark.parametrize(
    "args, option",
    [(["--segments", "99"], "--segments"), (["--threads", "a,b"], "--threads"),
     (["--replacement", "fifo"], "--replacement"), (["--seconds", "-1"], "--seconds"),
     (["--latch", "ticket"], "--latch"), (["--mode", "pipes"], "--mode"), (["--segments", "0,0"], "--segments"),
     (["--repeat", "0"], "--repeat"), (["--index-fractions", "2"], "--index-fractions"),
     (["--grid", "threads=1:points=10"], "--grid"), (["--grid", "threads=0:points=10:index_fractions=1"], "--grid")],
)
def test_cli_errors_are_one_line_and_exit_2(python, tmp_path, table_dir, args, option):
    done = python("-m", "dbrepro.key_cache", "run", "--table-dir", str(table_dir), "--out",
                  str(tmp_path / "x.json"), *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and option in lines[0], done.stderr
    assert not (tmp_path / "x.json").exists()


# ---------------------------------------------------------------------------
# The native command (dbrepro-native key-cache: the same settings table, no Python)


@pytest.fixture(scope="module")
def native():
    import dbrepro

    path = dbrepro.native_executable()
    assert path is not None, "dbrepro-native is not built (make build)"
    return str(path)


def _native(native, *args):
    import subprocess

    return subprocess.run([native, "key-cache", *args], capture_output=True, text=True, timeout=120)


def test_native_key_cache_runs_the_cells_the_settings_name(native, table_dir):
    done = _native(native, "--table-dir", str(table_dir), "--segments", "0,4", "--repeat", "2", "--threads", "1,2",
                   "--points", "10", "--index-fraction", "0.5", "--seconds", "0.05", "--warmup-seconds", "0.02")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    # A line per cell, in run order (segments rotated by the repeat), as `python -m dbrepro.key_cache run` prints.
    cells = [re.match(r"client_server: segments=(\d+) threads=(\d+) P=10 cache=0\.5 of the index: \d+ q/s, "
                      r"mutex waits \d+, long holds \d+$", line) for line in lines]
    assert all(cells), lines
    assert [(int(c[1]), int(c[2])) for c in cells] == [(4, 1), (0, 1), (4, 2), (0, 2)]


def test_native_key_cache_usage_lists_every_setting(native):
    done = _native(native, "--help")
    assert done.returncode == 0
    for field in key_cache_fields():
        assert "--" + field["name"].replace("_", "-") in done.stdout, field["name"]


@pytest.mark.parametrize(
    "args, message",
    [(["--segments", "0,x"], "--segments: expected a non-negative integer"),
     (["--index-fraction", "2"], "--index-fraction: must be in (0, 1]"),
     (["--mode", "pipes"], "--mode: invalid value"), (["--colour", "1"], "unknown option '--colour'"),
     (["--threads"], "--threads: missing value")],
)
def test_native_key_cache_errors_are_one_line_and_exit_2(native, table_dir, args, message):
    done = _native(native, "--table-dir", str(table_dir), *args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr


def test_native_key_cache_without_a_table_says_so(native, tmp_path):
    done = _native(native, "--table-dir", str(tmp_path))
    assert done.returncode == 2 and "--table-dir: no sbtest table" in done.stderr, done.stderr


def key_cache_fields():
    from dbrepro import _engine

    return _engine.key_cache_config_fields()


# ---------------------------------------------------------------------------
# The workflow


@pytest.mark.parametrize("name", PROFILES)
def test_dry_run_of_the_study_is_clean(dry_run, repo, name):
    done = target_dry_run(dry_run, repo, "key_cache", name)
    output = done.output
    assert done.returncode == 0, output
    assert "error" not in output.lower() and "warn" not in output.lower(), output
    config = yaml.safe_load(profile(repo, name).read_text())
    kc = config["key_cache"]
    repeats = kc.get("repeats") or config["repeats"]
    assert job_count(output, "key_cache_run") == repeats  # one per repeat: the segments interleaved inside it
    assert job_count(output, "key_cache_table") == 1
    # The real MariaDB's figure where the profile runs it (tests/test_key_cache_mariadb.py),
    # the cache sizes' where it sweeps them.
    assert job_count(output, "figure") == len(FIGURES) + int(kc["mariadb"]["enabled"]) + CACHE_SIZE_SWEPT[name]
    for rule in ("throughput_table", "relative_table", "mutex_waits_table", "cache_sizes_table"):
        assert job_count(output, f"key_cache_{rule}") == 1, rule
    assert job_count(output, "claims") == 1  # the one claims rule, for this study only


@pytest.mark.parametrize("name", ["quick", "full"])
def test_the_articles_p_and_cache_sizes_are_run_with_the_whole_index(repo, name):
    # Issue 16: the relative tables for P = 10, 50 and 100 in full; quick keeps P = 10 (the
    # one its claims judge), its P = 50 and 100 minute given to the count claims' seeds (issue
    # 29), and its cache sizes to the real MariaDB's longer cells and second draw (issue 30).
    kc = yaml.safe_load(profile(repo, name).read_text())["key_cache"]
    grids = [{key: kc[key] for key in ("threads", "points", "index_fractions")}, *kc["extra_grids"]]
    whole = {p for grid in grids if 1.0 in grid["index_fractions"] for p in grid["points"]}
    assert ({10, 50, 100} if name == "full" else {10}) <= whole
    if name == "full":
        assert {0.5, 0.25} <= {f for grid in grids for f in grid["index_fractions"]}  # the cache sizes swept
    # Both draws in full, for the model and MariaDB alike; quick draws the article's (special),
    # the one its claims judge (uniform moved to full for the 20-minute budget, issue 40).
    assert set(kc["distributions"]) == ({"special", "uniform"} if name == "full" else {"special"})


def test_timed_runs_are_interleaved_and_alone(dry_run, repo):
    done = target_dry_run(dry_run, repo, "key_cache", "quick")
    output = done.output
    blocks = re.findall(r"rule key_cache_run:\n((?:    .*\n)+)", output)
    assert blocks
    for block in blocks:
        assert "timed=1" in block and "threads: 2" in block, block
        inputs = set(re.findall(r"results/raw/key_cache/rep\d+/model\.json", block.split("output:")[0]))
        rep = int(re.search(r"results/raw/key_cache/rep(\d+)/", block.split("output:")[1]).group(1))
        # Repeat r starts after repeat r - 1; inside a repeat every cell runs each segments value in turn.
        previous = {f"results/raw/key_cache/rep{rep - 1}/model.json"} if rep > 1 else set()
        assert inputs == previous, block


@pytest.mark.slow
def test_smoke_profile_end_to_end(smoke_run):
    assert smoke_run.returncode == 0, smoke_run.output
    tables = smoke_run.results / "tables" / "key_cache"
    for name in TABLES:
        assert (tables / f"{name}.csv").stat().st_size > 0, name
    figures = smoke_run.results / "figures" / "key_cache"
    for name in [*FIGURES, "cache_size"]:  # smoke sweeps two cache sizes at 4 threads
        assert (figures / f"{name}.png").read_bytes()[:4] == b"\x89PNG", name
        assert (figures / f"{name}.pdf").read_bytes()[:4] == b"%PDF", name
    # The model's 4 checks, the real MariaDB's 7 rows and model_within_real_interval (those 8
    # inconclusive in smoke, which does not run MariaDB).
    check_claims_table(tables / "claims.csv", "key_cache", claims=12)
    relative = pd.read_csv(tables / "relative.csv")
    assert {"ours", "pitbull", "perro"} <= set(relative["source"])
    assert {"points", "segments", "source", "1", "4", "128"} <= set(relative.columns)
    waits = pd.read_csv(tables / "mutex_waits.csv")
    # Counts only: whether they fall with segments is timing, for the benchmark to print.
    assert set(waits["segments"]) == {0, 32} and (waits["mutex_waits"] >= 0).all()
    # The cache size swept (smoke: half the index at 4 threads beside the whole): each row says its size.
    assert set(waits["index_fraction"]) == {0.5, 1.0} and (waits["inflight_waits_per_query"] >= 0).all()
    sizes = pd.read_csv(tables / "cache_sizes.csv")
    assert set(sizes["index_fraction"]) == {0.5, 1.0} and set(sizes["threads"]) == {4}
    assert sizes.loc[sizes["index_fraction"] == 1.0, "misses_per_query"].eq(0).all()
    assert set(relative.loc[relative["source"] != "ours", "index_fraction"]) == {1.0}  # the article's size only
