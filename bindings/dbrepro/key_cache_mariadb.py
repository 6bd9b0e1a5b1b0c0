"""E2's real system beside the model: MariaDB's own MyISAM key cache, run as a
private server (dbrepro.mariadb_server), with sysbench's select_random_points
as the article ran it (SELECT id, k, c, pad FROM sbtest1 WHERE k IN (P points)).

    prepare   mariadb-install-db into a fresh datadir, sysbench's sbtest1 loaded as MyISAM
              (--rand-seed as the article's 303 by default), table.json beside it
    run       one repeat: the server started with a key buffer that holds the index, then for
              every (P, threads) cell each key_cache_segments value in turn (off, 32, 64, ...;
              SET GLOBAL, which repartitions and empties the cache, then LOAD INDEX INTO CACHE),
              one sysbench run each; one record with every run of the repeat

Each run records sysbench's queries/s and latency, the Key_read_requests and
Key_reads of the run (Key_reads 0: the index stayed in the cache), the server's
CPU time and context switches, sysbench's CPU time, the load average, and the
MariaDB and sysbench versions.

    python -m dbrepro.key_cache_mariadb tools      # exit 1 naming what is not installed
    python -m dbrepro.key_cache_mariadb prepare --datadir DIR --rows N [--seed 303] --out DIR/table.json
    python -m dbrepro.key_cache_mariadb run --datadir DIR --table DIR/table.json --threads 1,4 --points 10 \\
        --segments 0,32,64 --seconds 2 --warmup-seconds 1 --repeat 1 --out FILE.json
"""
from __future__ import annotations

import argparse
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

from . import key_cache, provenance
from .host_load import loadavg, row_columns, run_guarded
from .key_cache import _list_arg, _Parser
from .mariadb_server import PrivateServer, ServerError, ToolMissing, missing_tools, tools
from .result import RunResult
from .tpcc import ConfigError, _integer, guard_settings

