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

Command line:

    dbrepro run openedge --rows N --servers M --users U --repeats R --out FILE.json

It prints a progress line per run on stderr when stderr is a terminal (never
into a pipe or a file; --no-progress: never).
"""
from __future__ import annotations

import os
import resource
import statistics
import sys
import time
from typing import Any, Callable, Sequence

from . import provenance
from .host_load import Guarded, HostLoadMeter, loadavg, row_columns, run_guarded
from .result import FRAME_ROWS, RunResult
from .tpcc import ConfigError, engine_config_error, guard_settings

KIND = "openedge"
STEP_NAMES = ("baseline", "bht", "mtdbs", "ssj")


def ladder_steps() -> list[dict[str, Any]]:
    """Each step's number, name, label and which features it has."""
    from . import _engine

    return list(_engine.openedge_ladder_steps())


def config_fields() -> list[dict[str, Any]]:
    """The ladder's settings, from the engine's one table
    (engine/src/driver/openedge/fields.cpp): name, type, unit, range, default, help."""
    from . import _engine

    return list(_engine.openedge_config_fields())


def validate_config(**settings: Any) -> dict[str, Any]:
    """Every setting of a ladder, checked by the engine as a run checks them,
    defaults filled in; ConfigError names the first bad one."""
    from . import _engine

    try:
        return dict(_engine.openedge_config(**settings))
    except ValueError as error:
        raise engine_config_error(error, (field["name"] for field in config_fields())) from None


def run_ladder(*, progress: Callable[[int, int], Any] | None = None, max_foreign_cores: float | None = None,
               max_reruns: int | None = None, **settings: Any) -> RunResult:
    """Build Table1..Table7 and time every ladder step `repeats` times, interleaved.

    Settings are named as config_fields() lists them (rows, servers, users,
    repeats, steps, ...); those not given keep their defaults, and the record
    keeps all of them. `progress(done, total)` is called between runs;
    returning False stops the ladder (the record then says `interrupted`).
    Ctrl-C stops it too.

    Each run (one step of one repeat) is metered for foreign load
    (dbrepro.host_load) and, while its foreign CPU plus steal exceeds
    `max_foreign_cores` cores, run again alone, at most `max_reruns` times
    (not given: the environment's, else measured only, as tpcc.run).
    """
    config = validate_config(**settings)
    guard = guard_settings(max_foreign_cores, max_reruns)
    from . import _engine

    loadavg_before = loadavg()
    started = time.perf_counter()
    loads: list[dict[str, Any]] = []
    usage: list[dict[str, Any]] = []
    raw = _engine.openedge_ladder(**config, progress=_metered(progress, loads, usage))
    guarded = [_guarded_step({**run, **used}, load, config, guard)
               for run, load, used in zip(raw["runs"], loads, usage)]
    runs = [{**summarize_run(kept.value, config), **kept.cell_fields()} for kept in guarded]
    metrics = {
        "runs": runs,
        "database": {"table_rows": raw["table_rows"], "pages": raw["pages"]},
        "interrupted": raw["interrupted"],
        "results_agree": len({(r["tuples"], r["checksum"]) for r in runs}) <= 1,
        "host": {
            "cpu_count": os.cpu_count(),
            "wall_seconds": time.perf_counter() - started,
            "loadavg_before": loadavg_before,
            "loadavg_after": loadavg(),
        },
    }
    return RunResult(kind=KIND, config=config, metrics=metrics, provenance=provenance.collect())


# Context switches and CPU per run, from getrusage around the same window as the load meter (read
# between runs, never inside one): the servers' threads are this process (RUSAGE_SELF), users in
# client processes its children, counted once waited for (RUSAGE_CHILDREN). What a step costs in
# wake-ups is what a kind's cross-CPU wake-up and context switch (machine.json) price.
def _usage() -> tuple[resource.struct_rusage, resource.struct_rusage]:
    return resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)


def _usage_fields(before, after) -> dict[str, Any]:
    fields = {}
    for who, old, new in (("process", before[0], after[0]), ("client_processes", before[1], after[1])):
        fields[f"{who}_voluntary_switches"] = new.ru_nvcsw - old.ru_nvcsw
        fields[f"{who}_involuntary_switches"] = new.ru_nivcsw - old.ru_nivcsw
        fields[f"{who}_cpu_seconds_rusage"] = (new.ru_utime + new.ru_stime) - (old.ru_utime + old.ru_stime)
    return fields


