"""E2's real system beside the model: MariaDB's own MyISAM key cache, run as a
private server (dbrepro.mariadb_server), with select_random_points as the
article ran it (SELECT id, k, c, pad FROM sbtest1 WHERE k IN (P points)),
from E2's one workload definition (dbrepro.key_cache_workload writes it as a
sysbench Lua script; the model's clients draw the same points).

    prepare   mariadb-install-db into a fresh datadir, sbtest1 loaded as MyISAM by the
              workload script (k = id, as the article's sysbench 0.5 script), table.json beside it
    run       one repeat: for every (distribution, P, threads) cell each key_cache_segments
              value in turn (off, 32, 64, ...), one sysbench run each; one record per repeat.
              How an arm gets its setting (`arms`):
                fresh     (the default, the article's procedure) a server started for the arm with
                          --key-cache-segments=N and a key buffer that holds the index, the index
                          preloaded (LOAD INDEX INTO CACHE), one warm-up run, the measured run, stopped
                switched  one server for the repeat; per cell one warm-up, then per arm SET GLOBAL
                          key_cache_segments (repartitions and empties the cache), LOAD INDEX, the run
              Timed runs start the server with performance_schema OFF (the article's MariaDB 5.2
              had none; what it costs, measured: reference/key_cache/perf_schema_cost.csv,
              docs/key_cache.md). `--account` makes an accounting run instead: the same
              cells with performance_schema's key cache mutex and data file instruments on,
              marked `timed: false`; the mutex account reads those, never the timed runs.

Each run records sysbench's queries/s and latency, the Key_read_requests and
Key_reads of the run and Key_blocks_unused after the preload (`index_preloaded`:
the index was in the cache and no block was read from the file while
measuring), in accounting runs performance_schema's count and wait time of
the key cache's mutex (wait/synch/mutex/mysys/KEY_CACHE::cache_lock, every
segment's) and of the data file's reads (wait/io/file/myisam/dfile), the
server's CPU time, context switches, threads created and bytes read (from the
OS page cache or the storage), how much of the data file the page cache held
before the run, sysbench's CPU time, the load average, and the MariaDB and
sysbench versions.

    dbrepro run key_cache mariadb tools      # exit 1 naming what is not installed
    dbrepro run key_cache mariadb prepare --datadir DIR --rows N --out DIR/table.json
    dbrepro run key_cache mariadb run --datadir DIR --table DIR/table.json --threads 1,4 --points 10 \\
        --distributions special,uniform --segments 0,32,64 --seconds 2 --warmup-seconds 1 --seed 303 \\
        --repeat 1 [--arms fresh|switched] [--account] --out FILE.json
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from . import key_cache, key_cache_workload, provenance
from .host_load import loadavg, row_columns, run_guarded
from .key_cache import _integer_list as _list_arg, _Parser
from .mariadb_server import PrivateServer, ServerError, ToolMissing, missing_tools, resident_bytes, tools
from .result import RunResult
from .tpcc import ConfigError, _integer, guard_settings

KIND = "key_cache_mariadb"
DATABASE, TABLE = "sbtest", "sbtest1"
SCRIPT = "select_points.lua"  # written beside the datadir by key_cache_workload
# performance_schema's instruments, read around every measured run of an accounting run.
MUTEX_INSTRUMENT = "wait/synch/mutex/mysys/KEY_CACHE::cache_lock"
DATA_FILE_INSTRUMENT = "wait/io/file/myisam/dfile"
PERFORMANCE_SCHEMA = ["--performance-schema=ON",
                      *(f"--performance-schema-instrument={name}=ON" for name in (MUTEX_INSTRUMENT, DATA_FILE_INSTRUMENT))]
# A timed run's server: no observer (the article's MariaDB 5.2 had no performance_schema).
NO_PERFORMANCE_SCHEMA = ["--performance-schema=OFF"]
# How an arm gets its key_cache_segments (module docstring): the article's procedure first.
ARMS = ("fresh", "switched")
MAX_SEGMENTS = 64  # MariaDB's limit
# The article's key buffer (512 MB) over its index (313 MB): the same headroom here.
BUFFER_OVER_INDEX = 512 / 313
MIN_BUFFER_BYTES = 16 << 20  # 64 segments of a small index still get room each
# The article's runtime options (its MYSQLD_OPTIONS), less what a private server sets itself.
ARTICLE_OPTIONS = ["--max-connections=256", "--query-cache-size=0", "--query-cache-type=0", "--skip-grant-tables",
                   "--table-open-cache=512", "--thread-cache-size=512"]
# InnoDB is not measured; a small pool keeps the server's memory to what MyISAM needs.
SMALL_INNODB = ["--innodb-buffer-pool-size=16M"]


# ---------------------------------------------------------------------------
# Settings


def _int_list(name: str, values: Any, *, minimum: int, maximum: int) -> list[int]:
    """One integer or a non-empty list of them, each in minimum..maximum and listed once."""
    if isinstance(values, int) and not isinstance(values, bool):
        values = [values]
    if not isinstance(values, (list, tuple)) or not values:
        raise ConfigError(name, f"must be a non-empty list of integers, got {values!r}")
    checked = [_integer(name, value, minimum=minimum, maximum=maximum) for value in values]
    if len(set(checked)) != len(checked):
        raise ConfigError(name, f"lists a value twice: {checked}")
    return checked


def validate_config(**config: Any) -> dict[str, Any]:
    """A run's settings, checked; ConfigError names the first bad one."""
    segments = _int_list("segments", config["segments"], minimum=0, maximum=MAX_SEGMENTS)
    if 0 not in segments or len(segments) < 2:
        raise ConfigError("segments", f"must include 0 (off, the reference) and another value, got {segments}")
    distributions = config["distributions"]
    if isinstance(distributions, str):
        distributions = distributions.split(",")
    if not distributions or any(d not in key_cache_workload.DISTRIBUTIONS for d in distributions) \
            or len(set(distributions)) != len(distributions):
        raise ConfigError("distributions", f"each of {', '.join(key_cache_workload.DISTRIBUTIONS)} at most once, "
                                           f"got {config['distributions']!r}")
    if config.get("arms", "fresh") not in ARMS:
        raise ConfigError("arms", f"one of {', '.join(ARMS)}, got {config['arms']!r}")
    return {
        "arms": config.get("arms", "fresh"),
        "account": bool(config.get("account", False)),
        "idle_probe_seconds": _integer("idle_probe_seconds", config.get("idle_probe_seconds", 0), minimum=0,
                                       maximum=60),
        "distributions": list(distributions),
        "threads": _int_list("threads", config["threads"], minimum=1, maximum=1024),
        "points": _int_list("points", config["points"], minimum=1, maximum=10000),
        "segments": segments,
        # sysbench 1.0 takes whole seconds.
        "seconds": _integer("seconds", config["seconds"], minimum=1, maximum=86400),
        "warmup_seconds": _integer("warmup_seconds", config["warmup_seconds"], minimum=0, maximum=86400),
        "key_buffer_bytes": _integer("key_buffer_bytes", config["key_buffer_bytes"], minimum=0),
        "seed": _integer("seed", config["seed"], minimum=0),
        "repeat": _integer("repeat", config["repeat"], minimum=1),
    }


