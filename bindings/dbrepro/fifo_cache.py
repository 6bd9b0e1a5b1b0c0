"""E5, SoQoL's FIFO-based page cache: TPC-C on a disk-backed buffer pool that
holds a fraction of the database, under one replacement policy per run.

    >>> from dbrepro import fifo_cache
    >>> result = fifo_cache.run(policy="soqol", pool_fraction=0.1, warehouses=1, transactions=5000)
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

Command line (what the workflow calls):

    python -m dbrepro.fifo_cache run --policy soqol --pool-fraction 0.1 --warehouses 1 --transactions 20000 \
        --warmup-transactions 20000 --out r.json
    python -m dbrepro.fifo_cache cells --policies lru soqol --pool-fractions 0.05 0.1 --warehouses 10 \
        --transactions 20000 --warmup-transactions 20000 --out 'scale/{policy}_w{warehouses}_p{percent}.json'
    python -m dbrepro.fifo_cache trace --warehouses 1 --transactions 2000 --warmup-transactions 2000 \
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


def _disk_settings(policy: str, pool_fraction: float, mix: Mapping[str, float] | None, **settings: Any) -> dict[str, Any]:
    """tpcc.run's arguments for a run on the disk stack (full mix by default, spec inputs)."""
    return dict(settings, mix=FULL_MIX if mix is None else mix, variant="spec", stack="disk", cache_policy=policy,
                pool_fraction=pool_fraction)


def run(
    policy: str = "soqol",
    pool_fraction: float = 0.1,
    *,
    warehouses: int = 1,
    transactions: int = 20_000,
    warmup_transactions: int = 0,
    seconds: float = 0.0,
    mix: Mapping[str, float] | None = None,
    seed: int = 1,
    data_dir: str = "",
    o_direct: bool = True,
    progress: Any = None,
    **engine: Any,
) -> RunResult:
    """TPC-C (the full mix by default, spec inputs) on the disk-backed stack.

    Further keyword arguments go to `tpcc.run` unchanged (e.g. `terminals`
    where the engine has them).
    """
    return tpcc.run(**_disk_settings(
        policy, pool_fraction, mix, warehouses=warehouses, transactions=transactions,
        warmup_transactions=warmup_transactions, seconds=seconds, seed=seed, progress=progress, data_dir=data_dir,
        o_direct=o_direct, **engine))


def cell_path(out: str, policy: str, warehouses: int, pool_fraction: float) -> Path:
    """A cell's record: `out` with {policy}, {warehouses} and {percent} (the
    fraction in percent, as `%g` writes it) filled in."""
    try:
        return Path(out.format(policy=policy, warehouses=warehouses, percent=f"{pool_fraction * 100:g}"))
    except (KeyError, IndexError, ValueError) as error:
        raise ConfigError("out", f"{out!r} is not a path with {{policy}}, {{warehouses}} and {{percent}} ({error!r})") from None


