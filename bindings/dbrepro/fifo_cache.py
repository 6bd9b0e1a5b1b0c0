"""E5, SoQoL's FIFO-based page cache: TPC-C on a disk-backed buffer pool that
holds a fraction of the database, under one replacement policy per run.

    >>> from dbrepro import fifo_cache
    >>> result = fifo_cache.run(cache_policy="soqol", pool_fraction=0.1, warehouses=1, transactions=5000)
    >>> result.to_frame()[["txn_type", "nopm", "tpm", "hit_ratio", "pool_reads"]]

A run is `tpcc.run(stack="disk", ...)`: the database is loaded, written to a
file, and the pool restarts cold with `pool_fraction` of the database's pages;
`warmup_transactions` of the mix then run uncounted (the pool fills: the
article measured a steady state), and the measured phase counts from zero;
misses read pages with pread (O_DIRECT where the filesystem allows it), dirty
victims are written back. Policies: lru (one lock, taken on every hit), fifo,
clock, sieve, s3fifo, 2q, soqol (four hot FIFO rings with access statistics,
a cold ring of clean pages that is the source of free frames). NOPM and TPM
are reported as HammerDB does: New Orders committed per minute, and
transactions (commits and rollbacks) per minute.

The trace simulator replays a page reference string through a policy:
`simulate(policy, trace, capacity)`; `record_trace` runs TPC-C on the
recording stack and writes the string in libCacheSim's formats.

Command line:

    dbrepro run fifo_cache run --cache-policy soqol --pool-fraction 0.1 --warehouses 1 \
        --transactions 20000 --warmup-transactions 20000 --out r.json
    dbrepro run fifo_cache cells --cache-policies lru soqol --pool-fractions 0.05 0.1 --warehouses 10 \
        --transactions 20000 --warmup-transactions 20000 --out 'scale/{policy}_w{warehouses}_p{percent}.json'
    dbrepro run fifo_cache trace --warehouses 1 --transactions 2000 --warmup-transactions 2000 \
        --out trace.txt --record trace.json
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

from . import host_load, registry, tpcc
from .result import RunResult
from .tpcc import TRACE_FORMATS, ConfigError, _integer

# The TPC-C specification's mix (clause 5.2.3 minimums, as HammerDB runs it).
FULL_MIX = {"new_order": 45.0, "payment": 43.0, "order_status": 4.0, "delivery": 4.0, "stock_level": 4.0}


# E5's choices where they differ from the engine's run defaults: the TPC-C
# specification's full mix and inputs (as HammerDB runs them), 20,000
# measured transactions. Every other setting keeps the engine table's default.
STUDY_DEFAULTS = {"mix": FULL_MIX, "variant": "spec", "transactions": 20_000}
# Settings the study sets itself: the disk stack, and the trace command's own.
FIXED_SETTINGS = {"stack": "disk", "trace_path": "", "trace_format": "txt"}


def _disk_settings(cache_policy: str, pool_fraction: float, settings: dict[str, Any],
                   defaults: Mapping[str, Any] = STUDY_DEFAULTS) -> dict[str, Any]:
    """tpcc.run's settings for a run on the disk stack: the study's defaults, the caller's settings."""
    for name in ("stack", "trace_path"):
        if name in settings:
            raise ConfigError(name, f"set by the study ({FIXED_SETTINGS[name]!r} here), not a setting of this call")
    given = {name: value for name, value in settings.items() if not (name == "mix" and value is None)}
    return {**defaults, **given, "stack": "disk", "cache_policy": cache_policy, "pool_fraction": pool_fraction}


def run(
    cache_policy: str = "soqol",
    pool_fraction: float = 0.1,
    *,
    progress: Any = None,
    max_foreign_cores: float | None = None,
    max_reruns: int | None = None,
    **settings: Any,
) -> RunResult:
    """TPC-C on the disk-backed stack with one replacement policy, the pool at
    `pool_fraction` of the database's pages.

    `settings`: the engine's run settings by name (warehouses, transactions,
    warmup_transactions, seconds, seed, terminals, data_dir, o_direct, ...;
    `dbrepro list`), defaults as the engine's table has them but for
    STUDY_DEFAULTS (the full mix, spec inputs, 20,000 transactions).
    """
    return tpcc.run(**_disk_settings(cache_policy, pool_fraction, settings), progress=progress,
                    max_foreign_cores=max_foreign_cores, max_reruns=max_reruns)


