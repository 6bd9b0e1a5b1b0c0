"""E3, OpenEdge 12's server features: the same remote work (U users running
the article's 7-table join over TCP, spread over M servers) on a ladder of
server configurations, each adding one feature to the one before:

    step 0  baseline  fixed latch count, lookup index access, single-threaded servers, client-side join
    step 1  bht       + latch factor (% of hash buckets) and optimistic index access
    step 2  mtdbs     + multi-threaded servers (a thread per client)
    step 3  ssj       + server-side join (only qualifying records cross the wire)

    >>> from dbrepro import openedge
    >>> result = openedge.run_ladder(rows=2000, servers=2, users=4, repeats=2)
    >>> result.to_frame()      # one row per timed run: step, repeat, seconds, records/s, bytes, messages

Servers listen on `address` (127.0.0.1) on ports the system picks; they are
started and stopped by the run. The steps of one run are interleaved across
repeats (0 1 2 3, 0 1 2 3, ...) against one database, and every step must
return the same tuples (`results_agree`).

Command line (what the workflow calls):

    python -m dbrepro.openedge --rows N --servers M --users U --repeats R --out FILE.json
"""
from __future__ import annotations

import os
import statistics
import sys
import time
from typing import Any, Callable, Sequence

from . import provenance
from .result import FRAME_ROWS, RunResult
from .tpcc import ConfigError, _integer

KIND = "openedge"
STEP_NAMES = ("baseline", "bht", "mtdbs", "ssj")
FIXED_LATCH_CHOICES = (1, 4, 256, 1024)  # the counts OpenEdge 11 offered


def ladder_steps() -> list[dict[str, Any]]:
    """Each step's number, name, label and which features it has."""
    from . import _engine

    return list(_engine.openedge_ladder_steps())


def validate_config(**config: Any) -> dict[str, Any]:
    """The run's config, checked; ConfigError names the first bad parameter."""
    steps = config["steps"]
    if isinstance(steps, int) and not isinstance(steps, bool):
        steps = [steps]
    if not isinstance(steps, (list, tuple)) or not steps:
        raise ConfigError("steps", f"must be a non-empty list of step numbers 0..3, got {steps!r}")
    checked = {
        "rows": _integer("rows", config["rows"], minimum=1, maximum=1 << 24),
        "fanout": _integer("fanout", config["fanout"], minimum=1, maximum=8),
        "seed": _integer("seed", config["seed"], minimum=0),
        "servers": _integer("servers", config["servers"], minimum=1, maximum=64),
        "users": _integer("users", config["users"], minimum=1, maximum=1024),
        "passes": _integer("passes", config["passes"], minimum=1, maximum=1_000_000),
        "prefetch": _integer("prefetch", config["prefetch"], minimum=1, maximum=10_000),
        "fixed_latches": _integer("fixed_latches", config["fixed_latches"], minimum=1, maximum=1 << 20),
        "latch_factor": _integer("latch_factor", config["latch_factor"], minimum=1, maximum=100),
        "bucket_percent": _integer("bucket_percent", config["bucket_percent"], minimum=1, maximum=1000),
        "repeats": _integer("repeats", config["repeats"], minimum=1, maximum=1000),
        "steps": [_integer("steps", s, minimum=0, maximum=len(STEP_NAMES) - 1) for s in steps],
        "address": config["address"],
    }
    if not isinstance(checked["address"], str) or not checked["address"]:
        raise ConfigError("address", f"must be an IPv4 address, got {checked['address']!r}")
    if checked["users"] < checked["servers"]:
        raise ConfigError("users", f"must be at least servers ({checked['servers']}), got {checked['users']}")
    if checked["users"] > checked["rows"]:
        raise ConfigError("users", f"each user needs a row of Table1 (rows {checked['rows']}), got {checked['users']}")
    return checked


def run_ladder(
    *,
    rows: int = 2000,
    fanout: int = 1,
    seed: int = 1,
    servers: int = 2,
    users: int = 8,
    passes: int = 1,
    prefetch: int = 100,
    fixed_latches: int = 4,
    latch_factor: int = 10,
    bucket_percent: int = 25,
    repeats: int = 1,
    steps: Sequence[int] = (0, 1, 2, 3),
    address: str = "127.0.0.1",
    progress: Callable[[int, int], Any] | None = None,
) -> RunResult:
    """Build Table1..Table7 (`rows` rows in Table1) and time every step `repeats` times, interleaved.

    `progress(done, total)` is called between runs; returning False stops the
    ladder (the record then says `interrupted`). Ctrl-C stops it too.
    """
    config = validate_config(
        rows=rows, fanout=fanout, seed=seed, servers=servers, users=users, passes=passes, prefetch=prefetch,
        fixed_latches=fixed_latches, latch_factor=latch_factor, bucket_percent=bucket_percent, repeats=repeats,
        steps=list(steps), address=address,
    )
    from . import _engine

    loadavg_before = _loadavg()
    started = time.perf_counter()
    raw = _engine.openedge_ladder(**config, progress=progress)
    runs = [summarize_run(run, config) for run in raw["runs"]]
    metrics = {
        "runs": runs,
        "database": {"table_rows": raw["table_rows"], "pages": raw["pages"]},
        "interrupted": raw["interrupted"],
        "results_agree": len({(r["tuples"], r["checksum"]) for r in runs}) <= 1,
        "host": {
            "cpu_count": os.cpu_count(),
            "wall_seconds": time.perf_counter() - started,
            "loadavg_before": loadavg_before,
            "loadavg_after": _loadavg(),
        },
    }
    return RunResult(kind=KIND, config=config, metrics=metrics, provenance=provenance.collect())