def run_cells(
    policies: Sequence[str],
    fractions: Sequence[float],
    out: str,
    *,
    warehouses: int = 1,
    transactions: int = 20_000,
    warmup_transactions: int = 0,
    mix: Mapping[str, float] | None = None,
    seed: int = 1,
    data_dir: str = "",
    o_direct: bool = True,
    check_consistency: bool = True,
    max_foreign_cores: float | None = None,
    max_reruns: int | None = None,
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

    settings = dict(warehouses=warehouses, transactions=transactions, warmup_transactions=warmup_transactions,
                    seed=seed, data_dir=data_dir, o_direct=o_direct, check_consistency=check_consistency)
    if not policies or not fractions:
        raise ConfigError("policies" if not policies else "fractions", "at least one is needed")
    load_configs = {}  # per policy: its first cell's checked settings, which its load uses
    for policy in policies:  # every cell's settings checked before any load
        for fraction in fractions:
            load_configs.setdefault(policy, tpcc.validate_config(**_disk_settings(policy, fraction, mix, **settings)))
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


def record_trace(
    path: str | os.PathLike,
    *,
    warehouses: int = 1,
    transactions: int = 2_000,
    warmup_transactions: int = 0,
    mix: Mapping[str, float] | None = None,
    seed: int = 1,
    trace_format: str = "txt",
    pool_fraction: float = 0.1,
    progress: Any = None,
) -> RunResult:
    """A single-thread TPC-C run that writes its page reference string (the
    page id of every fix and of every new page, from the pool's cold start:
    the warm-up's references first, then the measured phase's) to `path`.
    The record's `pool.warmup_references` says how many are the warm-up's
    (`simulate(..., warmup=...)` replays them uncounted) and
    `database_pages` how many pages the database had."""
    return tpcc.run(
        warehouses=warehouses,
        transactions=transactions,
        warmup_transactions=warmup_transactions,
        mix=FULL_MIX if mix is None else mix,
        variant="spec",
        seed=seed,
        progress=progress,
        stack="disk",
        cache_policy="fifo",
        pool_fraction=pool_fraction,
        trace_path=os.fspath(path),
        trace_format=trace_format,
    )


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


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are one line naming the option, exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(2)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m dbrepro.fifo_cache", description="E5: FIFO-based page cache vs LRU under TPC-C.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    runner = commands.add_parser("run", help="TPC-C on the disk-backed pool with one policy")
    runner.add_argument("--policy", default="soqol", help=f"one of {', '.join(registry.policies())}")
    runner.add_argument("--pool-fraction", type=float, default=0.1)
    runner.add_argument("--warehouses", type=int, default=1)
    runner.add_argument("--transactions", type=int, default=20_000)
    runner.add_argument("--warmup-transactions", type=int, default=0,
                        help="run this many first, uncounted (the pool reaches its steady state)")
    runner.add_argument("--seconds", type=float, default=0.0)
    runner.add_argument("--terminals", type=int, default=1)
    runner.add_argument("--seed", type=int, default=1)
    runner.add_argument("--data-dir", default="")
    runner.add_argument("--no-o-direct", action="store_true", help="use the kernel's page cache for the file")
    runner.add_argument("--no-consistency-check", action="store_true",
                        help="skip TPC-C's consistency check after the run (it reads every page through the pool)")
    runner.add_argument("--out", required=True, help="raw-run record (JSON) to write")
    cells = commands.add_parser(
        "cells", help="every policy at every pool fraction at one warehouse count: the database loaded once per "
                      "policy, each fraction run on a forked copy (E5's scale sweep)")
    cells.add_argument("--policies", nargs="+", required=True, help=f"of {', '.join(registry.policies())}")
    cells.add_argument("--pool-fractions", nargs="+", type=float, required=True)
    cells.add_argument("--warehouses", type=int, default=1)
    cells.add_argument("--transactions", type=int, default=20_000)
    cells.add_argument("--warmup-transactions", type=int, default=0,
                       help="run this many first, uncounted (the pool reaches its steady state)")
    cells.add_argument("--seed", type=int, default=1)
    cells.add_argument("--data-dir", default="")
    cells.add_argument("--no-o-direct", action="store_true", help="use the kernel's page cache for the file")
    cells.add_argument("--no-consistency-check", action="store_true",
                       help="skip TPC-C's consistency check after each cell (it reads every page through the pool)")
    cells.add_argument("--out", required=True,
                       help="each cell's record (JSON): a path with {policy}, {warehouses} and {percent}")
    tracer = commands.add_parser("trace", help="record the page reference string of a single-thread run")
    tracer.add_argument("--warehouses", type=int, default=1)
    tracer.add_argument("--transactions", type=int, default=2_000)
    tracer.add_argument("--warmup-transactions", type=int, default=0,
                        help="recorded first; the record says how many references they made")
    tracer.add_argument("--seed", type=int, default=1)
    tracer.add_argument("--format", choices=TRACE_FORMATS, default="txt")
    tracer.add_argument("--out", required=True, help="trace file to write")
    tracer.add_argument("--record", default="", help="also write the run's record (JSON): database pages, warm-up references")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from .cli import CliError, _check_writable, _write

    prog = "python -m dbrepro.fifo_cache"
    args = _parser().parse_args(argv)
    try:
        if args.command == "cells":
            for policy in args.policies:  # fail now, not after the runs
                for fraction in args.pool_fractions:
                    _check_writable(str(cell_path(args.out, policy, args.warehouses, fraction)))
            run_cells(args.policies, args.pool_fractions, args.out, warehouses=args.warehouses,
                      transactions=args.transactions, warmup_transactions=args.warmup_transactions, seed=args.seed,
                      data_dir=args.data_dir, o_direct=not args.no_o_direct,
                      check_consistency=not args.no_consistency_check)
            return 0
        _check_writable(args.out)  # fail now, not after the run
        if args.command == "trace":
            if args.record:
                _check_writable(args.record)
            result = record_trace(Path(args.out), warehouses=args.warehouses, transactions=args.transactions,
                                  warmup_transactions=args.warmup_transactions, seed=args.seed,
                                  trace_format=args.format)
            pool = result.metrics["pool"]
            print(f"trace: {pool['warmup_references']} warm-up and {pool['hits'] + pool['misses']} measured "
                  f"references -> {args.out}")
            if args.record:
                _write(result, args.record)
            return 0
        engine = {"terminals": args.terminals} if args.terminals != 1 else {}
        if args.no_consistency_check:
            engine["check_consistency"] = False
        result = run(args.policy, args.pool_fraction, warehouses=args.warehouses, transactions=args.transactions,
                     warmup_transactions=args.warmup_transactions, seconds=args.seconds, seed=args.seed, data_dir=args.data_dir, o_direct=not args.no_o_direct,
                     **engine)
    except ConfigError as error:
        option = {"cache_policy": "--policy"}.get(error.parameter, "--" + error.parameter.replace("_", "-"))
        print(f"{prog}: error: {option}: {error.reason}", file=sys.stderr)
        return 2
    except TypeError as error:  # an engine without `terminals`
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except (ValueError, RuntimeError, CliError) as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted; nothing written", file=sys.stderr)
        return 130
    try:
        _write(result, args.out)
    except CliError as error:
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    print(summary(result))
    return 0 if result.consistent is not False else 1


if __name__ == "__main__":
    sys.exit(main())
