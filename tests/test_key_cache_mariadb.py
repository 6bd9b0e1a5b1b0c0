"""E2's real system beside the model: the private server's start and stop
(with a stand-in mariadbd, so it runs everywhere), the settings, sysbench's
report, the tables and claims from fixture records, the workflow's dry runs;
and one end-to-end run on the real MariaDB, skipped where it is not installed.
Nothing here asserts a speed.
"""
from __future__ import annotations

import json
import os
import re
import signal
import sys
import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from dbrepro import key_cache_mariadb as kcm
from dbrepro.mariadb_server import PrivateServer, ServerError, missing_tools
from dbrepro.result import RunResult
from workflow_helpers import job_count, profile, snakemake, whole_dry_run

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "workflows" / "scripts"

# A stand-in for mariadbd: listens on --socket, writes --pid-file, and on
# SIGTERM removes both and exits, as mariadbd's shutdown does. FAKE_MODE:
# "exit" fails at once (a bad datadir), "stubborn" ignores SIGTERM.
FAKE_MARIADBD = textwrap.dedent("""\
    import os, signal, socket, sys, time
    args = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
    mode = os.environ.get("FAKE_MODE", "")
    if mode == "exit":
        print("[ERROR] cannot open datadir", flush=True)
        sys.exit(1)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(args["socket"])
    listener.listen(8)
    open(args["pid-file"], "w").write(str(os.getpid()))
    def shutdown(*_):
        os.unlink(args["socket"]); os.unlink(args["pid-file"]); sys.exit(0)
    signal.signal(signal.SIGTERM, signal.SIG_IGN if mode == "stubborn" else shutdown)
    while True:
        time.sleep(0.05)
""")


@pytest.fixture()
def fake_mariadbd(tmp_path):
    script = tmp_path / "fake_mariadbd.py"
    script.write_text(FAKE_MARIADBD)
    wrapper = tmp_path / "mariadbd"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {script} \"$@\"\n")
    wrapper.chmod(0o755)
    (tmp_path / "datadir").mkdir()
    return str(wrapper)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # A zombie is gone too (the helper reaps its child, so this is the other case).
    return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")


def _runtime_dirs() -> set[str]:
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("dbrepro-mariadb-")}


# ---------------------------------------------------------------------------
# The private server leaves nothing behind


def test_server_stops_and_cleans_up_after_the_block(fake_mariadbd, tmp_path):
    before = _runtime_dirs()
    with PrivateServer(tmp_path / "datadir", mariadbd=fake_mariadbd) as server:
        pid, runtime = server.pid, server.runtime
        assert Path(server.socket).exists() and not _gone(pid)
        assert "--skip-networking" in server.argv() and f"--datadir={tmp_path / 'datadir'}" in server.argv()
    assert _gone(pid) and not runtime.exists()
    assert _runtime_dirs() == before


def test_server_stops_when_the_block_raises(fake_mariadbd, tmp_path):
    before = _runtime_dirs()
    with pytest.raises(KeyboardInterrupt):
        with PrivateServer(tmp_path / "datadir", mariadbd=fake_mariadbd) as server:
            pid = server.pid
            raise KeyboardInterrupt  # what SIGTERM becomes in the command line
    assert _gone(pid) and _runtime_dirs() == before