def cell_path(out: str, policy: str, warehouses: int, pool_fraction: float) -> Path:
    """A cell's record: `out` with {policy}, {warehouses} and {percent} (the
    fraction in percent, as `%g` writes it) filled in."""
    try:
        return Path(out.format(policy=policy, warehouses=warehouses, percent=f"{pool_fraction * 100:g}"))
    except (KeyError, IndexError, ValueError) as error:
        raise ConfigError("out", f"{out!r} is not a path with {{policy}}, {{warehouses}} and {{percent}} ({error!r})") from None


def run_cells(
    cache_policies: Sequence[str],
    fractions: Sequence[float],
    out: str,
    *,
    max_foreign_cores: float | None = None,
    max_reruns: int | None = None,
    **settings: Any,
) -> list[Path]:
    """Every policy at every pool fraction at one warehouse count (E5's scale
    sweep), each cell's record written to `cell_path(out, ...)`; their paths.

    The database is loaded once per policy (the policy is compiled into the
    engine that holds it) and each fraction runs in a forked child, whose
    copy-on-write memory leaves the loaded database pristine: the child
    writes the file afresh and drops it from the kernel's page cache, as a run
    of its own does, so each cell counts what `run(policy, fraction, ...)`
    counts for the same seed. A child that fails stops the sweep with an
    error naming its cell (its own error is on stderr above). Each cell is
    guarded against foreign load as `tpcc.run` is (max_foreign_cores,
    max_reruns; its window: the child's life, file write included).
    """
    from . import _engine
    from .records import read_record, write_record

    policies = cache_policies
    if not policies or not fractions:
        raise ConfigError("cache_policies" if not policies else "fractions", "at least one is needed")
    load_configs = {}  # per policy: its first cell's checked settings, which its load uses
    for policy in policies:  # every cell's settings checked before any load
        for fraction in fractions:
            load_configs.setdefault(policy, tpcc.validate_config(**_disk_settings(policy, fraction, settings)))
    warehouses = load_configs[policies[0]]["warehouses"]
    paths = {cell_path(out, policy, warehouses, fraction) for policy in policies for fraction in fractions}
    if len(paths) < len(policies) * len(fractions):
        raise ConfigError("out", f"{out!r} gives {len(paths)} paths to {len(policies) * len(fractions)} cells "
                                 "(a policy or fraction twice, or {policy} or {percent} missing)")
    guard = tpcc.guard_settings(max_foreign_cores, max_reruns)
    written = []
    for policy in policies:
        loaded = _engine.load_disk(**load_configs[policy])
        for fraction in fractions:
            path = cell_path(out, policy, warehouses, fraction)

            def cell() -> None:
                result = tpcc.measured(lambda: loaded.run_cell(pool_fraction=fraction), guarded=False)
                write_record(result, path)
                print(summary(result), flush=True)
                if result.consistent is False:
                    raise RuntimeError("TPC-C's consistency check failed (the record says which condition)")

            # Metered here, around the child (our own tree): a disturbed cell
            # runs again in a fresh fork (the loaded database stays pristine).
            kept = host_load.run_guarded(
                lambda: _run_forked(cell, f"{policy} at {fraction:g} of {warehouses} warehouses"), **guard)
            record = read_record(path)
            record["metrics"]["host"].update(kept.cell_fields())
            write_record(record, path)
            written.append(path)
        del loaded
    return written


def summary(result: RunResult) -> str:
    """One line of a disk-stack run: hit ratio, I/O, NOPM and TPM."""
    pool = result.metrics["pool"]
    frame = result.to_frame()
    return (f"{pool['policy']} at {pool['fraction']:.0%}: hit ratio {pool['hit_ratio']:.4f}, {pool['reads']} reads, "
            f"{pool['writes']} writes, NOPM {frame['nopm'].iloc[0]:.0f}, TPM {frame['tpm'].iloc[0]:.0f}")


