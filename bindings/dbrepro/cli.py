"""The `dbrepro` command line (also `python -m dbrepro`).

    dbrepro run tpcc --warehouses 2 --transactions 40000 --out run.json
    dbrepro run looking_glass --step 5 --txn-type payment --out count.json
    dbrepro info
    dbrepro compare results reference/runs/quick --checks --out compare.csv

Errors in arguments or configuration are one line on stderr and exit code 2;
a failed consistency check is exit code 1 (the record is still written so the
failure can be inspected); Ctrl-C is exit code 130 and writes nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Sequence

from . import __version__
from .settings import option as _option_name

PROG = "dbrepro"
EXIT_OK, EXIT_INCONSISTENT, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_FAILURE = 1


class CliError(Exception):
    """A usage or configuration error, reported as one line with exit code 2."""


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse, but errors are one line naming the option, without the usage dump."""

    def error(self, message: str):  # type: ignore[override]
        # argparse says "argument --variant: ..."; the option name is enough.
        if message.startswith("argument "):
            message = message[len("argument ") :]
        raise CliError(message)


class DefaultsHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description's line breaks; shows each option's default."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        documented = "%(default)" in text or "default:" in text
        if not documented and action.option_strings and action.default not in (None, argparse.SUPPRESS, False):
            text += " (default: %(default)s)"
        return text


# ---------------------------------------------------------------------------
# Parser