def interleaved_order(segments: Sequence[int], repeat: int) -> list[int]:
    """The segment settings in the order each cell runs them: the list rotated by one per repeat,
    so that no setting always runs first after the thread count changes."""
    shift = (repeat - 1) % len(segments)
    return list(segments[shift:]) + list(segments[:shift])


def buffer_for_index(index_bytes: int, asked: int = 0) -> int:
    """`asked`, or the article's headroom over the index (rounded up to MiB), at least MIN_BUFFER_BYTES."""
    if asked:
        return asked
    mib = 1 << 20
    return max(MIN_BUFFER_BYTES, math.ceil(index_bytes * BUFFER_OVER_INDEX / mib) * mib)


def server_options(buffer_bytes: int, *, segments: int = 0, account: bool = False) -> list[str]:
    """The server's options: the key buffer and segments set at start, as the article's MYSQLD_OPTIONS;
    performance_schema's instruments only in an accounting run (`account`), off in a timed one."""
    return [f"--key-buffer-size={buffer_bytes}", f"--key-cache-segments={segments}", *ARTICLE_OPTIONS,
            *SMALL_INNODB, *(PERFORMANCE_SCHEMA if account else NO_PERFORMANCE_SCHEMA)]


def script_path(datadir: str | os.PathLike) -> Path:
    """The workload script of a datadir: beside it, written by prepare and by every run."""
    return Path(datadir).resolve().parent / SCRIPT


