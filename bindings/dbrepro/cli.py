"""The `dbrepro` command line (also `python -m dbrepro`).

    dbrepro run tpcc --warehouses 2 --transactions 40000 --out run.json
    dbrepro run looking_glass --step 5 --txn-type payment --out count.json
    dbrepro info
    dbrepro compare results reference/runs/quick --checks --out compare.csv
    dbrepro verdicts rejudge reference/runs/quick-s

Errors in arguments or configuration are one line on stderr and exit code 2;
a failed consistency check is exit code 1 (the record is still written so the
failure can be inspected); Ctrl-C is exit code 130 and writes nothing.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from . import __version__
from . import studies as registry_of_studies
from .settings import option as _option_name

from .command import (EXIT_FAILURE, EXIT_INCONSISTENT, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, CliError,
                      DefaultsHelpFormatter, OneLineErrorParser, print_lines)
from .command import check_writable as _check_writable
from .command import write_record as _write

PROG = "dbrepro"


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
            f"{_study_names_text()}\n"
            "  list               print the studies, the engine's stacks and policies, and each study's settings\n"
            "  info               print this machine's provenance (versions, CPU, counters) as JSON\n"
            "  compare            compare two runs' verdicts, finding by finding\n"
            "  verdicts           the verdict package's tools: between-run estimates, committed runs re-judged\n"
            "  duet               run two single-terminal cells at once, one pinned to each CPU\n"
            "  machine            this machine's fingerprint: CPU identity, kind, primitive costs (JSON)\n"
            "  new-study NAME     write a new study's registry entry and a skeleton that runs as it is\n\n"
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

    for study in registry_of_studies.STUDIES:  # the others parse their own options (dbrepro.studies)
        if study.own_command_line:
            studies.add_parser(study.name, help=f"{study.summary} (options: {PROG} run {study.name} --help)",
                               add_help=False, aliases=_spellings(study))

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
    # Commands with parsers of their own (main hands them their arguments): listed here for --help.
    commands.add_parser("verdicts", help="between-run estimates, committed runs re-judged "
                                         "(options: dbrepro verdicts --help)", add_help=False)
    commands.add_parser("duet", help="two single-terminal cells at once, one pinned to each CPU "
                                     "(options: dbrepro duet --help)", add_help=False)
    commands.add_parser("machine", help="this machine's fingerprint: identity, kind, primitive costs "
                                        "(options: dbrepro machine --help)", add_help=False)
    commands.add_parser("new-study", help="a new study's registry entry and a skeleton that runs in the smoke "
                                          "profile (options: dbrepro new-study --help)", add_help=False)
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
    from .verdicts import compare

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
    from .verdicts import compare

    try:
        return compare.load_run(path)
    except compare.CompareError as error:
        raise CliError(f"{name}: {error}") from None


def show_info(_args: argparse.Namespace) -> int:
    from . import provenance

    print_lines([json.dumps(provenance.collect(), indent=2)])
    return EXIT_OK


def _spellings(study) -> list[str]:
    """The other names `dbrepro run` takes for a study: its hyphenated spelling and its aliases."""
    hyphenated = [study.name.replace("_", "-")] if "_" in study.name else []
    return [*hyphenated, *study.aliases]


# E1's command: its workflow name, the hyphenated spelling, and its older name.
LOOKING_GLASS_ALIASES = _spellings(registry_of_studies.get("looking_glass"))

# Every study by its workflow name, with the command that runs it (dbrepro.studies).
STUDIES = {study.name: f"{PROG} run {study.name}" + (f" (also: run {', '.join(study.aliases)})" if study.aliases
                                                     else "") for study in registry_of_studies.STUDIES}


def run_new_study(argv: list[str]) -> int:
    """`dbrepro new-study NAME [--label E6] [--title TEXT] [--root DIR]`."""
    from pathlib import Path

    from . import new_study
    from .verdicts.criteria import REPO

    parser = OneLineErrorParser(prog=f"{PROG} new-study", description=new_study.__doc__,
                                formatter_class=DefaultsHelpFormatter)
    parser.add_argument("name", metavar="NAME", help="the study's name: lower case, letters, digits and _")
    parser.add_argument("--label", default="", help="its headline label (default: E<n>, the next one)")
    parser.add_argument("--title", default="", help="what the original is, in a few words")
    parser.add_argument("--root", type=Path, default=REPO, metavar="DIR",
                        help="the repository to write into (default: this package's own)")
    try:
        args = parser.parse_args(argv)
        written = new_study.write(args.root, args.name, args.label, args.title)
    except (CliError, ValueError, OSError) as error:
        print(f"{PROG} new-study: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    print_lines([f"wrote {path}" for path in written]
                + [f"next: docs/{args.name}.md lists what to fill in; run it alone with "
                   f"`.venv/bin/snakemake --cores all --resources timed=1 --configfile config/smoke.yaml {args.name}`"])
    return EXIT_OK


def _study_names_text() -> str:
    """The epilog's lines naming every study (dbrepro.studies), wrapped under `run STUDY`."""
    import textwrap

    words = ", ".join(s.name + (f" (also {', '.join(s.aliases)})" if s.aliases else "")
                      for s in registry_of_studies.STUDIES)
    return "\n".join(textwrap.wrap(f"workflow's name ({words}; hyphens accepted)", 98,
                                    initial_indent=" " * 21, subsequent_indent=" " * 21))


def _own_command_line(name: str) -> bool:
    try:
        return registry_of_studies.get(name).own_command_line
    except ValueError:
        return False


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
    if len(argv) >= 2 and argv[0] == "run" and _own_command_line(argv[1]):
        # The study's module parses its own options (dbrepro.studies): one entry point, `dbrepro run`.
        study_main, rest = registry_of_studies.get(argv[1]).main(argv[2:])
        return study_main(rest)
    if argv[:1] == ["duet"]:  # its own parser: two cells' run commands (dbrepro.duet)
        from . import duet

        return duet.main(argv[1:])
    if argv[:1] == ["machine"]:  # its own parser: the machine's fingerprint (dbrepro.machine)
        from . import machine

        return machine.main(argv[1:])
    if argv[:1] == ["new-study"]:  # needs no engine: writes files (dbrepro.new_study)
        return run_new_study(argv[1:])
    if argv[:1] == ["verdicts"]:  # its own parser; needs no engine (dbrepro.verdicts.cli)
        from .verdicts import cli as verdicts_cli

        return verdicts_cli.main(argv[1:])
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
