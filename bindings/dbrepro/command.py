"""What every command line of dbrepro shares: one-line errors (exit 2), help
that keeps its line breaks and shows defaults, output that survives a closed
pipe, and the raw-run record written only where it can be, checked before
the run. The `dbrepro` CLI (dbrepro.cli) and each study's own command line
(dbrepro.key_cache, .openedge, .quantum, .fifo_cache, .key_cache_mariadb)
import it; none imports another's command line.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

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


def check_writable(out: str) -> None:
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


def write_record(result, out: str) -> str:
    """Writes the raw-run record atomically; its path."""
    from . import records

    try:
        return records.write_record(result, out)
    except OSError as error:
        raise CliError(f"--out: cannot write {out}: {error.strerror or error}") from None