# ---------------------------------------------------------------------------
# Versions and sysbench


def versions(paths: dict[str, str]) -> dict[str, str]:
    def first_line(argv):
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
        except (OSError, subprocess.SubprocessError) as error:
            return f"unknown ({error})"
        return (done.stdout.strip().splitlines() or ["unknown"])[0]

    return {"mariadb": first_line([paths["mariadbd"], "--version"]),
            "sysbench": first_line([paths["sysbench"], "--version"])}


def sysbench_argv(paths: dict[str, str], socket: str, script: str | os.PathLike, *, rows: int, points: int = 10,
                  distribution: str = "special", seed: int = 303) -> list[str]:
    return [paths["sysbench"], str(script), "--db-driver=mysql", f"--mysql-socket={socket}", "--mysql-user=root",
            f"--mysql-db={DATABASE}", *key_cache_workload.sysbench_options(
                rows=rows, points=points, distribution=distribution, seed=seed)]


def query_argv(paths: dict[str, str], socket: str, script: str | os.PathLike, *, threads: int, points: int,
               distribution: str, rows: int, seed: int) -> list[str]:
    """sysbench running the workload's query from `threads` clients until --time ends it."""
    return [*sysbench_argv(paths, socket, script, rows=rows, points=points, distribution=distribution, seed=seed),
            f"--threads={threads}", "--events=0", "--percentile=95"]


def instrument_totals(server: PrivateServer) -> dict[str, tuple[int, float]]:
    """performance_schema's (count, total wait in microseconds) of MUTEX_INSTRUMENT and
    DATA_FILE_INSTRUMENT, summed over their instances (one mutex per segment)."""
    rows = server.query("SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT FROM "
                        "performance_schema.events_waits_summary_global_by_event_name WHERE EVENT_NAME IN "
                        f"('{MUTEX_INSTRUMENT}', '{DATA_FILE_INSTRUMENT}')")
    # SUM_TIMER_WAIT is in picoseconds.
    return {name: (int(count), int(picoseconds) / 1e6) for name, count, picoseconds in rows}


_NUMBER = r"([0-9]+(?:\.[0-9]+)?)"
_SYSBENCH_FIELDS = {
    "queries": rf"^\s*queries:\s+{_NUMBER}\s+\(",
    "queries_per_second": rf"^\s*queries:\s+[0-9]+\s+\({_NUMBER} per sec\.\)",
    "errors": rf"^\s*ignored errors:\s+{_NUMBER}",
    "reconnects": rf"^\s*reconnects:\s+{_NUMBER}",
    "total_seconds": rf"^\s*total time:\s+{_NUMBER}s",
    "events": rf"^\s*total number of events:\s+{_NUMBER}",
    "latency_ms_min": rf"^\s*min:\s+{_NUMBER}",
    "latency_ms_avg": rf"^\s*avg:\s+{_NUMBER}",
    "latency_ms_max": rf"^\s*max:\s+{_NUMBER}",
    "latency_ms_p95": rf"^\s*95th percentile:\s+{_NUMBER}",
}


def parse_sysbench(text: str) -> dict[str, float]:
    """The numbers of sysbench 1.0's report; ValueError naming the first one missing."""
    found = {}
    for name, pattern in _SYSBENCH_FIELDS.items():
        match = re.search(pattern, text, re.MULTILINE)
        if not match:
            raise ValueError(f"sysbench's report has no {name} line")
        found[name] = float(match.group(1))
    return found


def _run_checked(argv: list[str], what: str, timeout: float) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode != 0:
        tail = " | ".join((done.stdout + done.stderr).strip().splitlines()[-6:])
        raise ServerError(f"{what} failed (exit status {done.returncode}): {tail}")
    return done.stdout


# ---------------------------------------------------------------------------
# Prepare