def _run_forked(cell: Any, name: str) -> None:
    """cell() in a forked child; raises RuntimeError naming the cell unless
    the child exits 0."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller's code
        status = 1
        try:
            cell()
            status = 0
        except BaseException:
            import traceback

            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
    _, wait_status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(wait_status)
    if code != 0:
        how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
        raise RuntimeError(f"cell {name}: its process ended with {how}")


# A recorded trace is short: the simulator replays it at every cache size.
TRACE_DEFAULTS = {**STUDY_DEFAULTS, "transactions": 2_000}


def record_trace(path: str | os.PathLike, *, pool_fraction: float = 0.1, progress: Any = None,
                 **settings: Any) -> RunResult:
    """A single-thread TPC-C run that writes its page reference string (the
    page id of every fix and of every new page, from the pool's cold start:
    the warm-up's references first, then the measured phase's) to `path`.
    The record's `pool.warmup_references` says how many are the warm-up's
    (`simulate(..., warmup=...)` replays them uncounted) and
    `database_pages` how many pages the database had. `settings` as run()'s
    (trace_format among them), defaults TRACE_DEFAULTS; the string does not
    depend on the policy, so the pool runs fifo."""
    return tpcc.run(**_disk_settings("fifo", pool_fraction, settings, TRACE_DEFAULTS), trace_path=os.fspath(path),
                    progress=progress)


def simulate(policy: str, trace: Sequence[int], capacity: int, warmup: int = 0) -> dict[str, Any]:
    """Replays a reference string through `policy` with `capacity` pages:
    requests, hits, misses, hit_locks (locks taken on hits), ghost_hits
    (misses found in the policy's ghost: 2Q's A1out, S3-FIFO's; 0 for the
    others), hit_ratio; the first `warmup` requests fill the cache and are
    not counted."""
    from . import _engine

    if policy not in registry.policies():
        raise ConfigError("policy", f"invalid choice {policy!r} (allowed: {', '.join(registry.policies())})")
    _integer("capacity", capacity, minimum=1, maximum=(1 << 32) - 1)
    _integer("warmup", warmup, minimum=0, maximum=len(trace))
    return _engine.cache_simulate(policy=policy, trace=list(trace), capacity=capacity, warmup=warmup)


def read_trace(path: str | os.PathLike, trace_format: str = "txt") -> list[int]:
    from . import _engine

    if trace_format not in TRACE_FORMATS:
        raise ConfigError("trace_format", f"invalid choice {trace_format!r} (allowed: {', '.join(TRACE_FORMATS)})")
    return _engine.cache_read_trace(path=os.fspath(path), format=trace_format)


def write_trace(path: str | os.PathLike, ids: Sequence[int], trace_format: str = "txt", page_size: int = 8192) -> None:
    from . import _engine

    if trace_format not in TRACE_FORMATS:
        raise ConfigError("trace_format", f"invalid choice {trace_format!r} (allowed: {', '.join(TRACE_FORMATS)})")
    _engine.cache_write_trace(path=os.fspath(path), ids=list(ids), format=trace_format, page_size=page_size)


# ---------------------------------------------------------------------------
# Command line


PROG = "dbrepro run fifo_cache"


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line naming the option, exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{PROG}: error: {message}", file=sys.stderr)
        sys.exit(2)


DEFAULT_POLICY = "soqol"


def command_rows(command: str = "run") -> list[dict[str, Any]]:
    """The settings a command offers: the engine's run table but for what the
    study fixes (FIXED_SETTINGS) and what the command sweeps (cells: the
    policies and fractions) or names itself (trace: the path), with the study's defaults."""
    from . import settings

    left_out = set(FIXED_SETTINGS)
    defaults = {**STUDY_DEFAULTS, "cache_policy": DEFAULT_POLICY}
    if command == "cells":
        left_out |= {"cache_policy", "pool_fraction"}
    if command == "trace":
        left_out = (left_out - {"trace_format"}) | {"cache_policy"}
        defaults = TRACE_DEFAULTS
    return [{**row, "default": defaults.get(row["name"], row["default"])}
            for row in settings.table("fifo_cache") if row["name"] not in left_out]


