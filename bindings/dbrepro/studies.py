"""The one registry of studies: each study's name, its label in the headline,
its title, the module that runs it, the engine's settings table it reads, the
record kinds it writes, and the files that make up the rest of it.

The CLI (`dbrepro run STUDY`, `dbrepro list`), the workflow (the Snakefile
includes each study's rules from here; the summary, the report's categories
and the progress display list them from here), the per-study helpers of the
workflow's scripts and the tests read this list; no other file writes it out.

    >>> from dbrepro import studies
    >>> studies.names(judged=True)
    ('looking_glass', 'key_cache', 'openedge', 'quantum', 'fifo_cache')

A study's files follow its name (`dbrepro new-study NAME` writes them):
workflows/<name>.smk (its rules), workflows/scripts/<name>_claims.py (its
claims, the verdict package's three steps), workflows/claims/<name>.yaml (its
criteria), workflows/data/<name>_paper.yaml (the original's numbers),
figures/<name>_*.py (its figures), workflows/report/<name>/ (their captions)
and docs/<name>.md (its page).
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable


@dataclass(frozen=True)
class Study:
    name: str  # the workflow's name, the same in the CLI, Python, tables and figures
    label: str  # the headline's label (E1 ...), "" for the foundation's own chain
    title: str  # what the original is, in a few words
    module: str  # the Python module whose run (or main) runs one experiment
    settings_table: str  # the engine's settings table (`_engine.<table>_fields()`)
    summary: str  # one line: what `dbrepro run NAME` does
    judged: bool = True  # it has findings: criteria, claims and a place in the headline
    own_command_line: bool = True  # its module's main() parses `dbrepro run NAME ...` (else dbrepro.cli does)
    commands: tuple[str, ...] = ()  # the module's own subcommands (`dbrepro run NAME COMMAND ...`), run first
    parts: dict[str, str] = field(default_factory=dict)  # `dbrepro run NAME PART ...`: a module of its own
    aliases: tuple[str, ...] = ()  # other spellings `dbrepro run` accepts
    record_kinds: dict[str, str] = field(default_factory=dict)  # record kind -> module that turns it into rows

    @property
    def heading(self) -> str:
        """'E1 looking_glass: ...', the summary's and the report's heading."""
        return f"{self.label} {self.name}: {self.title}" if self.label else f"{self.name}: {self.title}"

    @property
    def rules(self) -> str:
        return f"workflows/{self.name}.smk"

    @property
    def claims_script(self) -> str:
        return f"workflows/scripts/{self.name}_claims.py"

    @property
    def criteria(self) -> str:
        return f"workflows/claims/{self.name}.yaml"

    @property
    def docs(self) -> str:
        return f"docs/{self.name}.md"

    def main(self, argv: list[str]) -> tuple[Callable, list[str]]:
        """The command line that runs `dbrepro run NAME ARGV...` and the arguments it takes: a
        part's module (`mariadb ...`), or the study's own, its run command unless ARGV names another."""
        if argv and argv[0] in self.parts:
            return importlib.import_module(self.parts[argv[0]]).main, argv[1:]
        if self.commands and not (argv and argv[0] in self.commands):
            argv = ["run", *argv]
        return importlib.import_module(self.module).main, argv


STUDIES: tuple[Study, ...] = (
    Study("tpcc", "", "TPC-C baseline", "dbrepro.tpcc", "run_config",
          "TPC-C New Order / Payment throughput of the engine (the foundation's chain)", judged=False,
          own_command_line=False,
          record_kinds={"tpcc": "dbrepro.tpcc"}),
    Study("looking_glass", "E1", "OLTP through the looking glass (SIGMOD 2008)", "dbrepro.looking_glass",
          "looking_glass_config", "E1 instructions per phase of one transaction on a ladder step",
          own_command_line=False, aliases=("instructions",), record_kinds={"looking_glass_instructions": "dbrepro.looking_glass"}),
    Study("key_cache", "E2", "segmented key cache (MariaDB 5.2)", "dbrepro.key_cache", "key_cache_config",
          "E2 segmented key cache: build the sbtest table, run select_random_points (the model, or the real "
          "MariaDB: `mariadb tools|prepare|run`)", commands=("build", "run"),
          parts={"mariadb": "dbrepro.key_cache_mariadb"},
          record_kinds={"key_cache": "dbrepro.key_cache", "key_cache_mariadb": "dbrepro.key_cache_mariadb"}),
    Study("openedge", "E3", "OpenEdge 12 server features", "dbrepro.openedge", "openedge_config",
          "E3 OpenEdge 12 server features: the ladder of server configurations over TCP",
          record_kinds={"openedge": "dbrepro.openedge"}),
    Study("quantum", "E4", "scheduler time quantum (Oracle 10.2, 2008)", "dbrepro.quantum", "quantum_config",
          "E4 scheduler quantum: sessions under the OS or the engine's scheduler",
          record_kinds={"quantum": "dbrepro.quantum"}),
    Study("fifo_cache", "E5", "FIFO page cache (SoQoL)", "dbrepro.fifo_cache", "run_config",
          "E5 FIFO page cache: TPC-C on a disk-backed pool per replacement policy",
          commands=("run", "cells", "trace")),
)

_BY_NAME = {study.name: study for study in STUDIES}


def names(judged: bool | None = None) -> tuple[str, ...]:
    """Every study's name in the registry's order; judged=True: those with findings."""
    return tuple(s.name for s in STUDIES if judged is None or s.judged == judged)


def judged() -> tuple[Study, ...]:
    return tuple(s for s in STUDIES if s.judged)


def get(name: str) -> Study:
    """A study by its name (or an alias, or its hyphenated spelling); ValueError naming the choices."""
    wanted = name.replace("-", "_")
    for study in STUDIES:
        if wanted == study.name or name in study.aliases or wanted in study.aliases:
            return study
    raise ValueError(f"study: unknown study {name!r} (allowed: {', '.join(names())})")


def record_module(kind: str) -> str | None:
    """The module that turns records of `kind` into table rows, None for a kind no study writes."""
    for study in STUDIES:
        if kind in study.record_kinds:
            return study.record_kinds[kind]
    return None