def prepare(datadir: str | os.PathLike, *, rows: int) -> dict[str, Any]:
    """A fresh datadir with sbtest1 (`rows` rows, k = id, MyISAM) loaded by the
    workload script; returns the table's description."""
    rows = _integer("rows", rows, minimum=100)
    paths = tools()
    datadir = Path(datadir).resolve()
    if datadir.exists():
        shutil.rmtree(datadir)
    datadir.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    _run_checked([paths["mariadb-install-db"], "--no-defaults", f"--datadir={datadir}", "--skip-test-db",
                  "--auth-root-authentication-method=normal",
                  *(["--user=root"] if os.geteuid() == 0 else [])], "mariadb-install-db", 600)
    with PrivateServer(datadir, options=server_options(MIN_BUFFER_BYTES)) as server:
        server.query(f"CREATE DATABASE {DATABASE}")
        script = key_cache_workload.write_script(script_path(datadir))
        _run_checked([*sysbench_argv(paths, server.socket, script, rows=rows), "prepare"], "sysbench prepare",
                     24 * 3600)
        engine = server.query(f"SELECT ENGINE, TABLE_ROWS FROM information_schema.TABLES "
                              f"WHERE TABLE_SCHEMA = '{DATABASE}' AND TABLE_NAME = '{TABLE}'")
        software = versions(paths)
    if not engine or engine[0][0] != "MyISAM":
        raise ServerError(f"{DATABASE}.{TABLE} is {engine[0][0] if engine else 'missing'}, not MyISAM")
    files = datadir / DATABASE
    return {
        "rows": rows, "table_rows": int(engine[0][1]), "seed": 0, "engine": engine[0][0],
        **key_cache_workload.describe(),
        "index_bytes": (files / f"{TABLE}.MYI").stat().st_size, "data_bytes": (files / f"{TABLE}.MYD").stat().st_size,
        "prepare_seconds": round(time.perf_counter() - started, 3), "software": software,
    }


def read_table(path: str | os.PathLike) -> dict[str, Any]:
    try:
        table = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError("table", f"cannot read {str(path)!r} ({error}); run `prepare` first") from None
    for key in ("rows", "seed", "index_bytes"):
        if key not in table:
            raise ConfigError("table", f"{str(path)!r} lacks {key!r}; run `prepare` again")
    return table


# ---------------------------------------------------------------------------
# Run


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def data_file(datadir: str | os.PathLike) -> Path:
    return Path(datadir).resolve() / DATABASE / f"{TABLE}.MYD"


def switch_segments(server: PrivateServer, segments: int) -> None:
    """The `switched` way: repartition (and empty) the running server's key cache."""
    server.query(f"SET GLOBAL key_cache_segments = {segments}")


def preload(server: PrivateServer) -> int:
    """LOAD INDEX INTO CACHE: the whole index into the key buffer; the segments the cache has."""
    loaded = server.query(f"LOAD INDEX INTO CACHE {DATABASE}.{TABLE}")
    if not loaded or loaded[-1][-1] != "OK":
        raise ServerError(f"LOAD INDEX INTO CACHE: {loaded}")
    active = server.query("SELECT SEGMENTS FROM information_schema.KEY_CACHES "
                          "WHERE KEY_CACHE_NAME = 'default' LIMIT 1")
    return int(active[0][0]) if active and active[0][0].isdigit() else 0


# Server status read around each measured run besides the key cache's (Key%).
_STATUS = ("Threads_created", "Threads_connected", "Uptime")