def summarize_run(run: dict[str, Any], config: dict[str, Any]) -> dict[str, Any]:
    """One timed run with its derived figures: per-user mean and standard deviation, records/s."""
    users = run["user_seconds"]
    wall = run["wall_seconds"]
    return {
        **run,
        "user_mean_seconds": statistics.fmean(users),
        "user_stddev_seconds": statistics.stdev(users) if len(users) > 1 else 0.0,
        "records_per_second": run["record_reads"] / wall if wall > 0 else 0.0,
        "bytes_on_wire": run["bytes_sent"] + run["bytes_received"],
        "messages_on_wire": run["messages_sent"] + run["messages_received"],
        "servers": config["servers"],
        "users": config["users"],
    }


def _loadavg() -> list[float] | None:
    try:
        return [round(x, 3) for x in os.getloadavg()]
    except OSError:
        return None


def run_rows(result: RunResult) -> list[dict[str, Any]]:
    """Table rows of an openedge record: one per timed run (per-user times left out), with the host's
    CPU count and 1-minute load average before the record's runs."""
    host = result.metrics["host"]
    loadavg = host.get("loadavg_before")
    return [{**{k: v for k, v in run.items() if k != "user_seconds"}, "cpu_count": host["cpu_count"],
             "loadavg_1m_before": loadavg[0] if loadavg else None} for run in result.metrics["runs"]]


FRAME_ROWS[KIND] = run_rows


# ---------------------------------------------------------------------------
# Command line: python -m dbrepro.openedge --out run.json ...


def _int_list(text: str) -> list[int]:
    import argparse

    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def build_parser():
    from .cli import DefaultsHelpFormatter, OneLineErrorParser, _integer as integer

    parser = OneLineErrorParser(prog="dbrepro.openedge", description=__doc__, formatter_class=DefaultsHelpFormatter)
    parser.add_argument("--rows", type=integer, default=2000, help="rows of Table1")
    parser.add_argument("--fanout", type=integer, default=1, help="rows of T2 per T1, T4 per T3, T6 per T5 (OF)")
    parser.add_argument("--seed", type=integer, default=1)
    parser.add_argument("--servers", type=integer, default=2, help="M servers")
    parser.add_argument("--users", type=integer, default=8, help="U users, user u on server u mod M")
    parser.add_argument("--passes", type=integer, default=1, help="times each user runs its join")
    parser.add_argument("--prefetch", type=integer, default=100, help="records per message")
    parser.add_argument("--fixed-latches", type=integer, default=4, help="the baseline's hash-table latches")
    parser.add_argument("--latch-factor", type=integer, default=10, help="latches as %% of hash buckets, step 1 on")
    parser.add_argument("--bucket-percent", type=integer, default=25, help="hash buckets as %% of buffer frames")
    parser.add_argument("--repeats", type=integer, default=1, help="interleaved repeats of the steps")
    parser.add_argument("--steps", type=_int_list, default=[0, 1, 2, 3], help="ladder steps to run (0..3)")
    parser.add_argument("--address", default="127.0.0.1", help="address the servers listen on")
    parser.add_argument("--out", required=True, help="raw-run record to write (JSON)")
    return parser


_OPTION = {name: "--" + name.replace("_", "-") for name in (
    "rows", "fanout", "seed", "servers", "users", "passes", "prefetch", "fixed_latches", "latch_factor",
    "bucket_percent", "repeats", "steps", "address")}


def main(argv: Sequence[str] | None = None) -> int:
    from .cli import CliError, _check_writable, _write

    def fail(message: str, code: int = 2) -> int:
        print(f"dbrepro.openedge: error: {message}", file=sys.stderr)
        return code

    try:
        args = build_parser().parse_args(argv)
        _check_writable(args.out)  # fail now, not after the ladder ran
    except CliError as error:
        return fail(str(error))

    def progress(done: int, total: int) -> None:
        print(f"openedge: {done}/{total} runs", file=sys.stderr, flush=True)

    try:
        result = run_ladder(
            rows=args.rows, fanout=args.fanout, seed=args.seed, servers=args.servers, users=args.users,
            passes=args.passes, prefetch=args.prefetch, fixed_latches=args.fixed_latches,
            latch_factor=args.latch_factor, bucket_percent=args.bucket_percent, repeats=args.repeats,
            steps=args.steps, address=args.address, progress=progress,
        )
    except ConfigError as error:
        return fail(f"{_OPTION.get(error.parameter, error.parameter)}: {error.reason}")
    except ValueError as error:  # the engine's own checks, e.g. an address it cannot parse
        return fail(str(error))
    except RuntimeError as error:  # sockets: a port or address that cannot be used
        return fail(str(error), 1)
    except KeyboardInterrupt:
        return fail("interrupted; nothing written", 130)
    try:
        _write(result, args.out)
    except CliError as error:
        return fail(str(error))
    for run in result.metrics["runs"]:
        print(f"rep {run['repeat']} step {run['step']} {run['name']}: {run['wall_seconds']:.3f} s, "
              f"{run['records_per_second']:,.0f} records/s, {run['messages_on_wire']:,} messages, "
              f"{run['bytes_on_wire']:,} bytes")
    if not result.metrics["results_agree"]:
        return fail("the steps returned different tuples (the record is written)", 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