def test_server_that_ignores_sigterm_is_killed(fake_mariadbd, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FAKE_MODE", "stubborn")
    server = PrivateServer(tmp_path / "datadir", mariadbd=fake_mariadbd, stop_timeout=0.5)
    with server:
        pid = server.pid
    assert _gone(pid) and server.runtime is None
    # The wait that ended in SIGKILL is said, with the server's log, before the log is removed.
    said = capsys.readouterr().err
    assert f"mariadbd (pid {pid}) did not stop within 0.5 s of SIGTERM and was killed; its log:" in said
    server.stop()  # twice is harmless


def test_server_that_fails_to_start_says_why_and_leaves_nothing(fake_mariadbd, tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_MODE", "exit")
    before = _runtime_dirs()
    with pytest.raises(ServerError, match="cannot open datadir"):
        with PrivateServer(tmp_path / "datadir", mariadbd=fake_mariadbd):
            pass
    assert _runtime_dirs() == before


def test_server_needs_a_datadir(tmp_path):
    with pytest.raises(ServerError, match="no datadir"):
        PrivateServer(tmp_path / "missing", mariadbd="/bin/false").start()


def test_tools_check_names_what_is_missing(monkeypatch, tmp_path, capsys):
    import dbrepro.mariadb_server as server_module

    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: nothing on PATH
    monkeypatch.setattr(server_module, "_SEARCH", {name: [str(tmp_path / name)] for name in server_module._SEARCH})
    assert missing_tools() == ["mariadbd", "mariadb-install-db", "mariadb", "sysbench"]
    assert kcm.main(["tools"]) == 1  # the workflow then runs env/install-system-deps.sh --mariadb
    assert "not installed: mariadbd, mariadb-install-db, mariadb, sysbench" in capsys.readouterr().err


# ---------------------------------------------------------------------------
# Settings and sysbench's report

GOOD = {"threads": [1, 4], "points": [10], "distributions": ["special", "uniform"], "segments": [0, 32, 64],
        "seconds": 1, "warmup_seconds": 0, "key_buffer_bytes": 0, "seed": 303, "repeat": 1}


@pytest.mark.parametrize("change, parameter", [
    ({"segments": [32, 64]}, "segments"),        # off is the reference
    ({"segments": [0]}, "segments"),
    ({"segments": [0, 65]}, "segments"),         # MariaDB's limit
    ({"threads": [4, 4]}, "threads"),
    ({"threads": [0]}, "threads"),
    ({"seconds": 0.5}, "seconds"),               # sysbench 1.0 takes whole seconds
    ({"warmup_seconds": -1}, "warmup_seconds"),
    ({"repeat": 0}, "repeat"),
    ({"distributions": ["zipf"]}, "distributions"),
    ({"distributions": ["uniform", "uniform"]}, "distributions"),
    ({"arms": "restarted"}, "arms"),
    ({"idle_probe_seconds": -1}, "idle_probe_seconds"),
])
def test_bad_settings_name_the_parameter(change, parameter):
    with pytest.raises(kcm.ConfigError) as error:
        kcm.validate_config(**{**GOOD, **change})
    assert error.value.parameter == parameter


def test_a_timed_server_runs_without_performance_schema():
    timed = kcm.server_options(16 << 20, segments=64)
    assert "--performance-schema=OFF" in timed and "--key-cache-segments=64" in timed
    assert not any(option.startswith("--performance-schema-instrument") for option in timed)
    account = kcm.server_options(16 << 20, segments=64, account=True)
    assert "--performance-schema=ON" in account and "--performance-schema=OFF" not in account
    assert f"--performance-schema-instrument={kcm.MUTEX_INSTRUMENT}=ON" in account
    assert f"--performance-schema-instrument={kcm.DATA_FILE_INSTRUMENT}=ON" in account


def _cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


@pytest.mark.parametrize("account", [False, True])
def test_a_fresh_arm_starts_its_server_with_its_segments(fake_mariadbd, tmp_path, monkeypatch, account):
    # The stand-in is found as `mariadbd` on PATH, as the runner finds the real one.
    monkeypatch.setenv("PATH", f"{Path(fake_mariadbd).parent}{os.pathsep}{os.environ['PATH']}")
    with kcm.arm_server(tmp_path / "datadir", 32 << 20, segments=32, account=account) as server:
        argv = _cmdline(server.pid)
    assert "--key-cache-segments=32" in argv and f"--key-buffer-size={32 << 20}" in argv
    assert ("--performance-schema=ON" if account else "--performance-schema=OFF") in argv


def test_segments_order_rotates_per_repeat():
    assert [kcm.interleaved_order([0, 32, 64], r) for r in (1, 2, 3, 4)] == [
        [0, 32, 64], [32, 64, 0], [64, 0, 32], [0, 32, 64]]


def test_key_buffer_holds_the_index_with_the_articles_headroom():
    assert kcm.buffer_for_index(313 * 10**6) >= 512 * 10**6 * 0.99
    assert kcm.buffer_for_index(1000) == kcm.MIN_BUFFER_BYTES
    assert kcm.buffer_for_index(10**9, asked=12345) == 12345


SYSBENCH_REPORT = """\
SQL statistics:
    queries performed:
        read:                            26076
        total:                           26076
    transactions:                        26076  (12552.86 per sec.)
    queries:                             26076  (12552.86 per sec.)
    ignored errors:                      0      (0.00 per sec.)
    reconnects:                          0      (0.00 per sec.)

General statistics:
    total time:                          2.0762s
    total number of events:              26076

Latency (ms):
         min:                                    0.28
         avg:                                    1.23
         max:                                   24.07
         95th percentile:                        3.02
         sum:                                31996.42
"""


def test_sysbench_report_is_parsed():
    found = kcm.parse_sysbench(SYSBENCH_REPORT)
    assert found["queries"] == 26076 and found["queries_per_second"] == 12552.86
    assert found["latency_ms_avg"] == 1.23 and found["latency_ms_p95"] == 3.02 and found["total_seconds"] == 2.0762


def test_a_report_without_queries_is_refused():
    with pytest.raises(ValueError, match="queries"):
        kcm.parse_sysbench(SYSBENCH_REPORT.replace("queries:", "questions:"))


# ---------------------------------------------------------------------------
# Tables and claims from fixture records


def fixture_record(repeat: int, qps: dict) -> dict:
    """A key_cache_mariadb record whose runs have the given q/s per (segments, threads)."""
    runs = []
    for (segments, threads), value in qps.items():
        runs.append({"segments": segments, "segments_active": segments, "threads": threads, "points": 10,
                     "queries": value, "queries_per_second": float(value), "errors": 0.0, "reconnects": 0.0,
                     "total_seconds": 1.0, "events": value, "latency_ms_min": 0.1, "latency_ms_avg": 1.0,
                     "latency_ms_max": 5.0, "latency_ms_p95": 2.0, "key_read_requests": 80 * value, "key_reads": 0,
                     "key_blocks_used": 4000, "key_blocks_unused": 10000, "server_cpu_seconds": 0.5,
                     "server_voluntary_switches": value, "server_involuntary_switches": value // 2,
                     "sysbench_cpu_seconds": 0.2, "wall_seconds": 1.1, "loadavg_before": [2.0, 2.0, 2.0],
                     "loadavg_after": [2.0, 2.0, 2.0]})
    config = {**GOOD, "repeat": repeat, "order": [0, 32, 64], "key_buffer_bytes": 16 << 20, "server_options": [],
              "sysbench_script": kcm.SCRIPT, "rows": 1000, "table_seed": 303, "index_bytes": 50000,
              "data_bytes": 190000}
    return RunResult(kcm.KIND, config, {"runs": runs, "host": {"cpu_count": 2}}, {"git": {"commit": "abc"}},
                     extra={"software": {"mariadb": "mariadbd 10.11", "sysbench": "sysbench 1.0.20"}}).to_dict()


def write_fixture_runs(tmp_path, repeats=5):
    """32 segments: 1.5x off at 4 threads, equal at 1; 64 segments: 2x off at 4, equal at 1 (with noise)."""
    rng = np.random.default_rng(7)
    paths = []
    for repeat in range(1, repeats + 1):
        noise = lambda: int(rng.integers(-5, 6))  # noqa: E731
        qps = {(0, 1): 1000 + noise(), (32, 1): 1000 + noise(), (64, 1): 1000 + noise(),
               (0, 4): 2000 + noise(), (32, 4): 3000 + noise(), (64, 4): 4000 + noise()}
        path = tmp_path / f"rep{repeat}" / "mariadb.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(fixture_record(repeat, qps)))
        paths.append(str(path))
    return paths


@pytest.fixture()
def scripts(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import key_cache_mariadb_tables

    return key_cache_mariadb_tables


def model_throughput() -> pd.DataFrame:
    return pd.DataFrame({"segments": [0, 32, 64, 0, 32, 64], "threads": [1, 1, 1, 4, 4, 4], "points": [10] * 6,
                         "qps_median": [100.0, 100.0, 100.0, 100.0, 110.0, 120.0]})


def test_tables_from_fixture_records(scripts, tmp_path):
    paths = write_fixture_runs(tmp_path)
    model = tmp_path / "model.csv"
    model_throughput().to_csv(model, index=False)
    out = {name: tmp_path / f"mariadb_{name}.csv" for name in ("throughput", "gains", "relative")}
    scripts.main(model, REPO / "workflows" / "data" / "key_cache_paper.yaml", out["throughput"], out["gains"],
                 out["relative"], paths)
    throughput = pd.read_csv(out["throughput"])
    assert len(throughput) == 6 and (throughput["repeats"] == 5).all() and (throughput["key_reads"] == 0).all()
    assert throughput["key_requests_per_query"].round(6).eq(80).all()
    gains = pd.read_csv(out["gains"]).set_index(["segments", "threads"])
    assert gains.loc[(64, 4), "mariadb_gain"] == pytest.approx(100, abs=1)
    assert gains.loc[(32, 4), "mariadb_gain"] == pytest.approx(50, abs=1)
    assert gains.loc[(64, 4), "ci_low"] <= gains.loc[(64, 4), "mariadb_gain"] <= gains.loc[(64, 4), "ci_high"]
    assert gains.loc[(64, 4), "model_gain"] == pytest.approx(20)
    assert gains.loc[(64, 4), "perro"] == 6 and gains.loc[(64, 4), "pitbull"] == 55  # the article's, P=10
    relative = pd.read_csv(out["relative"])
    assert list(relative["source"][:6]) == scripts.SOURCES
    assert {"points", "segments", "source", "1", "4"} <= set(relative.columns)


def test_figure_from_fixture_gains(scripts, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(REPO))
    from figures.key_cache_mariadb import main

    gains = scripts.gains_table(kcm_frame(write_fixture_runs(tmp_path)), model_throughput(), yaml.safe_load(
        (REPO / "workflows" / "data" / "key_cache_paper.yaml").read_text()))
    gains.to_csv(tmp_path / "gains.csv", index=False)
    assert main([str(tmp_path / "gains.csv"), str(tmp_path / "f.png"), str(tmp_path / "f.pdf")]) == 0
    assert (tmp_path / "f.png").read_bytes()[:4] == b"\x89PNG" and (tmp_path / "f.pdf").read_bytes()[:4] == b"%PDF"


def test_fewer_repeats_give_no_interval(scripts, tmp_path):
    runs = kcm_frame(write_fixture_runs(tmp_path, repeats=3))
    gains = scripts.gains_table(runs, model_throughput(), yaml.safe_load(
        (REPO / "workflows" / "data" / "key_cache_paper.yaml").read_text()))
    assert gains["ci_low"].isna().all() and (gains["repeats"] == 3).all()


def kcm_frame(paths):
    from dbrepro.records import load_runs

    return load_runs(paths)


def test_claims_put_the_real_system_beside_the_model(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    from dbrepro import verdicts as vd
    import key_cache_claims
    import key_cache_common as common

    criteria = vd.load_criteria("key_cache")
    paper = common.load_paper(REPO / "workflows" / "data" / "key_cache_paper.yaml")
    model = kcm_frame(write_fixture_runs(tmp_path / "model"))  # the model's rows: the same columns
    found = key_cache_claims.mariadb_claims(key_cache_claims.Runs(model, paper),
                                            kcm_frame(write_fixture_runs(tmp_path)), criteria.claims, "")
    by_id = {}
    for result in found:
        by_id.setdefault(result.claim_id, []).append(result)
    assert set(by_id) == {"mariadb_one_thread_small_loss", "mariadb_segments_help",
                          "mariadb_gain_grows_with_threads", "mariadb_model_agrees", "mariadb_gain_follows_hardware",
                          "mariadb_64_segments_like_32", "mariadb_points_change_little"}
    # One P in the fixture: whether P changes the gain is the full profile's to judge.
    points = by_id["mariadb_points_change_little"][0].outcome
    assert points.reproduced == "not judged" and "judged by the full profile" in points.reason
    # One finding, one row: the median over its cells (4 threads x 32 and 64 segments), paired by repeat.
    assert [r.variant for r in by_id["mariadb_segments_help"]] == [""]
    segments_help = by_id["mariadb_segments_help"][0].outcome
    assert segments_help.reproduced == "yes" and segments_help.pairing.startswith("paired by repeat")
    assert by_id["mariadb_gain_grows_with_threads"][0].outcome.reproduced == "yes"
    assert [r.variant for r in by_id["mariadb_model_agrees"]] == ["1 thread", "4 threads"]
    assert all(r.outcome.reproduced == "yes" for r in by_id["mariadb_model_agrees"])  # the same runs: 0 points


def test_the_mutex_account_reads_the_accounting_run_and_says_it_was_not_timed(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import key_cache_model_vs_real as vs

    timed = write_fixture_runs(tmp_path / "timed")  # performance_schema off: no cache_lock columns
    record = json.loads(Path(timed[0]).read_text())
    for run in record["metrics"]["runs"]:
        run.update(timed=False, performance_schema="on", cache_lock_waits=24 * run["queries"],
                   cache_lock_wait_us=2.0 * run["queries"], data_file_reads=10 * run["queries"],
                   data_file_read_us=run["queries"])
    account = tmp_path / "account" / "mariadb.json"
    account.parent.mkdir()
    account.write_text(json.dumps(record))
    # The model's side: the timed fixture records stand in (their rows have the cells, no counters).
    vs.main(timed, timed, tmp_path / "vs.csv", tmp_path / "account.csv", [str(account)])
    table = pd.read_csv(tmp_path / "account.csv")
    real, ours = table[table["source"] == "mariadb"], table[table["source"] == "model"]
    assert len(real) == 6 and (real["timed"] == False).all() and (ours["timed"] == True).all()  # noqa: E712
    assert real["waits_per_query"].round(6).eq(24).all() and (real["repeats"] == 1).all()
    # The timed runs still give the gains, cell by cell.
    assert len(pd.read_csv(tmp_path / "vs.csv")) > 0


def test_claims_without_the_real_system_say_why(monkeypatch):
    monkeypatch.syspath_prepend(str(SCRIPTS))
    from dbrepro import verdicts as vd
    import key_cache_claims

    criteria = vd.load_criteria("key_cache")
    found = key_cache_claims.mariadb_claims(None, None, criteria.claims, "not run in smoke")
    assert len(found) == 7 and all(r.outcome.reproduced == "inconclusive" for r in found)
    assert all("not run in smoke" in r.outcome.reason for r in found)


# ---------------------------------------------------------------------------
# The workflow


@pytest.mark.parametrize("name", ["smoke", "quick", "full"])
def test_dry_run_schedules_the_real_system_as_the_profile_says(dry_run, repo, name):
    done = whole_dry_run(dry_run, repo, name)
    output = done.output
    assert done.returncode == 0, output
    config = yaml.safe_load(profile(repo, name).read_text())
    mariadb = config["key_cache"]["mariadb"]
    repeats = (mariadb["repeats"] or config["repeats"]) if mariadb["enabled"] else 0
    assert job_count(output, "key_cache_mariadb_run") == repeats
    assert job_count(output, "key_cache_mariadb_table") == (1 if mariadb["enabled"] else 0)
    assert job_count(output, "key_cache_mariadb_account") == (1 if mariadb["enabled"] else 0)
    if mariadb["enabled"]:
        assert "install-system-deps.sh --mariadb" in output
        commands = re.findall(r"-m dbrepro run key_cache mariadb run .*", output)
        timed = [c for c in commands if "--out results/raw/key_cache/rep" in c]
        # The timed runs: a server per arm (the article's procedure), no observer; the account apart.
        assert len(timed) == repeats and all("--arms fresh" in c and "--account" not in c for c in timed)
        accounts = [c for c in commands if "--account" in c]
        assert len(accounts) == 1 and "--out results/raw/key_cache/account/mariadb.json" in accounts[0]
    else:
        assert mariadb["skip_reason"]


def test_bad_mariadb_config_fails_validation(python, repo, tmp_path):
    config = tmp_path / "bad.yaml"
    config.write_text("key_cache:\n  mariadb:\n    segments: [32, 64]\n")
    done = snakemake(python, repo, tmp_path, "-n", "--configfile", str(config))
    assert done.returncode != 0 and "segments" in done.stdout + done.stderr


# ---------------------------------------------------------------------------
# The real MariaDB (skipped where it is not installed)


@pytest.mark.slow
@pytest.mark.skipif(bool(missing_tools()), reason=f"needs {', '.join(missing_tools())}: "
                    "env/install-system-deps.sh --mariadb")
def test_real_server_runs_the_grid_and_leaves_nothing(tmp_path):
    before = _runtime_dirs()
    table = kcm.prepare(tmp_path / "datadir", rows=2000)
    assert table["engine"] == "MyISAM" and table["table_rows"] == 2000 and table["index_bytes"] > 0
    assert table["table_k"] == "id"
    (tmp_path / "table.json").write_text(json.dumps(table))
    # Timed, the article's way: a server per arm, started with its segments, performance_schema off.
    result = kcm.run(datadir=tmp_path / "datadir", table=tmp_path / "table.json", threads=[1, 2], points=[10],
                     distributions=["special", "uniform"], segments=[0, 4], seconds=1, warmup_seconds=0, repeat=2)
    frame = result.to_frame()
    assert list(frame["segments"]) == [4, 0] * 4  # repeat 2 starts with the second setting
    assert list(frame["segments_active"]) == [4, 0] * 4
    assert list(frame["distribution"]) == ["special"] * 4 + ["uniform"] * 4
    assert list(frame["server_start"]) == list(range(1, 9)) and result.config["server_starts"] == 8
    assert frame["timed"].all() and (frame["performance_schema"] == "off").all()
    assert "cache_lock_waits" not in frame.columns  # no observer in a timed run
    assert all("--performance-schema=OFF" in options and f"--key-cache-segments={s}" in options
               for s, options in result.config["server_options"].items())
    assert (frame["queries"] > 0).all() and (frame["key_reads"] == 0).all()  # the index stayed in the cache
    # The preload check: blocks to spare after LOAD INDEX INTO CACHE, nothing read from the file.
    assert (frame["key_blocks_unused"] > 0).all() and frame["index_preloaded"].all()
    assert (frame["key_read_requests"] > 0).all()
    assert (frame["data_file_resident_bytes"] > 0).all() and (frame["server_rchar"] > 0).all()
    assert "MariaDB" in result.extra["software"]["mariadb"] and "1.0" in result.extra["software"]["sysbench"]
    # The accounting run, the other way (one server, SET GLOBAL per arm): performance_schema's
    # account of the key cache's mutex, marked not timed. Each query takes the mutex (k = id:
    # every point is one index descent, its blocks each read under the segment's lock).
    account = kcm.run(datadir=tmp_path / "datadir", table=tmp_path / "table.json", threads=[2], points=[10],
                      segments=[0, 4], seconds=1, warmup_seconds=0, arms="switched", account=True).to_frame()
    assert list(account["segments_active"]) == [0, 4] and list(account["server_start"]) == [1, 1]
    assert not account["timed"].any() and (account["performance_schema"] == "on").all()
    assert (account["cache_lock_waits"] >= account["queries"]).all(), account[["cache_lock_waits", "queries"]]
    assert (account["cache_lock_wait_us"] > 0).all()
    assert _runtime_dirs() == before
    assert not (tmp_path / "datadir" / "mysqld.pid").exists()


def _servers_on(datadir: Path) -> list[int]:
    """Processes whose command line names this datadir (a private server still running on it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if f"--datadir={datadir}" in cmdline and "mariadbd" in cmdline:
                found.append(int(entry.name))
    return found


@pytest.mark.slow
@pytest.mark.skipif(bool(missing_tools()), reason=f"needs {', '.join(missing_tools())}: "
                    "env/install-system-deps.sh --mariadb")
def test_sigterm_mid_run_stops_the_real_server(tmp_path):
    import subprocess
    import time

    datadir = (tmp_path / "datadir").resolve()
    (tmp_path / "table.json").write_text(json.dumps(kcm.prepare(datadir, rows=2000)))
    before = _runtime_dirs()
    job = subprocess.Popen([sys.executable, "-m", "dbrepro.key_cache_mariadb", "run", "--datadir", str(datadir),
                            "--table", str(tmp_path / "table.json"), "--threads", "2", "--segments", "0,8",
                            "--seconds", "30", "--warmup-seconds", "0", "--out", str(tmp_path / "run.json")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not _servers_on(datadir) and time.monotonic() < deadline and job.poll() is None:
        time.sleep(0.2)
    assert _servers_on(datadir), job.communicate()
    job.send_signal(signal.SIGTERM)  # what Snakemake sends a job it cancels
    out, err = job.communicate(timeout=120)
    assert job.returncode == 130, (out, err)
    assert "interrupted" in err and not (tmp_path / "run.json").exists()
    assert _servers_on(datadir) == [] and _runtime_dirs() == before
    if "did not stop within" in err:  # the 60 s wait seen in whole-suite runs: shown in pytest's warnings summary
        import warnings

        warnings.warn(next(line for line in err.splitlines() if "did not stop within" in line))


@pytest.mark.slow
@pytest.mark.skipif(bool(missing_tools()), reason=f"needs {', '.join(missing_tools())}: "
                                                  "env/install-system-deps.sh --mariadb")
@pytest.mark.parametrize("polls_before_interrupt", [0, 1, 3])
def test_a_server_interrupted_while_starting_stops_at_once(tmp_path, monkeypatch, capsys, polls_before_interrupt):
    """Ctrl-C (or SIGTERM to the job) while mariadbd starts: a SIGTERM sent then wedged the real
    server until its kill 60 s later (it answered on its socket, served nothing, ignored SIGTERM);
    the server is now stopped once it serves, in seconds, without a kill."""
    import time

    datadir = (tmp_path / "datadir").resolve()
    kcm.prepare(datadir, rows=200)
    polls = []

    def interrupted(self):
        polls.append(1)
        if len(polls) > polls_before_interrupt:
            raise KeyboardInterrupt
        return False

    monkeypatch.setattr(PrivateServer, "_socket_answers", interrupted)
    server = PrivateServer(datadir)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        server.start()
    assert time.monotonic() - started < 30
    assert server.process is None and server.runtime is None and _servers_on(datadir) == []
    assert "did not stop" not in capsys.readouterr().err