def measure(server: PrivateServer, paths: dict[str, str], script: str | os.PathLike, *, segments: int,
            segments_active: int, threads: int, points: int, distribution: str, seconds: int, rows: int, seed: int,
            account: bool = False, idle_probe_seconds: int = 0) -> dict[str, Any]:
    """One measured sysbench run on a server whose cache is set and loaded, with its counters around it.
    performance_schema is read only in an accounting run (`account`); `idle_probe_seconds` first
    measures the server's own CPU use while no client runs (its background threads)."""
    workload = query_argv(paths, server.socket, script, threads=threads, points=points, distribution=distribution,
                          rows=rows, seed=seed)
    idle_cores = None
    if idle_probe_seconds:
        cpu_idle = server.cpu_seconds()
        time.sleep(idle_probe_seconds)
        idle_cores = round((server.cpu_seconds() - cpu_idle) / idle_probe_seconds, 4)
    resident = resident_bytes(data_file(server.datadir))
    server_threads = server.thread_count()
    before, cpu, switches, io, sysbench_cpu = server.global_status(also=_STATUS), server.cpu_seconds(), \
        server.context_switches(), server.io(), _children_cpu()
    waits_before = instrument_totals(server) if account else {}
    loadavg_before, started = loadavg(), time.perf_counter()
    report = _run_checked([*workload, f"--time={seconds}", "run"], "sysbench run", seconds + 600)
    wall = time.perf_counter() - started
    waits_after = instrument_totals(server) if account else {}
    after, cpu_after, switches_after, io_after = server.global_status(also=_STATUS), server.cpu_seconds(), \
        server.context_switches(), server.io()
    measured = parse_sysbench(report)
    key_reads = after.get("Key_reads", 0) - before.get("Key_reads", 0)

    def delta(name: str) -> tuple[int, float]:
        count_after, us_after = waits_after.get(name, (0, 0.0))
        count_before, us_before = waits_before.get(name, (0, 0.0))
        return count_after - count_before, round(us_after - us_before, 3)

    def io_delta(name: str) -> int | None:
        return io_after[name] - io[name] if name in io and name in io_after else None

    account_fields = {}
    if account:
        mutex_count, mutex_us = delta(MUTEX_INSTRUMENT)
        data_count, data_us = delta(DATA_FILE_INSTRUMENT)
        # performance_schema: every acquisition of a segment's cache_lock (a "wait" whether or not it
        # waited) and its time, and the data file's reads (the rows), over the measured run.
        account_fields = {"cache_lock_waits": mutex_count, "cache_lock_wait_us": mutex_us,
                          "data_file_reads": data_count, "data_file_read_us": data_us}
    return {
        "segments": segments,
        "segments_active": segments_active,
        "distribution": distribution,
        "threads": threads,
        "points": points,
        **measured,
        # Timed: performance_schema off. An accounting run (performance_schema on) is not a timing.
        "timed": not account,
        "performance_schema": "on" if account else "off",
        # The server's counters around the measured sysbench process (its connects and disconnects included).
        "key_read_requests": after.get("Key_read_requests", 0) - before.get("Key_read_requests", 0),
        "key_reads": key_reads,
        "key_blocks_used": after.get("Key_blocks_used", 0),
        "key_blocks_unused": before.get("Key_blocks_unused", 0),  # after the preload, before measuring
        # The whole index was in the cache (blocks to spare) and no block came from the file while measuring.
        "index_preloaded": before.get("Key_blocks_unused", 0) > 0 and key_reads == 0,
        **account_fields,
        "server_cpu_seconds": round(cpu_after - cpu, 4),
        "server_voluntary_switches": switches_after["voluntary"] - switches["voluntary"],
        "server_involuntary_switches": switches_after["involuntary"] - switches["involuntary"],
        # How long the server had run, how many threads it had made (the thread cache reuses them),
        # its OS threads, and what it read: rchar from read calls (the page cache's or not),
        # read_bytes from the storage; the data file's bytes in the page cache before the run.
        "server_uptime_seconds": before.get("Uptime"),
        "server_threads_created": after.get("Threads_created", 0) - before.get("Threads_created", 0),
        "server_threads_created_before": before.get("Threads_created"),
        "server_os_threads": server_threads,
        "server_rchar": io_delta("rchar"),
        "server_read_bytes": io_delta("read_bytes"),
        "data_file_resident_bytes": resident,
        "server_anon_huge_bytes": server.anon_huge_bytes(),
        "server_idle_cores": idle_cores,
        "sysbench_cpu_seconds": round(_children_cpu() - sysbench_cpu, 4),
        "wall_seconds": round(wall, 4),
        "loadavg_before": loadavg_before,
        "loadavg_after": loadavg(),
    }