KIND = "key_cache_mariadb"
DATABASE, TABLE = "sbtest", "sbtest1"
SCRIPT = "select_random_points"  # sysbench 1.0's, in /usr/share/sysbench
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
    return {
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


def server_options(buffer_bytes: int) -> list[str]:
    return [f"--key-buffer-size={buffer_bytes}", "--key-cache-segments=0", *ARTICLE_OPTIONS, *SMALL_INNODB]


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


def sysbench_argv(paths: dict[str, str], socket: str, *, rows: int, seed: int) -> list[str]:
    return [paths["sysbench"], SCRIPT, "--db-driver=mysql", f"--mysql-socket={socket}", "--mysql-user=root",
            f"--mysql-db={DATABASE}", "--tables=1", f"--table-size={rows}", f"--rand-seed={seed}"]


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


def prepare(datadir: str | os.PathLike, *, rows: int, seed: int = 303) -> dict[str, Any]:
    """A fresh datadir with sbtest1 (`rows` rows, MyISAM); returns the table's description."""
    rows = _integer("rows", rows, minimum=100)
    seed = _integer("seed", seed, minimum=0)
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
        _run_checked([*sysbench_argv(paths, server.socket, rows=rows, seed=seed),
                      "--mysql-storage-engine=myisam", "prepare"], "sysbench prepare", 24 * 3600)
        engine = server.query(f"SELECT ENGINE, TABLE_ROWS FROM information_schema.TABLES "
                              f"WHERE TABLE_SCHEMA = '{DATABASE}' AND TABLE_NAME = '{TABLE}'")
        software = versions(paths)
    if not engine or engine[0][0] != "MyISAM":
        raise ServerError(f"{DATABASE}.{TABLE} is {engine[0][0] if engine else 'missing'}, not MyISAM")
    files = datadir / DATABASE
    return {
        "rows": rows, "table_rows": int(engine[0][1]), "seed": seed, "engine": engine[0][0],
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


def one_run(server: PrivateServer, paths: dict[str, str], *, segments: int, threads: int, points: int,
            seconds: int, warmup_seconds: int, rows: int, seed: int) -> dict[str, Any]:
    """One sysbench run at one key_cache_segments value, with the server's counters around it."""
    server.query(f"SET GLOBAL key_cache_segments = {segments}")  # repartitions, and empties, the cache
    loaded = server.query(f"LOAD INDEX INTO CACHE {DATABASE}.{TABLE}")
    if not loaded or loaded[-1][-1] != "OK":
        raise ServerError(f"LOAD INDEX INTO CACHE: {loaded}")
    active = server.query("SELECT SEGMENTS FROM information_schema.KEY_CACHES "
                          "WHERE KEY_CACHE_NAME = 'default' LIMIT 1")
    workload = [*sysbench_argv(paths, server.socket, rows=rows, seed=seed), f"--threads={threads}",
                f"--random-points={points}", "--events=0", "--percentile=95"]
    if warmup_seconds:  # sysbench 1.0 has no --warmup-time: a run of its own, not measured
        _run_checked([*workload, f"--time={warmup_seconds}", "run"], "sysbench warm-up", warmup_seconds + 600)
    before, cpu, switches, sysbench_cpu = server.global_status(), server.cpu_seconds(), \
        server.context_switches(), _children_cpu()
    loadavg_before, started = loadavg(), time.perf_counter()
    report = _run_checked([*workload, f"--time={seconds}", "run"], "sysbench run", seconds + 600)
    wall = time.perf_counter() - started
    after, cpu_after, switches_after = server.global_status(), server.cpu_seconds(), server.context_switches()
    measured = parse_sysbench(report)
    return {
        "segments": segments,
        "segments_active": int(active[0][0]) if active and active[0][0].isdigit() else 0,
        "threads": threads,
        "points": points,
        **measured,
        # The server's counters around the measured sysbench process (its connects and disconnects included).
        "key_read_requests": after.get("Key_read_requests", 0) - before.get("Key_read_requests", 0),
        "key_reads": after.get("Key_reads", 0) - before.get("Key_reads", 0),
        "key_blocks_used": after.get("Key_blocks_used", 0),
        "key_blocks_unused": after.get("Key_blocks_unused", 0),
        "server_cpu_seconds": round(cpu_after - cpu, 4),
        "server_voluntary_switches": switches_after["voluntary"] - switches["voluntary"],
        "server_involuntary_switches": switches_after["involuntary"] - switches["involuntary"],
        "sysbench_cpu_seconds": round(_children_cpu() - sysbench_cpu, 4),
        "wall_seconds": round(wall, 4),
        "loadavg_before": loadavg_before,
        "loadavg_after": loadavg(),
    }


def run(*, datadir: str | os.PathLike, table: str | os.PathLike, threads: Sequence[int] = (1, 4),
        points: Sequence[int] = (10,), segments: Sequence[int] = (0, 32, 64), seconds: int = 2,
        warmup_seconds: int = 1, key_buffer_bytes: int = 0, seed: int = 303, repeat: int = 1,
        max_foreign_cores: float | None = None, max_reruns: int | None = None) -> RunResult:
    """One repeat of the grid on a private server: every (points, threads) cell, each segments value in turn.

    Each cell (all its segments values) is metered for foreign load and run
    again whole while disturbed (max_foreign_cores, max_reruns: as tpcc.run);
    each of its runs carries the cell's five fields."""
    config = validate_config(threads=list(threads), points=list(points), segments=list(segments), seconds=seconds,
                             warmup_seconds=warmup_seconds, key_buffer_bytes=key_buffer_bytes, seed=seed,
                             repeat=repeat)
    guard = guard_settings(max_foreign_cores, max_reruns)
    described = read_table(table)
    paths = tools()
    buffer = buffer_for_index(described["index_bytes"], config["key_buffer_bytes"])
    order = interleaved_order(config["segments"], config["repeat"])
    options = server_options(buffer)
    started, loadavg_before, runs = time.perf_counter(), loadavg(), []
    with PrivateServer(datadir, options=options) as server:
        actual_buffer = int(server.variable("key_buffer_size"))
        for p in config["points"]:
            for t in config["threads"]:
                def cell(p=p, t=t) -> list[dict[str, Any]]:
                    """One (P, threads) cell: each segments value in turn."""
                    cell_runs = []
                    for s in order:
                        cell_runs.append(one_run(server, paths, segments=s, threads=t, points=p,
                                                 seconds=config["seconds"], warmup_seconds=config["warmup_seconds"],
                                                 rows=described["rows"], seed=config["seed"]))
                        print(f"repeat {config['repeat']} P={p} threads={t} segments={s}: "
                              f"{cell_runs[-1]['queries_per_second']:.0f} q/s, "
                              f"key reads {cell_runs[-1]['key_reads']}", flush=True)
                    return cell_runs

                # The server and sysbench are our own processes (children;
                # the server named too, whatever its parent).
                kept = run_guarded(cell, own_pids=[server.pid], **guard)
                if kept.attempts > 1 or kept.disturbed:
                    print(f"repeat {config['repeat']} P={p} threads={t}: {kept.attempts} attempts, "
                          f"foreign {kept.load.get('foreign_cores')} cores"
                          + (", still disturbed" if kept.disturbed else ""), flush=True)
                runs += [{**run, **kept.cell_fields()} for run in kept.value]
    full_config = {**config, "order": order, "key_buffer_bytes": actual_buffer, "server_options": options,
                   "sysbench_script": SCRIPT, "rows": described["rows"], "table_seed": described["seed"],
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
    parser = _Parser(prog="python -m dbrepro.key_cache_mariadb",
                     description="E2's real system: MariaDB's MyISAM key cache under sysbench select_random_points.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    commands.add_parser("tools", help="exit 0 if mariadbd, mariadb-install-db, mariadb and sysbench are installed")
    prep = commands.add_parser("prepare", help="a fresh datadir with sbtest1 loaded as MyISAM")
    prep.add_argument("--datadir", required=True)
    prep.add_argument("--rows", type=int, required=True)
    prep.add_argument("--seed", type=int, default=303, help="sysbench --rand-seed (the article's: 303)")
    prep.add_argument("--out", required=True, help="the table's description (JSON)")
    runner = commands.add_parser("run", help="one repeat of the grid, segment settings interleaved per cell")
    runner.add_argument("--datadir", required=True)
    runner.add_argument("--table", required=True, help="the JSON `prepare` wrote")
    runner.add_argument("--threads", type=_list_arg, default=[1, 4])
    runner.add_argument("--points", type=_list_arg, default=[10])
    runner.add_argument("--segments", type=_list_arg, default=[0, 32, 64])
    runner.add_argument("--seconds", type=int, default=2)
    runner.add_argument("--warmup-seconds", type=int, default=1)
    runner.add_argument("--key-buffer-bytes", type=int, default=0, help="0: the article's headroom over the index")
    runner.add_argument("--seed", type=int, default=303)
    runner.add_argument("--repeat", type=int, default=1, help="which repeat (rotates the segments' order)")
    runner.add_argument("--out", required=True, help="raw-run record (JSON) to write")
    return parser


def _stop_on_sigterm() -> None:
    """A job killed with SIGTERM unwinds like Ctrl-C, so the `with` block stops the server."""
    def raise_interrupt(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, raise_interrupt)


def main(argv: Sequence[str] | None = None) -> int:
    from .cli import CliError, _check_writable, _write
    from .records import write_json_atomic

    args = _parser().parse_args(argv)
    prog = "python -m dbrepro.key_cache_mariadb"
    if args.command == "tools":
        missing = missing_tools()
        if missing:
            print(f"{prog}: not installed: {', '.join(missing)}", file=sys.stderr)
            return 1
        print("\n".join(f"{name}: {path}" for name, path in tools().items()))
        return 0
    _stop_on_sigterm()
    try:
        _check_writable(args.out)  # fail now, not after the runs
        if args.command == "prepare":
            table = prepare(args.datadir, rows=args.rows, seed=args.seed)
            write_json_atomic(table, args.out)
            print(f"sbtest1: {table['table_rows']} rows, index {table['index_bytes']} bytes, "
                  f"data {table['data_bytes']} bytes, {table['prepare_seconds']} s")
            return 0
        result = run(datadir=args.datadir, table=args.table, threads=args.threads, points=args.points,
                     segments=args.segments, seconds=args.seconds, warmup_seconds=args.warmup_seconds,
                     key_buffer_bytes=args.key_buffer_bytes, seed=args.seed, repeat=args.repeat)
        _write(result, args.out)
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
