"""E3, OpenEdge 12's server features: the same remote work (U users running
the article's 7-table join over TCP, spread over M servers) on a ladder of
server configurations, each adding one feature to the one before:

    step 0  baseline  fixed latch count (OpenEdge 11.7's 1024), lookup index access, single-threaded servers,
                      client-side join
    step 1  bht       + latch factor (-hashLatchFactor, % of hash buckets) and optimistic index access
    step 2  mtdbs     + multi-threaded servers (a thread per client)
    step 3  ssj       + server-side join (only qualifying records cross the wire)

    >>> from dbrepro import openedge
    >>> result = openedge.run_ladder(rows=2000, servers=2, users=4, repeats=2)
    >>> result.to_frame()      # one row per timed run: step, repeat, seconds, records/s, bytes, messages

The buffer pool's hash-table latches are exclusive spin-then-nap latches
(-spin, -nap, -napmax; the article's 25000, 1 and 24 ms by default); a
server takes at most `max_clients` users (-Ma, the article's 20);
`message_delay_us` adds latency to every client request (recorded per run
as `added_latency_seconds`). Users run in client processes of their own
(`client_processes`, as the article's), or as threads of this one. The
`scan` workload runs only the join's first level, an index scan of each
user's share of Table1, whose cursor stays in one index block for hundreds
of records: there the optimistic cursor avoids a lookup for nearly every
record of a block, as the article describes. Each run
records the latch waits, the time spent in them and the naps, and how many
hash-table lookups the optimistic cursor avoided per index block it entered.

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
WORKLOADS = ("join", "scan")  # the 7-table join, or an index scan of each user's share of Table1


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
        "max_clients": _integer("max_clients", config["max_clients"], minimum=1, maximum=1024),
        "passes": _integer("passes", config["passes"], minimum=1, maximum=1_000_000),
        "prefetch": _integer("prefetch", config["prefetch"], minimum=1, maximum=10_000),
        "fixed_latches": _integer("fixed_latches", config["fixed_latches"], minimum=1, maximum=1 << 20),
        "latch_factor": _integer("latch_factor", config["latch_factor"], minimum=5, maximum=100),
        "bucket_percent": _integer("bucket_percent", config["bucket_percent"], minimum=1, maximum=1000),
        "spin": _integer("spin", config["spin"], minimum=0, maximum=10_000_000),
        "nap": _integer("nap", config["nap"], minimum=1, maximum=10_000),
        "napmax": _integer("napmax", config["napmax"], minimum=1, maximum=10_000),
        "message_delay_us": _integer("message_delay_us", config["message_delay_us"], minimum=0, maximum=1_000_000),
        "client_processes": bool(config["client_processes"]),
        "workload": config["workload"],
        "repeats": _integer("repeats", config["repeats"], minimum=1, maximum=1000),
        "steps": [_integer("steps", s, minimum=0, maximum=len(STEP_NAMES) - 1) for s in steps],
        "address": config["address"],
    }
    if not isinstance(checked["address"], str) or not checked["address"]:
        raise ConfigError("address", f"must be an IPv4 address, got {checked['address']!r}")
    if checked["users"] < checked["servers"]:
        raise ConfigError("users", f"must be at least servers ({checked['servers']}), got {checked['users']}")
    if checked["workload"] not in WORKLOADS:
        raise ConfigError("workload", f"must be one of {', '.join(WORKLOADS)}, got {checked['workload']!r}")
    if checked["napmax"] < checked["nap"]:
        raise ConfigError("napmax", f"must be at least nap ({checked['nap']} ms), got {checked['napmax']}")
    if checked["users"] > checked["servers"] * checked["max_clients"]:
        raise ConfigError("users", f"{checked['servers']} servers of max_clients {checked['max_clients']} (-Ma) take "
                                   f"at most {checked['servers'] * checked['max_clients']}, got {checked['users']}")
    if checked["users"] > checked["rows"]:
        raise ConfigError("users", f"each user needs a row of Table1 (rows {checked['rows']}), got {checked['users']}")
    return checked


def run_ladder(
    *,
    rows: int = 2000,
    fanout: int = 1,
    seed: int = 1,
    servers: int = 1,
    users: int = 20,
    max_clients: int = 20,
    passes: int = 1,
    prefetch: int = 100,
    fixed_latches: int = 1024,
    latch_factor: int = 100,
    bucket_percent: int = 25,
    spin: int = 25000,
    nap: int = 1,
    napmax: int = 24,
    message_delay_us: int = 0,
    client_processes: bool = True,
    workload: str = "join",
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
        rows=rows, fanout=fanout, seed=seed, servers=servers, users=users, max_clients=max_clients, passes=passes,
        prefetch=prefetch, fixed_latches=fixed_latches, latch_factor=latch_factor, bucket_percent=bucket_percent,
        spin=spin, nap=nap, napmax=napmax, message_delay_us=message_delay_us,
        client_processes=client_processes, workload=workload, repeats=repeats, steps=list(steps), address=address,
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
        "lookups_avoided_per_index_block": run["lookups_avoided"] / run["index_blocks"] if run["index_blocks"] else 0.0,
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
    parser.add_argument("--servers", type=integer, default=1, help="M servers")
    parser.add_argument("--users", type=integer, default=20, help="U users, user u on server u mod M")
    parser.add_argument("--max-clients", type=integer, default=20, help="users a server takes (-Ma)")
    parser.add_argument("--passes", type=integer, default=1, help="times each user runs its join")
    parser.add_argument("--prefetch", type=integer, default=100, help="records per message")
    parser.add_argument("--fixed-latches", type=integer, default=1024,
                        help="the baseline's hash-table latches (OpenEdge 11.7's)")
    parser.add_argument("--latch-factor", type=integer, default=100,
                        help="latches as %% of hash buckets, step 1 on (-hashLatchFactor)")
    parser.add_argument("--bucket-percent", type=integer, default=25, help="hash buckets as %% of buffer frames")
    parser.add_argument("--spin", type=integer, default=25000, help="latch tries before a nap (-spin)")
    parser.add_argument("--nap", type=integer, default=1, help="first nap, ms (-nap)")
    parser.add_argument("--napmax", type=integer, default=24, help="longest nap, ms (-napmax)")
    parser.add_argument("--message-delay-us", type=integer, default=0,
                        help="latency added to every client request, microseconds")
    parser.add_argument("--workload", choices=WORKLOADS, default="join",
                        help="the 7-table join, or an index scan of each user's share of Table1")
    parser.add_argument("--repeats", type=integer, default=1, help="interleaved repeats of the steps")
    parser.add_argument("--steps", type=_int_list, default=[0, 1, 2, 3], help="ladder steps to run (0..3)")
    parser.add_argument("--address", default="127.0.0.1", help="address the servers listen on")
    parser.add_argument("--out", required=True, help="raw-run record to write (JSON)")
    return parser


_OPTION = {name: "--" + name.replace("_", "-") for name in (
    "rows", "fanout", "seed", "servers", "users", "max_clients", "passes", "prefetch", "fixed_latches",
    "latch_factor", "bucket_percent", "spin", "nap", "napmax", "message_delay_us", "workload", "repeats", "steps", "address")}


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
            max_clients=args.max_clients, passes=args.passes, prefetch=args.prefetch,
            fixed_latches=args.fixed_latches, latch_factor=args.latch_factor, bucket_percent=args.bucket_percent,
            spin=args.spin, nap=args.nap, napmax=args.napmax, message_delay_us=args.message_delay_us,
            workload=args.workload, repeats=args.repeats,
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