def one_run(server: PrivateServer, paths: dict[str, str], script: str | os.PathLike, *, segments: int, threads: int,
            points: int, distribution: str, seconds: int, rows: int, seed: int, account: bool = False,
            idle_probe_seconds: int = 0) -> dict[str, Any]:
    """One arm the `switched` way: SET GLOBAL key_cache_segments, LOAD INDEX, the measured run."""
    switch_segments(server, segments)  # repartitions, and empties, the cache
    active = preload(server)
    return measure(server, paths, script, segments=segments, segments_active=active, threads=threads, points=points,
                   distribution=distribution, seconds=seconds, rows=rows, seed=seed, account=account,
                   idle_probe_seconds=idle_probe_seconds)


def warm_up(server: PrivateServer, paths: dict[str, str], script: str | os.PathLike, *, threads: int, points: int,
            distribution: str, seconds: int, rows: int, seed: int) -> None:
    """An unmeasured run (sysbench 1.0 has no --warmup-time): the data file's pages into the OS
    cache and the server's threads started (its thread cache keeps them for the measured run)."""
    if seconds:
        _run_checked([*query_argv(paths, server.socket, script, threads=threads, points=points,
                                  distribution=distribution, rows=rows, seed=seed), f"--time={seconds}", "run"],
                     "sysbench warm-up", seconds + 600)


def arm_server(datadir: str | os.PathLike, buffer_bytes: int, *, segments: int, account: bool) -> PrivateServer:
    """The `fresh` way's server for one arm: its segments set at start (the article's MYSQLD_OPTIONS)."""
    return PrivateServer(datadir, options=server_options(buffer_bytes, segments=segments, account=account))