def _metered(progress: Callable[[int, int], Any] | None, loads: list[dict[str, Any]],
             usage: list[dict[str, Any]] | None = None) -> Callable[[int, int], Any]:
    """The engine's tick (called before each run and once at the end) with a
    host_load meter around each run: loads[i] is run i's foreign load, its
    window the run alone (servers started and stopped, the users' work), not
    the database's build; usage[i] its context switches and CPU (_usage_fields)."""
    meter: list[HostLoadMeter] = []
    started: list[tuple] = []

    def tick(done: int, total: int) -> Any:
        if meter:
            loads.append(meter.pop().stop())
            if usage is not None:
                usage.append(_usage_fields(started.pop(), _usage()))
        answer = progress(done, total) if progress is not None else True
        if done < total and answer is not False:
            started[:] = [_usage()]
            meter.append(HostLoadMeter().start())
        return answer

    return tick


def _guarded_step(run: dict[str, Any], load: dict[str, Any], config: dict[str, Any], guard: dict[str, Any]) -> Guarded:
    """A ladder run and its foreign load, rerun while disturbed: the step
    alone, once, on a database built afresh (the same tuples), metered as
    the ladder's runs are; it keeps its place (repeat) in the ladder."""
    from . import _engine

    def rerun() -> tuple[dict[str, Any], dict[str, Any]]:
        loads: list[dict[str, Any]] = []
        usage: list[dict[str, Any]] = []
        again = _engine.openedge_ladder(**{**config, "steps": [run["step"]], "repeats": 1},
                                        progress=_metered(None, loads, usage))
        return {**again["runs"][0], "repeat": run["repeat"], **usage[0]}, loads[0]

    return run_guarded(rerun, first=(run, load), measured_by_cell=True, **guard)


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
        # Wake-ups per request: every voluntary switch of the servers and the users' processes,
        # per message on the wire (each a request or its answer).
        "voluntary_switches_per_message": _per(
            run.get("process_voluntary_switches", 0) + run.get("client_processes_voluntary_switches", 0),
            run["messages_sent"] + run["messages_received"]),
        "servers": config["servers"],
        "users": config["users"],
    }


def _per(count: float, of: float) -> float | None:
    return count / of if of else None


# The study's one entry, as every study module has it: run(**settings) -> RunResult.
run = run_ladder


def run_rows(result: RunResult) -> list[dict[str, Any]]:
    """Table rows of an openedge record: one per timed run (per-user times left out), with the
    data's seed (the counts are deterministic for one), the host's CPU count and 1-minute load
    average before the record's runs."""
    host = result.metrics["host"]
    before = host.get("loadavg_before")
    return [{**{k: v for k, v in run.items() if k not in ("user_seconds", "foreign_load")},
             **row_columns(run), "seed": result.config.get("seed"), "cpu_count": host["cpu_count"],
             "loadavg_1m_before": before[0] if before else None} for run in result.metrics["runs"]]


FRAME_ROWS[KIND] = run_rows


# ---------------------------------------------------------------------------
# Command line: dbrepro run openedge --out run.json ...


PROG = "dbrepro run openedge"


def build_parser():
    """One option per setting of the engine's table, with its unit, range, default and help."""
    from . import settings
    from .command import DefaultsHelpFormatter, OneLineErrorParser

    parser = OneLineErrorParser(prog=PROG, description=__doc__, formatter_class=DefaultsHelpFormatter)
    settings.add_options(parser, config_fields())
    settings.add_settings_file(parser)
    parser.add_argument("--out", required=True, metavar="FILE.json", help="raw-run record to write (JSON)")
    parser.add_argument("--no-progress", dest="progress", action="store_false", default=None,
                        help="no progress line on stderr (default: shown when stderr is a terminal)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from .command import CliError, check_writable, write_record

    def fail(message: str, code: int = 2) -> int:
        print(f"{PROG}: error: {message}", file=sys.stderr)
        return code

    try:
        from . import settings

        args = settings.parse_args(build_parser(), argv, config_fields())
        check_writable(args.out)  # fail now, not after the ladder ran
    except (CliError, ValueError) as error:
        return fail(str(error))

    def progress(done: int, total: int) -> None:
        print(f"openedge: {done}/{total} runs", file=sys.stderr, flush=True)

    shown = sys.stderr.isatty() if args.progress is None else args.progress
    try:
        from . import settings

        result = run_ladder(progress=progress if shown else None, **settings.given(args, config_fields()))
    except ConfigError as error:
        return fail(f"{settings.option(error.parameter)}: {error.reason}")
    except ValueError as error:  # the engine's own checks, e.g. an address it cannot parse
        return fail(str(error))
    except RuntimeError as error:  # sockets: a port or address that cannot be used
        return fail(str(error), 1)
    except KeyboardInterrupt:
        return fail("interrupted; nothing written", 130)
    try:
        write_record(result, args.out)
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
