"""E2, MariaDB's segmented key cache: select_random_points on a MyISAM-like
sbtest table whose index blocks are read through a key cache of N segments.

    >>> from dbrepro import key_cache
    >>> result = key_cache.run(rows=20000, segments=[0, 32], threads=[1, 4], points=[10], seconds=0.5)
    >>> result.to_frame()      # one row per (index_fraction, segments, threads, points): queries/s, latency, mutex waits

`segments` lists key_cache_segments values; in every (threads, points) cell
each runs in turn (the order rotated by one per `repeat`, as the real MariaDB's
runner does), each run on a fresh cache loaded with the index (as SET GLOBAL
key_cache_segments and LOAD INDEX INTO CACHE there). 0 is the classic
cache (one mutex); N splits it as MariaDB 5.2 does,
block -> segment (file + position / block_size) mod N. `mode` is how the
clients (sysbench's threads) reach the cache: "client_server" (the default,
MariaDB's shape: the clients in a second process, each query a round trip over
a Unix socket to its own server thread, which sends the rows back),
"client_server_in_process" (the same with the clients in this process) or
"direct" (the threads call the cache; `modes()` lists them). Each segment's mutex is
MariaDB's adaptive one by default (`latch="adaptive"`; "futex" and "spin" are
the alternatives, `latches()` lists them); the cache is the engine's one page
cache, and its index the engine's one B-tree. The table lives in a
directory (`table_dir`, sbtest.MYD + sbtest.MYI), built once by
`build_table` and reused by every run; `run` without one builds a temporary table.

Command line:

    dbrepro run key_cache build --table-dir DIR --rows N [--seed S] [--block-size B]
    dbrepro run key_cache --table-dir DIR --segments 0,32,64 [--repeat R] [--mode MODE]
        --threads 1,4 --points 10 [--index-fractions 1,0.5]
        [--grid threads=1,8:points=50:index_fractions=1]... --out FILE.json
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from . import host_load, provenance
from .host_load import row_columns
from .result import RunResult
from .tpcc import ConfigError, _integer, engine_config_error, guard_settings

KIND = "key_cache"
# How each client thread draws its points in its slice of the keys (the
# workload definition, engine/src/sysbench/point_stream.hpp): sysbench's
# default "special" (75% in the middle 1% of the slice) or "uniform".
DISTRIBUTIONS = ("special", "uniform")
# How the table's k is made: "id" (k = id, the article's sysbench 0.5 script),
# or drawn at load as sysbench 1.0's oltp_common does ("special", "uniform").
TABLE_KEYS = ("id", "special", "uniform")


def build_table(
    table_dir: str | os.PathLike, *, rows: int, seed: int = 1, block_size: int = 1024, distribution: str = "id"
) -> dict[str, Any]:
    """Write sysbench's sbtest into `table_dir` (created if missing); returns its metadata.

    `distribution` is how k is made (TABLE_KEYS): "id", as the article's
    sysbench 0.5 select_random_points.lua prepared it (one row per key), or
    drawn at load from sysbench's "special" or "uniform" (1.0's oltp_common).
    """
    from . import _engine

    if distribution not in TABLE_KEYS:
        raise ConfigError("distribution", f"invalid value {distribution!r} (allowed: {', '.join(TABLE_KEYS)})")
    rows = _integer("rows", rows, minimum=1, maximum=2**32 - 16)
    seed = _integer("seed", seed, minimum=0)
    block_size = _integer("block_size", block_size, minimum=512, maximum=16384)
    if block_size & (block_size - 1):
        raise ConfigError("block_size", f"must be a power of two in 512..16384, got {block_size}")
    if Path(table_dir).exists() and not Path(table_dir).is_dir():
        raise ConfigError("table_dir", f"{str(table_dir)!r} is a file, not a folder")
    Path(table_dir).mkdir(parents=True, exist_ok=True)
    return _engine.key_cache_build_table(
        directory=str(table_dir), rows=rows, seed=seed, block_size=block_size, distribution=distribution
    )


def table_info(table_dir: str | os.PathLike) -> dict[str, Any]:
    from . import _engine

    if not (Path(table_dir) / "sbtest.MYI").is_file():
        raise ConfigError("table_dir", f"no sbtest table in {str(table_dir)!r}: build one first "
                                      f"(`{PROG} build --table-dir DIR --rows N`, or key_cache.build_table)")
    try:
        return _engine.key_cache_table_info(directory=str(table_dir))
    except RuntimeError as error:  # truncated or foreign files: say which folder, and what to do
        reason = (str(error).splitlines() or ["unreadable"])[0]
        raise ConfigError("table_dir", f"{str(table_dir)!r} holds no readable sbtest table ({reason}); rebuild it") from None


def latches() -> list[str]:
    """The segment mutexes a run can choose (the engine's list), MariaDB's first."""
    from . import _engine

    return list(_engine.key_cache_latches())


def modes() -> list[str]:
    """How the clients reach the key cache (the engine's list), the default (client_server) first."""
    from . import _engine

    return list(_engine.key_cache_modes())


def config_fields() -> list[dict[str, Any]]:
    """A model run's settings, from the engine's one table
    (engine/src/driver/key_cache/fields.cpp): name, type, unit, range, default, help."""
    from . import _engine

    return list(_engine.key_cache_config_fields())


def validate_config(**config: Any) -> dict[str, Any]:
    """The run's config, checked; ConfigError names the first bad parameter.

    The engine checks every setting as a run does (its table's ranges and
    rules, for the grid and for each extra grid and cache size); what is this
    module's own is the sweep over cache sizes and extra grids."""
    index_fractions = _fractions("index_fractions", config.pop("index_fractions"))
    extra_grids = _grids(config.pop("extra_grids"))
    checked = _engine_checked("", **config, index_fraction=index_fractions[0])
    for fraction in index_fractions[1:]:
        _engine_checked("index_fractions", **{**checked, "index_fraction": fraction})
    for i, grid in enumerate(extra_grids):
        for fraction in grid["index_fractions"]:
            _engine_checked(f"extra_grids[{i}]", **{**checked, "threads": grid["threads"], "points": grid["points"],
                                                    "index_fraction": fraction})
    del checked["table_dir"], checked["index_fraction"]
    return {**checked, "index_fractions": index_fractions, "extra_grids": extra_grids}


def _engine_checked(where: str, **settings: Any) -> dict[str, Any]:
    """The engine's check of one run's settings; its "name: reason" as a
    ConfigError naming the setting (under `where`, e.g. extra_grids[0])."""
    from . import _engine

    try:
        return dict(_engine.key_cache_config(**settings))
    except (ValueError, TypeError) as error:
        named = engine_config_error(error, (field["name"] for field in config_fields()))
        if not isinstance(named, ConfigError):
            raise
        name = "index_fractions" if named.parameter == "index_fraction" else named.parameter  # a value of the list
        raise ConfigError(f"{where}.{name}" if where and where != name else name, named.reason) from None


def _as_list(name: str, values: Any, what: str) -> list:
    """One value or a non-empty list of them, as a list (the engine checks each value)."""
    if isinstance(values, (int, float)) and not isinstance(values, bool):
        values = [values]
    if not isinstance(values, (list, tuple)) or not values:
        raise ConfigError(name, f"must be a non-empty list of {what}, got {values!r}")
    return list(values)


def _fractions(name: str, values: Any) -> list[float]:
    """Cache sizes as shares of the index, each once (each a run's index_fraction)."""
    fractions = _as_list(name, values, "numbers in (0, 1]")
    if len(set(fractions)) != len(fractions):
        raise ConfigError(name, f"each value once, got {fractions}")
    return fractions


GRID_KEYS = ("threads", "points", "index_fractions")
# Set per engine run, not shared by a record's runs: the grid's keys and the points' distribution.
PER_RUN_KEYS = (*GRID_KEYS, "extra_grids", "distributions")


def _grids(grids: Any) -> list[dict[str, list]]:
    """Extra grids, each threads x points x index_fractions (every key required)."""
    if not isinstance(grids, (list, tuple)):
        raise ConfigError("extra_grids", f"must be a list of grids, got {grids!r}")
    checked = []
    for i, grid in enumerate(grids):
        name = f"extra_grids[{i}]"
        if not isinstance(grid, dict) or set(grid) != set(GRID_KEYS):
            raise ConfigError(name, f"must give exactly {', '.join(GRID_KEYS)}, got {grid!r}")
        checked.append({
            "threads": _as_list(f"{name}.threads", grid["threads"], "thread counts"),
            "points": _as_list(f"{name}.points", grid["points"], "P values"),
            "index_fractions": _fractions(f"{name}.index_fractions", grid["index_fractions"]),
        })
    return checked


def run(
    *,
    table_dir: str | os.PathLike | None = None,
    rows: int = 20000,
    index_fractions: float | Sequence[float] = (1.0,),
    extra_grids: Sequence[dict[str, Any]] = (),
    max_foreign_cores: float | None = None,
    max_reruns: int | None = None,
    **settings: Any,
) -> RunResult:
    """Run every (index fraction, distribution, threads, points) cell, each `segments` value in turn
    (rotated by `repeat`).

    `settings`: the model run's settings by name (segments, repeat, mode,
    threads, points, distributions, seconds, latch, ...), each described, with
    its unit, range and default, by the engine's table (config_fields(),
    engine/src/driver/key_cache/fields.cpp) and checked there before any work;
    the table's one index_fraction is this function's `index_fractions` list.

    `distributions`: how each client thread draws its points in its slice of
    the keys (DISTRIBUTIONS), one cell each.

    `buffer_bytes=0` sizes the key buffer from each of `index_fractions`: 1
    holds the whole index (as the article's 512 MB buffer held its 313 MB
    index), 0.5 or 0.25 that share of it, so that queries miss and read the
    index file (with the segment mutex released, as MyISAM). `extra_grids`
    adds cells after that grid, each grid a dict of `threads`, `points` and
    `index_fractions` (e.g. other P or cache sizes at fewer thread counts).
    Without `table_dir`, a table of `rows` rows is built in a temporary
    directory and removed after.

    Each (index fraction, threads, points) cell is one engine run, metered
    for foreign load (dbrepro.host_load) and run again at once while its
    foreign CPU plus steal exceeds `max_foreign_cores` cores, at most
    `max_reruns` times (not given: the environment's, else measured only, as
    tpcc.run); each of its segment arms carries the cell's five fields.
    """
    if "index_fraction" in settings:
        raise ConfigError("index_fraction", "give index_fractions, a list: each value is a cache size of the grid")
    if isinstance(settings.get("distributions"), (list, tuple)):
        settings["distributions"] = ",".join(map(str, settings["distributions"]))
    for name in ("segments", "threads", "points"):
        if isinstance(settings.get(name), tuple):
            settings[name] = list(settings[name])
    config = validate_config(
        **settings, index_fractions=list(index_fractions) if isinstance(index_fractions, (list, tuple))
        else index_fractions, extra_grids=list(extra_grids))
    guard = guard_settings(max_foreign_cores, max_reruns)
    if table_dir is None:
        with tempfile.TemporaryDirectory(prefix="dbrepro_sbtest_") as tmp:
            build_table(tmp, rows=rows, seed=config["seed"])
            return _run_on(tmp, config, guard)
    return _run_on(str(table_dir), config, guard)


def _run_on(table_dir: str, config: dict[str, Any], guard: dict[str, Any]) -> RunResult:
    from . import _engine

    table = table_info(table_dir)
    loadavg_before = host_load.loadavg()
    started = time.perf_counter()
    engine, cells = {}, []
    for grid in [{key: config[key] for key in GRID_KEYS}, *config["extra_grids"]]:
        for fraction in grid["index_fractions"]:
            # The unit of measurement: one (index fraction, threads, points)
            # cell, an engine run of its own whose segment arms run in turn
            # (each on a fresh cache, with its own warm-up, as in a grid run);
            # rerun whole while disturbed by foreign load.
            for distribution, threads, points in (
                    (d, t, p) for d in config["distributions"].split(",") for t in grid["threads"]
                    for p in grid["points"]):
                    kept = host_load.run_guarded(
                        lambda: _engine.key_cache_run(
                            table_dir=table_dir, **_engine_settings(config), threads=[threads], points=[points],
                            distributions=distribution, index_fraction=fraction,
                        ),
                        **guard,
                    )
                    engine = kept.value
                    cells += [{**cell, **kept.cell_fields()} for cell in engine.pop("cells")]
    metrics = {
        "cells": cells,
        "cache": engine,
        "host": {
            "cpu_count": os.cpu_count(),
            "wall_seconds": time.perf_counter() - started,
            "loadavg_before": loadavg_before,
            "loadavg_after": host_load.loadavg(),
        },
    }
    full_config = {
        **config,
        "rows": table["rows"],
        "block_size": table["block_size"],
        "table_seed": table["seed"],
        "table_k": table["distribution"],
    }
    return RunResult(kind=KIND, config=full_config, metrics=metrics, provenance=provenance.collect())


def _engine_settings(config: dict[str, Any]) -> dict[str, Any]:
    """The settings every engine run of a record shares (the grid's are set per run)."""
    return {name: value for name, value in config.items() if name not in PER_RUN_KEYS}


def cell_rows(result: RunResult) -> list[dict[str, Any]]:
    """Table rows of a key_cache record: one per (segments, threads, points) run."""
    config, metrics = result.config, result.metrics
    return [
        {
            "segments": config["segments"],  # records before the interleaving: one value (the cell's own replaces it)
            "mode": config.get("mode", "direct"),  # records before the client/server hop: direct
            "repeat": config.get("repeat", 1),
            "table_rows": config["rows"],
            "block_size": config["block_size"],
            # The points' distribution (each cell's own replaces it) and how k was made; records
            # before the workload definition drew both from the table's one distribution.
            "distribution": config.get("distribution", "uniform"),
            "table_k": config.get("table_k", config.get("distribution", "uniform")),
            "replacement": config["replacement"],
            "latch": config.get("latch", "futex"),  # records before it was recorded: std::mutex, a futex
            "index_fraction": config.get("index_fraction", 1.0),  # records before the sweep; cells carry theirs
            "seconds_limit": config["seconds"],
            "buffer_bytes": metrics["cache"].get("buffer_bytes"),  # older records: one cache per record
            **{("rows_returned" if name == "rows" else name): value for name, value in cell.items()
               if name != "foreign_load"},
            "cpu_count": metrics["host"]["cpu_count"],
            **row_columns(cell),  # the cell's foreign load (unmeasured in older records)
        }
        for cell in metrics["cells"]
    ]


def _register() -> None:
    from .result import FRAME_ROWS

    FRAME_ROWS[KIND] = cell_rows


_register()


# ---------------------------------------------------------------------------
# Command line


PROG = "dbrepro run key_cache"
# What --table-dir needs, said in the run command's help and in its error when the option is missing.
TABLE_DIR_NEEDS = f"the folder that `{PROG} build --table-dir DIR --rows N` writes; build it first"


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line naming the option, exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        if "required" in message and "--table-dir" in message:
            message += f" (--table-dir: {TABLE_DIR_NEEDS})"
        print(f"{PROG}: error: {message}", file=sys.stderr)
        sys.exit(2)


def _float_list(text: str) -> list[float]:
    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from None


def _integer_list(text: str) -> list[int]:
    from .settings import _integer_list as parse

    return parse(text)


def _grid_arg(text: str) -> dict[str, list]:
    """threads=1,8,64:points=50,100:index_fractions=1 -> a grid dict (its values checked by run)."""
    grid = {}
    for part in text.split(":"):
        name, equals, values = part.partition("=")
        if not equals or name not in GRID_KEYS or name in grid:
            raise argparse.ArgumentTypeError(f"expected {'=LIST:'.join(GRID_KEYS)}=LIST, got {text!r}")
        grid[name] = _float_list(values) if name == "index_fractions" else _integer_list(values)
    if set(grid) != set(GRID_KEYS):
        raise argparse.ArgumentTypeError(f"expected {'=LIST:'.join(GRID_KEYS)}=LIST, got {text!r}")
    return grid


def _run_rows() -> list[dict[str, Any]]:
    """The run command's settings: the engine's table, but for index_fraction (a list here)."""
    return [row for row in config_fields() if row["name"] != "index_fraction"]


def _parser() -> argparse.ArgumentParser:
    from . import settings
    from .command import DefaultsHelpFormatter

    parser = _Parser(prog=PROG, description="E2: MariaDB's segmented key cache.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    build = commands.add_parser("build", help="write the sbtest table into a directory")
    build.add_argument("--table-dir", required=True)
    build.add_argument("--rows", type=int, required=True)
    build.add_argument("--seed", type=int, default=1)
    build.add_argument("--block-size", type=int, default=1024)
    build.add_argument(
        "--distribution", choices=TABLE_KEYS, default="id",
        help="how k is made: id (k = id, the article's sysbench 0.5 script; the default), or drawn at load "
             "from special or uniform (sysbench 1.0's oltp_common)",
    )
    runner = commands.add_parser(
        "run", help="time select_random_points, each segments value in turn per cell", prog=PROG,
        description=f"--table-dir is {TABLE_DIR_NEEDS}\n"
                    f"(its options: `{PROG} build --help`). `{PROG} run` is the same as `{PROG}`.\n\n"
                    "The options are the model run's settings, from the engine's table\n"
                    "(engine/src/driver/key_cache/fields.cpp), checked there before any work; the\n"
                    "table's one index_fraction is --index-fractions here, a list.",
        formatter_class=DefaultsHelpFormatter)
    settings.add_options(runner, _run_rows(), required=("table_dir",))
    _say_where_the_table_comes_from(runner)
    settings.add_settings_file(runner)
    parser.run_command = runner
    runner.add_argument(
        "--index-fractions", type=_float_list, default=[1.0], metavar="X[,X...]",
        help="with --buffer-bytes 0: the key buffer as a share of the index, each a cache size of the grid "
             "(1 = it fits; 0.5, 0.25: misses); range: each in (0, 1], none twice",
    )
    runner.add_argument(
        "--grid", type=_grid_arg, action="append", default=[], dest="extra_grids", metavar="GRID",
        help="more cells after the grid, threads=LIST:points=LIST:index_fractions=LIST (may be repeated)",
    )
    runner.add_argument("--out", required=True, metavar="FILE.json", help="raw-run record (JSON) to write")
    return parser


def _say_where_the_table_comes_from(runner: argparse.ArgumentParser) -> None:
    for action in runner._actions:  # argparse has no public way to reach an option's help
        if action.dest == "table_dir":
            action.help += f": {TABLE_DIR_NEEDS}".replace("%", "%%")


def _option(parameter: str) -> str:
    if parameter.startswith("extra_grids"):  # extra_grids[1].points: the second --grid's points
        return "--grid" + parameter.removeprefix("extra_grids")
    from .settings import option

    return option(parameter)


def main(argv: Sequence[str] | None = None) -> int:
    from . import settings
    from .command import CliError, check_writable, write_record

    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["run"]:
        try:
            settings.apply_settings_file(parser.run_command, argv[1:], _run_rows())
        except ValueError as error:
            print(f"{PROG}: error: {error}", file=sys.stderr)
            return 2
    args = parser.parse_args(argv)
    try:
        if args.command == "run":
            check_writable(args.out)  # fail now, not after the timed cells
        if args.command == "build":
            meta = build_table(
                args.table_dir, rows=args.rows, seed=args.seed, block_size=args.block_size,
                distribution=args.distribution,
            )
            print(f"sbtest: {meta['rows']} rows, index {meta['index_bytes']} bytes, data {meta['data_bytes']} bytes")
            return 0
        result = run(index_fractions=args.index_fractions, extra_grids=args.extra_grids,
                     **settings.given(args, _run_rows()))
    except ConfigError as error:
        print(f"{PROG}: error: {_option(error.parameter)}: {error.reason}", file=sys.stderr)
        return 2
    except (ValueError, RuntimeError, CliError) as error:
        line = (str(error).splitlines() or ["failed"])[0]
        name, colon, rest = line.partition(":")
        if colon and name.isidentifier() and hasattr(args, name):  # the engine's "buffer_bytes: ..." is an option
            line = f"{_option(name)}:{rest}"
        print(f"{PROG}: error: {line}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; nothing written", file=sys.stderr)
        return 130
    try:
        write_record(result, args.out)
    except CliError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 2
    for cell in result.metrics["cells"]:
        print(f"{args.mode}: {cell['distribution']} segments={cell['segments']} threads={cell['threads']} "
              f"P={cell['points']} "
              f"cache={cell['index_fraction']:g} of the index: "
              f"{cell['queries_per_second']:.0f} q/s, mutex waits {cell['mutex_waits']}, "
              f"long holds {cell['mutex_long_holds']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