def run(*, datadir: str | os.PathLike, table: str | os.PathLike, threads: Sequence[int] = (1, 4),
        points: Sequence[int] = (10,), distributions: str | Sequence[str] = ("special",),
        segments: Sequence[int] = (0, 32, 64), seconds: int = 2, warmup_seconds: int = 1,
        key_buffer_bytes: int = 0, seed: int = 303, repeat: int = 1, arms: str = "fresh", account: bool = False,
        idle_probe_seconds: int = 0, max_foreign_cores: float | None = None,
        max_reruns: int | None = None) -> RunResult:
    """One repeat of the grid: every (distribution, points, threads) cell, each segments value in
    turn, each arm in a server of its own (`fresh`) or all in one (`switched`; module docstring).

    Each cell (all its segments values) is metered for foreign load and run
    again whole while disturbed (max_foreign_cores, max_reruns: as tpcc.run);
    each of its runs carries the cell's five fields."""
    config = validate_config(threads=list(threads), points=list(points), distributions=distributions,
                             segments=list(segments), seconds=seconds, warmup_seconds=warmup_seconds,
                             key_buffer_bytes=key_buffer_bytes, seed=seed, repeat=repeat, arms=arms, account=account,
                             idle_probe_seconds=idle_probe_seconds)
    guard = guard_settings(max_foreign_cores, max_reruns)
    described = read_table(table)
    paths = tools()
    script = key_cache_workload.write_script(script_path(datadir))  # this commit's definition, whatever prepared
    buffer = buffer_for_index(described["index_bytes"], config["key_buffer_bytes"])
    order = interleaved_order(config["segments"], config["repeat"])
    account, fresh = config["account"], config["arms"] == "fresh"
    started, loadavg_before, runs, starts = time.perf_counter(), loadavg(), [], [0]
    actual_buffer = [buffer]

    def counted(server: PrivateServer) -> PrivateServer:
        starts[0] += 1
        return server

    # `switched`: one server for the repeat, its cache switched per arm; `fresh`: none here, one per arm.
    shared = counted(PrivateServer(datadir, options=server_options(buffer, account=account))) if not fresh else None
    with shared or contextlib.nullcontext():
        if shared:
            actual_buffer[0] = int(shared.variable("key_buffer_size"))
        for d in config["distributions"]:
            for p in config["points"]:
                for t in config["threads"]:
                    common = dict(threads=t, points=p, distribution=d, rows=described["rows"], seed=config["seed"])
                    measure_args = dict(seconds=config["seconds"], account=account,
                                        idle_probe_seconds=config["idle_probe_seconds"], **common)
                    own = []  # the servers of this cell (the host-load meter's own processes)

                    def fresh_arm(s: int) -> dict[str, Any]:
                        with counted(arm_server(datadir, buffer, segments=s, account=account)) as server:
                            own.append(server.pid)
                            actual_buffer[0] = int(server.variable("key_buffer_size"))
                            active = preload(server)
                            warm_up(server, paths, script, seconds=config["warmup_seconds"], **common)
                            return {**measure(server, paths, script, segments=s, segments_active=active,
                                              **measure_args), "server_start": starts[0]}

                    def cell(d=d, p=p, t=t) -> list[dict[str, Any]]:
                        """One (distribution, P, threads) cell: each segments value in turn."""
                        cell_runs = []
                        if not fresh:
                            warm_up(shared, paths, script, seconds=config["warmup_seconds"], **common)
                        for s in order:
                            cell_runs.append(fresh_arm(s) if fresh else
                                             {**one_run(shared, paths, script, segments=s, **measure_args),
                                              "server_start": starts[0]})
                            print(f"repeat {config['repeat']} {d} P={p} threads={t} segments={s}: "
                                  f"{cell_runs[-1]['queries_per_second']:.0f} q/s, "
                                  f"key reads {cell_runs[-1]['key_reads']}"
                                  + (f", cache_lock {cell_runs[-1]['cache_lock_waits']}" if account else ""),
                                  flush=True)
                        return cell_runs

                    # The servers and sysbench are our own processes (children;
                    # the servers named too, whatever their parent).
                    kept = run_guarded(cell, own_pids=lambda: [shared.pid] if shared else list(own), **guard)
                    if kept.attempts > 1 or kept.disturbed:
                        print(f"repeat {config['repeat']} {d} P={p} threads={t}: {kept.attempts} attempts, "
                              f"foreign {kept.load.get('foreign_cores')} cores"
                              + (", still disturbed" if kept.disturbed else ""), flush=True)
                    runs += [{**run, **kept.cell_fields()} for run in kept.value]
    full_config = {**config, "order": order, "key_buffer_bytes": actual_buffer[0],
                   # Each arm's server command line (`fresh`), or the repeat's one server's (`switched`).
                   "server_options": {str(s): server_options(buffer, segments=s, account=account) for s in order}
                   if fresh else server_options(buffer, account=account),
                   "server_starts": starts[0], "sysbench_script": SCRIPT, "rows": described["rows"],
                   "table_seed": described["seed"], "table_k": described.get("table_k", "sysbench 1.0 oltp_common"),
                   "index_bytes": described["index_bytes"], "data_bytes": described.get("data_bytes")}
    metrics = {"runs": runs, "host": {"cpu_count": os.cpu_count(), "wall_seconds": round(time.perf_counter() - started, 3),
                                      "loadavg_before": loadavg_before, "loadavg_after": loadavg()}}
    return RunResult(kind=KIND, config=full_config, metrics=metrics, provenance=provenance.collect(),
                     extra={"software": versions(paths)})


def run_rows(result: RunResult) -> list[dict[str, Any]]:
    """Table rows of a key_cache_mariadb record: one per sysbench run."""
    config, software = result.config, result.extra.get("software", {})
    rows = []
    for index, measured in enumerate(result.metrics["runs"]):
        loadavg = measured.get("loadavg_before") or [math.nan]
        rows.append({
            "repeat": config["repeat"], "position": index, **{k: v for k, v in measured.items() if
                                                              not isinstance(v, (list, dict))},
            **row_columns(measured),
            "loadavg_1m": loadavg[0], "table_rows": config["rows"], "seconds_limit": config["seconds"],
            "warmup_seconds": config["warmup_seconds"], "key_buffer_bytes": config["key_buffer_bytes"],
            "index_bytes": config["index_bytes"], "cpu_count": result.metrics["host"]["cpu_count"],
            "mariadb_version": software.get("mariadb"), "sysbench_version": software.get("sysbench"),
        })
    return rows


def _register() -> None:
    from .result import FRAME_ROWS

    FRAME_ROWS[KIND] = run_rows


_register()