def _parser() -> argparse.ArgumentParser:
    from . import settings
    from .command import DefaultsHelpFormatter

    parser = _Parser(prog=PROG, description="E5: FIFO-based page cache vs LRU under TPC-C.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    described = ("The options are the engine's run settings (engine/src/driver/tpcc/fields.cpp),\n"
                 "checked there before any work, with E5's defaults (fifo_cache.STUDY_DEFAULTS);\n"
                 "the disk stack is the study's.")
    runner = commands.add_parser("run", help="TPC-C on the disk-backed pool with one policy", prog=PROG,
                                 description=f"`{PROG}` is `{PROG} run`; the study's other commands are "
                                             f"`{PROG} cells` and\n`{PROG} trace` (each with --help).\n\n"
                                             + described,
                                 formatter_class=DefaultsHelpFormatter)
    settings.add_options(runner, command_rows("run"))
    settings.add_settings_file(runner)
    runner.add_argument("--out", required=True, metavar="FILE.json", help="raw-run record (JSON) to write")
    cells = commands.add_parser(
        "cells", help="every policy at every pool fraction at one warehouse count: the database loaded once per "
                      "policy, each fraction run on a forked copy (E5's scale sweep)", description=described,
        formatter_class=DefaultsHelpFormatter)
    cells.add_argument("--cache-policies", nargs="+", required=True, metavar="POLICY",
                       help=f"the cells' policies, of {', '.join(registry.policies())}")
    cells.add_argument("--pool-fractions", nargs="+", type=settings.PARSERS["float"], required=True, metavar="X",
                       help="the cells' pool fractions, each in (0, 1]")
    settings.add_options(cells, command_rows("cells"))
    settings.add_settings_file(cells)
    cells.add_argument("--out", required=True, metavar="PATTERN.json",
                       help="each cell's record (JSON): a path with {policy}, {warehouses} and {percent}")
    tracer = commands.add_parser("trace", help="record the page reference string of a single-thread run",
                                 description=described, formatter_class=DefaultsHelpFormatter)
    settings.add_options(tracer, command_rows("trace"))
    settings.add_settings_file(tracer)
    tracer.add_argument("--out", required=True, metavar="FILE", help="trace file to write")
    tracer.add_argument("--record", default="", metavar="FILE.json", help="also write the run's record (JSON): database pages, warm-up references")
    parser.commands = {"run": runner, "cells": cells, "trace": tracer}
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from . import settings
    from .command import CliError, check_writable, write_record

    prog = PROG
    parser = _parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] and argv[0] in parser.commands:
        try:
            settings.apply_settings_file(parser.commands[argv[0]], argv[1:], command_rows(argv[0]))
        except ValueError as error:
            print(f"{prog}: error: {error}", file=sys.stderr)
            return 2
    args = parser.parse_args(argv)
    given = settings.given(args, command_rows(args.command))
    try:
        if args.command == "cells":
            for policy in args.cache_policies:  # fail now, not after the runs
                for fraction in args.pool_fractions:
                    check_writable(str(cell_path(args.out, policy, args.warehouses, fraction)))
            run_cells(args.cache_policies, args.pool_fractions, args.out, **given)
            return 0
        check_writable(args.out)  # fail now, not after the run
        if args.command == "trace":
            if args.record:
                check_writable(args.record)
            result = record_trace(Path(args.out), **given)
            pool = result.metrics["pool"]
            print(f"trace: {pool['warmup_references']} warm-up and {pool['hits'] + pool['misses']} measured "
                  f"references -> {args.out}")
            if args.record:
                write_record(result, args.record)
            return 0
        result = run(**given)
    except ConfigError as error:
        print(f"{prog}: error: {settings.option(error.parameter)}: {error.reason}", file=sys.stderr)
        return 2
    except (ValueError, RuntimeError, CliError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; nothing written", file=sys.stderr)
        return 130
    try:
        write_record(result, args.out)
    except CliError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    print(summary(result))
    return 0 if result.consistent is not False else 1


if __name__ == "__main__":
    sys.exit(main())