def build_parser() -> OneLineErrorParser:
    from . import settings

    parser = OneLineErrorParser(
        prog=PROG,
        description="Reproducible database performance experiments.",
        formatter_class=DefaultsHelpFormatter,
        epilog=(
            "commands:\n"
            "  run STUDY          run one study's experiment and write its raw-run record; STUDY is the\n"
            "                     workflow's name (tpcc, looking_glass, key_cache, openedge, quantum,\n"
            "                     fifo_cache; hyphens accepted; looking_glass is also 'instructions')\n"
            "  list               print the studies, the engine's stacks and policies, and each study's settings\n"
            "  info               print this machine's provenance (versions, CPU, counters) as JSON\n"
            "  compare            compare two runs' verdicts, finding by finding\n"
            "  duet               run two single-terminal cells at once, one pinned to each CPU\n\n"
            "Run 'dbrepro COMMAND --help' for a command's options."
        ),
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    run = commands.add_parser(
        "run", help="run one experiment and write its raw-run record", formatter_class=DefaultsHelpFormatter
    )
    studies = run.add_subparsers(dest="study", metavar="STUDY", required=True)
    tpcc_parser = studies.add_parser(
        "tpcc",
        help="TPC-C New Order / Payment",
        description=(
            "Load a TPC-C database in memory, run the transaction mix, check the\n"
            "TPC-C consistency conditions, print a summary and write the raw-run\n"
            "record (JSON) to --out. The options are the engine's run settings\n"
            "(engine/src/driver/tpcc/fields.cpp), each checked by the engine\n"
            "before any work; `dbrepro list` prints the stacks and policies.\n\n"
            "exit status: 0 ok, 1 a consistency condition failed (record written),\n"
            "2 bad arguments, 130 interrupted (nothing written)"
        ),
        formatter_class=DefaultsHelpFormatter,
    )
    settings.add_options(tpcc_parser, settings.table("tpcc"))
    settings.add_settings_file(tpcc_parser)
    add = tpcc_parser.add_argument
    add("--out", required=True, metavar="FILE.json", help="where to write the raw-run record (required)")
    add("--no-progress", dest="progress", action="store_false", default=None,
        help="no progress line on stderr (default: shown when stderr is a terminal)")

    instructions_parser = _add_instructions_parser(studies)
    # Each study command here with the settings it offers: `--settings FILE` fills them.
    parser.study_commands = {"tpcc": (tpcc_parser, lambda: settings.table("tpcc"))}
    for name in ("looking_glass", *LOOKING_GLASS_ALIASES):
        parser.study_commands[name] = (instructions_parser, _instructions_rows)

    for name, (module, summary) in DELEGATED_STUDIES.items():
        studies.add_parser(name, help=f"{summary} (options: {PROG} run {name} --help)", add_help=False,
                           aliases=[name.replace("_", "-")] if "_" in name else [])

    commands.add_parser(
        "list", help="print the studies, the engine's stacks and policies, and each study's settings",
        formatter_class=DefaultsHelpFormatter,
    )
    commands.add_parser(
        "info", help="print provenance (versions, CPU, counters) as JSON", formatter_class=DefaultsHelpFormatter
    )
    _add_compare_arguments(commands.add_parser(
        "compare", help=COMPARE_HELP, description=COMPARE_DESCRIPTION, formatter_class=DefaultsHelpFormatter
    ))
    return parser


COMPARE_HELP = "compare two runs' verdicts (findings.csv, checks.csv), finding by finding"
COMPARE_DESCRIPTION = (
    "Read tables/<study>/findings.csv (and, with --checks, checks.csv) of two runs\n"
    "(a results folder or a copy under reference/runs/) and show, per (study, id),\n"
    "each run's verdict, effect and 95% interval, whether they agree and whether\n"
    "the intervals overlap; then one line per difference and, last,\n"
    "'compare: F findings, A agree, X yes/no flips, Y other differences'.\n\n"
    "exit status: 0 whatever the differences, 2 unusable input (not a folder, no\n"
    "findings.csv, a table without study/id/reproduced, a verdict other than\n"
    "yes/no/inconclusive)"
)


def _add_compare_arguments(parser: argparse.ArgumentParser) -> None:
    add = parser.add_argument
    add("run_a", metavar="RUN_A", help="the first run's folder (holding tables/<study>/findings.csv)")
    add("run_b", metavar="RUN_B", help="the second run's folder")
    add("--checks", action="store_true",
        help="also compare each study's checks.csv (the project's own checks), counted on their own line")
    add("--out", default=None, metavar="FILE",
        help="write the table there instead of printing it: Markdown if FILE ends in .md, CSV otherwise")


def build_compare_parser() -> OneLineErrorParser:
    """`dbrepro compare` alone: reads CSV files, so it needs no compiled engine."""
    parser = OneLineErrorParser(
        prog=f"{PROG} compare", description=COMPARE_DESCRIPTION, formatter_class=DefaultsHelpFormatter
    )
    _add_compare_arguments(parser)
    return parser


def _instructions_rows() -> list[dict]:
    from . import looking_glass

    return looking_glass.settings_rows()


def _add_instructions_parser(studies) -> argparse.ArgumentParser:
    from . import looking_glass, settings

    parser = studies.add_parser(
        "looking_glass", aliases=LOOKING_GLASS_ALIASES,
        help="E1 looking glass: instructions per transaction phase on one ladder step",
        description=(
            "Run one transaction type on one step of the looking-glass removal ladder\n"
            "(step 0 = full stack ... step 10 = stripped engine, step 11 = optimal kernel),\n"
            "count its instructions (and cycles) per transaction and phase, print a\n"
            "summary and write the raw-run record (JSON) to --out. Counts come from the\n"
            "CPU's counters (perf) where it has them, else from callgrind (cycles then\n"
            "estimated); the record says which.\n\n"
            "exit status: 0 ok, 2 bad arguments or the counter backend failed,\n"
            "130 interrupted (nothing written)"
        ),
        formatter_class=DefaultsHelpFormatter,
    )
    rows = looking_glass.settings_rows()
    settings.add_options(parser, rows)
    settings.add_settings_file(parser)
    parser.add_argument("--out", required=True, metavar="FILE.json", help="where to write the raw-run record (required)")
    return parser


# ---------------------------------------------------------------------------
# Commands


def summary_lines(result) -> list[str]:
    config, metrics = result.config, result.metrics
    lines = [
        f"tpcc {config['variant']}: {config['warehouses']} warehouse(s), seed {config['seed']}, "
        f"stack {config.get('stack', 'bare')}, page {config['page_size']} B, key compare {config['key_compare']}",
        f"throughput: {metrics['throughput_tps']:,.1f} transactions/s "
        f"({metrics['transactions']} in {metrics['elapsed_seconds']:.3f} s; "
        f"cpu {metrics['cpu_seconds']:.3f} s; load {metrics['load_seconds']:.2f} s)"
        + ("  [interrupted]" if metrics.get("interrupted") else ""),
    ]
    for txn_type, weight in config["mix"].items():
        if weight > 0:
            stats = metrics["per_type"][txn_type]
            lines.append(f"  {txn_type:<13} commits {stats['commits']:>9}  aborts {stats['aborts']:>7}")
    if result.consistency:
        lines.append("consistency:")
        for check in result.consistency:
            verdict = "PASS" if check["passed"] else "FAIL"
            detail = f" -- {check['detail']}" if check.get("detail") and not check["passed"] else ""
            lines.append(f"  {verdict}  condition {check['condition']}: {check['description']}{detail}")
    return lines


def print_lines(lines) -> None:
    """Print to stdout; a reader that went away (`| head`) is not an error."""
    try:
        for line in lines:
            print(line)
        sys.stdout.flush()
    except BrokenPipeError:
        # Point stdout at /dev/null so the interpreter's final flush is quiet.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _check_writable(out: str) -> None:
    """Fail before a long run, not after it, if --out cannot be written.

    Creates nothing: the folder is made when the record is written, and only
    inside the working folder; elsewhere it must exist already.
    """
    from .records import not_a_regular_file

    target = Path(out).resolve()  # through symlinks: the record is written where they point
    if target.is_dir():
        raise CliError(f"--out: {out} is a folder; give a file name")
    kind = not_a_regular_file(target)
    if kind:
        raise CliError(f"--out: {out} is {kind}, not a regular file; give a file name")
    existing = target.parent
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise CliError(f"--out: cannot create {out} ({existing} is not a writable folder)")
    # Missing folders are made only inside the working folder (a run's results tree):
    # a mistyped absolute path must not leave new folders elsewhere.
    working = Path.cwd().resolve()
    if existing != target.parent and not target.parent.is_relative_to(working):
        raise CliError(f"--out: folder {target.parent} does not exist and is outside the working folder "
                       f"{working}; create it first")


def _engine_error_line(error: ValueError) -> str:
    """First line of the engine's message, 'page_size: ...' shown as '--page-size: ...'."""
    from . import tpcc

    line = (str(error).splitlines() or ["invalid configuration"])[0]
    parameter, colon, rest = line.partition(":")
    if colon and parameter.strip() in tpcc.PARAMETERS:
        return f"{_option_name(parameter.strip())}:{rest}"
    return line


def _cli_error(error: Exception) -> Exception:
    """The one-line CliError for an API error, or the error itself if it is not one."""
    from . import tpcc

    if isinstance(error, tpcc.ConfigError):
        return CliError(f"{_option_name(error.parameter)}: {error.reason}")
    if isinstance(error, ValueError):  # the engine's own check; its message names the parameter
        return CliError(_engine_error_line(error))
    if isinstance(error, RuntimeError):  # no counters for perf; valgrind missing or failed
        line = (str(error).splitlines() or ["failed"])[0]
        word, space, rest = line.partition(" ")
        if space and word in tpcc.PARAMETERS:  # "meter perf: ..." is about --meter
            line = f"{_option_name(word)} {rest}"
        return CliError(line)
    return error


def _write(result, out: str) -> str:
    """Writes the raw-run record atomically; its path."""
    from .records import write_record

    try:
        return write_record(result, out)
    except OSError as error:
        raise CliError(f"--out: cannot write {out}: {error.strerror or error}") from None


def run_tpcc(args: argparse.Namespace) -> int:
    from . import settings, tpcc

    _check_writable(args.out)  # fail now, not after a long run
    try:
        result = tpcc.run(progress=args.progress, **settings.given(args, settings.table("tpcc")))
    except Exception as error:
        raise _cli_error(error) from None

    # The record first: a closed stdout (`| head`) must not lose the run.
    path = _write(result, args.out)
    print_lines([*summary_lines(result), f"record: {path}"])
    if result.consistent is False:
        print(f"{PROG}: consistency check failed (record written to {path})", file=sys.stderr)
        return EXIT_INCONSISTENT
    return EXIT_OK


def instruction_summary_lines(count) -> list[str]:
    config, metrics = count.result.config, count.result.metrics
    label = {entry["step"]: entry["label"] for entry in _ladder_or_empty()}.get(config["step"], "")
    cycles = metrics.get("cycles") or {}
    estimated = " (estimated)" if cycles and metrics["backend"] == "callgrind" else ""
    lines = [
        f"instructions: step {config['step']}" + (f" ({label})" if label else "")
        + f", stack {config['stack']}, {config['txn_type']}, {metrics['attempted']} transactions "
        f"({metrics['aborts']} aborted), {config['warehouses']} warehouse(s), seed {config['seed']}",
        f"backend: {metrics['backend']} ({metrics['backend_reason']}); per transaction:",
        f"  {'phase':<10} {'instructions':>14}" + (f" {'cycles' + estimated:>20}" if cycles else ""),
    ]
    for phase, value in metrics["instructions"].items():
        line = f"  {phase:<10} {value:>14,.0f}"
        if cycles:
            line += f" {cycles.get(phase, 0.0):>20,.0f}"
        lines.append(line)
    total = f"  {'total':<10} {metrics['instructions_total']:>14,.0f}"
    if cycles:
        total += f" {metrics['cycles_total']:>20,.0f}"
    lines.append(total)
    return lines


def _ladder_or_empty() -> list[dict]:
    from . import looking_glass

    try:
        return looking_glass.ladder()
    except (ImportError, AttributeError):
        return []


def run_instructions(args: argparse.Namespace) -> int:
    from . import looking_glass, settings

    _check_writable(args.out)  # fail now, not after a long count
    try:
        count = looking_glass.count_instructions(**settings.given(args, looking_glass.settings_rows()))
    except Exception as error:
        raise _cli_error(error) from None

    path = _write(count.result, args.out)
    print_lines([*instruction_summary_lines(count), f"record: {path}"])
    return EXIT_OK


def run_compare(args: argparse.Namespace) -> int:
    from . import compare

    if args.out is not None:
        _check_writable(args.out)
    try:
        table = compare.compare_runs(
            _load_run("RUN_A", args.run_a), _load_run("RUN_B", args.run_b), include_checks=args.checks
        )
    except compare.CompareError as error:
        raise CliError(str(error)) from None
    lines = []
    if args.out is None:
        lines += [*compare.table_lines(table), ""]
    else:
        try:
            path = compare.write_table(table, args.out)
        except OSError as error:
            raise CliError(f"--out: cannot write {args.out}: {error.strerror or error}") from None
        lines.append(f"table: {path}")
    lines += compare.difference_lines(table)
    lines.append(compare.interval_line(table))
    if args.checks:
        lines.append(compare.summary_line(table, role="check"))
    lines.append(compare.summary_line(table))
    print_lines(lines)
    return EXIT_OK


def _load_run(name: str, path: str):
    from . import compare

    try:
        return compare.load_run(path)
    except compare.CompareError as error:
        raise CliError(f"{name}: {error}") from None


def show_info(_args: argparse.Namespace) -> int:
    from . import provenance

    print_lines([json.dumps(provenance.collect(), indent=2)])
    return EXIT_OK


# Studies whose command lines live in their own modules: `dbrepro run STUDY
# ...` hands the remaining arguments to that module's main(). Named as the
# workflow names them; the hyphenated spelling is accepted too. A module with
# commands of its own gets its run command unless another is named
# (`dbrepro run key_cache build ...`).
DELEGATED_STUDIES = {
    "key_cache": ("dbrepro.key_cache", "E2 segmented key cache: build the sbtest table, run select_random_points"),
    "openedge": ("dbrepro.openedge", "E3 OpenEdge 12 server features: the ladder of server configurations over TCP"),
    "quantum": ("dbrepro.quantum", "E4 scheduler quantum: sessions under the OS or the engine's scheduler"),
    "fifo_cache": ("dbrepro.fifo_cache", "E5 FIFO page cache: TPC-C on a disk-backed pool per replacement policy"),
}
MODULE_COMMANDS = {"key_cache": ("build", "run"), "fifo_cache": ("run", "cells", "trace")}


def delegated_argv(study: str, argv: list[str]) -> list[str]:
    """The module's arguments: its run command unless the first argument names another."""
    commands = MODULE_COMMANDS.get(study)
    if commands and not (argv and argv[0] in commands):
        return ["run", *argv]
    return argv


# E1's command: its workflow name, the hyphenated spelling, and its older name.
LOOKING_GLASS_ALIASES = ["looking-glass", "instructions"]

# Every study by its workflow name, with the command that runs it.
STUDIES = {
    "tpcc": f"{PROG} run tpcc",
    "looking_glass": f"{PROG} run looking_glass (also: run instructions)",
    **{name: f"{PROG} run {name}" for name in DELEGATED_STUDIES},
}


def show_list() -> int:
    """Studies, the engine's stacks and policies, and every settings table
    (name, type, unit, range, default, help), all read from the engine."""
    from . import registry, settings

    lines = ["studies:"] + [f"  {name:<14} {command}" for name, command in STUDIES.items()]
    lines += ["", "stacks (--stack):"] + [f"  {row['name']:<10} {row['summary']}" for row in registry.stacks()]
    lines += ["", "cache policies (--cache-policy):", "  " + ", ".join(registry.policies())]
    tables: dict[str, list[str]] = {}
    for study, table in settings.TABLES.items():
        tables.setdefault(table, []).append(study)
    for table, studies in tables.items():
        lines += ["", f"settings of {', '.join(studies)} (the engine's {table} table):"]
        lines += [f"  {row['name']:<20} {row['type']:<8} {settings.describe(row)}"
                  for row in settings.table(studies[0])]
    print_lines(lines)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) >= 2 and argv[0] == "run" and argv[1].replace("-", "_") in DELEGATED_STUDIES:
        import importlib

        study = argv[1].replace("-", "_")
        return importlib.import_module(DELEGATED_STUDIES[study][0]).main(delegated_argv(study, argv[2:]))
    if argv[:1] == ["duet"]:  # its own parser: two cells' run commands (dbrepro.duet)
        from . import duet

        return duet.main(argv[1:])
    try:
        if argv[:1] == ["compare"]:  # needs no engine: do not build the engine's choices
            return run_compare(build_compare_parser().parse_args(argv[1:]))
        parser = build_parser()
        if len(argv) >= 2 and argv[0] == "run" and argv[1] in parser.study_commands:
            from . import settings

            command, rows = parser.study_commands[argv[1]]
            try:
                settings.apply_settings_file(command, argv[2:], rows())
            except ValueError as error:
                raise CliError(str(error)) from None
        args = parser.parse_args(argv)
        if args.command == "info":
            return show_info(args)
        if args.command == "list":
            return show_list()
        if args.command == "compare":
            return run_compare(args)
        if args.study in ("looking_glass", *LOOKING_GLASS_ALIASES):
            return run_instructions(args)
        return run_tpcc(args)
    except CliError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted; nothing written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except ImportError as error:  # the compiled engine is missing or broken
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