# ---------------------------------------------------------------------------
# Command line


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="dbrepro run key_cache mariadb",
                     description="E2's real system: MariaDB's MyISAM key cache under sysbench select_random_points.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    commands.add_parser("tools", help="exit 0 if mariadbd, mariadb-install-db, mariadb and sysbench are installed")
    prep = commands.add_parser("prepare", help="a fresh datadir with sbtest1 loaded as MyISAM")
    prep.add_argument("--datadir", required=True, metavar="DIR")
    prep.add_argument("--rows", type=int, required=True, metavar="N")
    prep.add_argument("--out", required=True, metavar="FILE.json", help="the table's description (JSON)")
    runner = commands.add_parser("run", help="one repeat of the grid, segment settings interleaved per cell")
    runner.add_argument("--datadir", required=True, metavar="DIR")
    runner.add_argument("--table", required=True, metavar="FILE.json", help="the JSON `prepare` wrote")
    runner.add_argument("--threads", type=_list_arg, default=[1, 4], metavar="N[,N...]")
    runner.add_argument("--points", type=_list_arg, default=[10], metavar="P[,P...]")
    runner.add_argument("--distributions", default="special", metavar="NAME[,NAME]",
                        help="special (sysbench's default), uniform, or special,uniform: how each thread draws its "
                             "points in its slice of the keys, one cell each")
    runner.add_argument("--segments", type=_list_arg, default=[0, 32, 64], metavar="N[,N...]")
    runner.add_argument("--seconds", type=int, default=2, metavar="S")
    runner.add_argument("--warmup-seconds", type=int, default=1, metavar="S")
    runner.add_argument("--key-buffer-bytes", type=int, default=0, metavar="BYTES", help="0: the article's headroom over the index")
    runner.add_argument("--seed", type=int, default=303, metavar="N", help="seed of every thread's points (the model's)")
    runner.add_argument("--repeat", type=int, default=1, metavar="R", help="which repeat (rotates the segments' order)")
    runner.add_argument("--arms", choices=ARMS, default="fresh",
                        help="fresh: a server per arm, its segments set at start (the article's procedure); "
                             "switched: one server per repeat, SET GLOBAL key_cache_segments per arm")
    runner.add_argument("--account", action="store_true",
                        help="an accounting run, not timed: performance_schema's key cache mutex and data file "
                             "instruments on, read around each run")
    runner.add_argument("--idle-probe-seconds", type=int, default=0, metavar="S",
                        help="before each measured run, the server's own CPU use over this many idle seconds")
    runner.add_argument("--out", required=True, metavar="FILE.json", help="raw-run record (JSON) to write")
    return parser


def _stop_on_sigterm() -> None:
    """A job killed with SIGTERM unwinds like Ctrl-C, so the `with` block stops the server."""
    def raise_interrupt(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, raise_interrupt)


def main(argv: Sequence[str] | None = None) -> int:
    from .command import CliError, check_writable, write_record
    from .records import write_json_atomic

    args = _parser().parse_args(argv)
    prog = "dbrepro run key_cache mariadb"
    if args.command == "tools":
        missing = missing_tools()
        if missing:
            print(f"{prog}: not installed: {', '.join(missing)}", file=sys.stderr)
            return 1
        print("\n".join(f"{name}: {path}" for name, path in tools().items()))
        return 0
    _stop_on_sigterm()
    try:
        check_writable(args.out)  # fail now, not after the runs
        if args.command == "prepare":
            table = prepare(args.datadir, rows=args.rows)
            write_json_atomic(table, args.out)
            print(f"sbtest1: {table['table_rows']} rows, index {table['index_bytes']} bytes, "
                  f"data {table['data_bytes']} bytes, {table['prepare_seconds']} s")
            return 0
        result = run(datadir=args.datadir, table=args.table, threads=args.threads, points=args.points,
                     distributions=args.distributions.split(","), segments=args.segments, seconds=args.seconds, warmup_seconds=args.warmup_seconds,
                     key_buffer_bytes=args.key_buffer_bytes, seed=args.seed, repeat=args.repeat, arms=args.arms,
                     account=args.account, idle_probe_seconds=args.idle_probe_seconds)
        write_record(result, args.out)
    except ConfigError as error:
        print(f"{prog}: error: --{error.parameter.replace('_', '-')}: {error.reason}", file=sys.stderr)
        return 2
    except (ToolMissing, ServerError, CliError, ValueError, OSError, subprocess.SubprocessError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; the server is stopped, nothing written", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
