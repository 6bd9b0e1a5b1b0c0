"""A study's settings as the engine's settings table states them.

Each study's settings (name, type, unit, range, default, help) live in one
table in the engine (engine/src/common/config_fields.hpp and the study's
*_fields.cpp), read here through `_engine.<table>_fields()`. This module turns
a table into what a front end needs, so that nothing restates it:

    settings.table("key_cache")             # the rows, as the engine has them
    settings.add_options(parser, rows)      # one --option per row, generated
    settings.given(args, rows)              # the parsed options, by setting name

Values are parsed here only as far as their type (an integer, a number, a
comma-separated list); their ranges are checked once, in C++, on the way in,
and the engine's error names the setting, which each command shows as its
option (`option`).
"""
from __future__ import annotations

import argparse
import math
import re
from typing import Any, Iterable


def _tables() -> dict[str, str]:
    from .studies import STUDIES

    return {study.name: study.settings_table for study in STUDIES}


# Each study's table, by the study's workflow name: the engine function whose
# rows are its settings (dbrepro.studies: E1's count has its own, which passes
# TPC-C settings on; E5 runs TPC-C, so it reads TPC-C's table).
TABLES = _tables()


def table(study: str) -> list[dict[str, Any]]:
    """The settings table of `study` (a workflow name): one dict per setting with
    name, type, unit, range, default and help, in the engine's order."""
    from . import registry

    try:
        name = TABLES[study]
    except KeyError:
        raise ValueError(f"study: unknown study {study!r} (allowed: {', '.join(TABLES)})") from None
    return [dict(row) for row in getattr(registry.engine(), f"{name}_fields")()]


def names(study: str) -> tuple[str, ...]:
    return tuple(row["name"] for row in table(study))


def option(name: str) -> str:
    """The command-line option of a setting: `sessions_per_cpu` -> `--sessions-per-cpu`."""
    return "--" + name.replace("_", "-")


# ---------------------------------------------------------------------------
# Parsing a value as its type (ArgumentTypeError: argparse names the option)


# ASCII digits only: Python's int() and float() also read other scripts'
# digits (an Arabic-Indic one as 1), spaces and underscores, which neither the
# engine's API nor dbrepro-native takes.
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NOT_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)


def _integer(text: str) -> int:
    if not _INTEGER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer (ASCII digits)")
    return int(text)


def _number(text: str) -> float:
    if _NOT_FINITE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    if not _NUMBER.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (ASCII digits)")
    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def _bool(text: str) -> bool:
    if text.lower() in ("true", "1", "yes", "on"):
        return True
    if text.lower() in ("false", "0", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _integer_list(text: str) -> list[int]:
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts or not all(_INTEGER.fullmatch(part) for part in parts):
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}")
    return [int(part) for part in parts]


def parse_mix(text: str) -> dict[str, float]:
    """'new_order=0.5,payment=0.5' -> {'new_order': 0.5, 'payment': 0.5} (the engine checks names and weights)."""
    mix: dict[str, float] = {}
    for item in text.split(","):
        name, equals, weight = (part.strip() for part in item.partition("="))
        if not equals or not name:
            raise argparse.ArgumentTypeError(f"{item.strip()!r} is not TYPE=WEIGHT (e.g. new_order=0.5,payment=0.5)")
        if not _NUMBER.fullmatch(weight):
            raise argparse.ArgumentTypeError(f"weight {weight!r} of {name} is not a number (ASCII digits)")
        mix[name] = float(weight)
    return mix


PARSERS = {"int": _integer, "float": _number, "bool": _bool, "str": str, "int list": _integer_list, "mix": parse_mix}
METAVARS = {"int": "N", "float": "X", "bool": "{true,false}", "str": "TEXT", "int list": "N[,N...]",
            "mix": "TYPE=W[,TYPE=W...]"}


def shown(value: Any) -> str:
    """A default as a user would type it on the command line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return ",".join(f"{name}={weight:g}" for name, weight in value.items())
    if isinstance(value, (list, tuple)):
        return ",".join(str(item) for item in value)
    if value == "":
        return "''"
    return str(value)


def metavar(row: dict[str, Any]) -> str:
    """TEXT, N, ...; a text setting whose range is a list of words shows them: {paper,spec}."""
    words = [word.strip() for word in row.get("range", "").split(",")]
    if row["type"] == "str" and len(words) > 1 and all(word.isidentifier() for word in words):
        return "{" + ",".join(words) + "}"
    return METAVARS[row["type"]]


def describe(row: dict[str, Any]) -> str:
    """A setting's help line: its help, unit, range and default, all from the table."""
    text = row["help"]
    if row.get("unit"):
        text += f" [{row['unit']}]"
    if row.get("range"):
        text += f"; range: {row['range']}"
    return f"{text}; default: {shown(row['default'])}"


# The JSON-schema types of the table's types (a list's items are integers).
SCHEMA_TYPES = {"int": "integer", "float": "number", "bool": "boolean", "str": "string", "int list": "array",
                "mix": "object"}


def range_schema(row: dict[str, Any]) -> dict[str, Any]:
    """A row's stated range as JSON-schema keywords of one value ({} where the
    range is prose the schema cannot say: the engine still checks it)."""
    text = row.get("range", "")
    if m := re.fullmatch(r"(?:each )?(\d+)\.\.(\d+)(?:,.*)?", text):
        return {"minimum": int(m[1]), "maximum": int(m[2])}
    if m := re.fullmatch(r">= (\d+)(?:;.*)?", text):
        return {"minimum": int(m[1])}
    if m := re.fullmatch(r"> (\d+)", text):
        return {"exclusiveMinimum": int(m[1])}
    if text == "(0, 1]":
        return {"exclusiveMinimum": 0, "maximum": 1}
    words = [word.strip() for word in text.split(",")]
    if row["type"] == "str" and len(words) > 1 and all(word.isidentifier() for word in words):
        return {"enum": words}
    return {}


def described(row: dict[str, Any]) -> str:
    """A setting's help, unit and range (what a schema or a page says of it; the default is the caller's)."""
    return describe(row).rsplit("; default: ", 1)[0]


def add_options(parser: argparse.ArgumentParser, rows: Iterable[dict[str, Any]], *,
                required: Iterable[str] = (), defaults: dict[str, Any] | None = None) -> None:
    """One option per row, named, typed and documented by the row. A row the
    table marks required is; `required` names more that the command cannot
    default (e.g. E2's table_dir); `defaults` replaces a row's default where
    the command's differs (said in its help)."""
    rows = list(rows)
    required = set(required) | {row["name"] for row in rows if row.get("required")}
    defaults = dict(defaults or {})
    for row in rows:
        name = row["name"]
        help_text = describe(row)
        default = row["default"]
        if name in defaults:
            default = defaults[name]
            help_text = help_text.rsplit("; default: ", 1)[0] + f"; default here: {shown(default)}"
        if name in required:
            help_text = help_text.rsplit("; default: ", 1)[0] + " (required)"
        parser.add_argument(option(name), dest=name, type=PARSERS[row["type"]], metavar=metavar(row),
                            default=None if name in required else default, required=name in required,
                            help=help_text.replace("%", "%%"))


SETTINGS_OPTION = "--settings"


def add_settings_file(parser: argparse.ArgumentParser) -> None:
    """--settings FILE.json: the command's settings as data (the workflow writes one per cell)."""
    parser.add_argument(SETTINGS_OPTION, metavar="FILE.json", default=None,
                        help="a JSON object of settings by name (the workflow writes one per cell); an option "
                             "given on the command line wins over the file's value")


def _settings_path(argv: list[str]) -> str | None:
    for i, arg in enumerate(argv):
        if arg == SETTINGS_OPTION and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(SETTINGS_OPTION + "="):
            return arg.split("=", 1)[1]
    return None


def read_settings_file(path: str, rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The file's settings, each a setting of `rows`; ValueError (one line) for anything else."""
    import json

    allowed = [row["name"] for row in rows]
    try:
        with open(path, encoding="utf-8") as file:
            values = json.load(file)
    except OSError as error:
        raise ValueError(f"{SETTINGS_OPTION}: cannot read {path}: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{SETTINGS_OPTION}: {path} is not JSON ({error.msg}, line {error.lineno})") from None
    if not isinstance(values, dict):
        raise ValueError(f"{SETTINGS_OPTION}: {path} must hold an object of settings by name")
    unknown = [name for name in values if name not in allowed]
    if unknown:
        raise ValueError(f"{SETTINGS_OPTION}: {path}: unknown setting {unknown[0]!r} (allowed: {', '.join(allowed)})")
    return values


def apply_settings_file(parser: argparse.ArgumentParser, argv: Iterable[str], rows: Iterable[dict[str, Any]]) -> None:
    """Before parsing: the values of `--settings FILE` in argv become the
    parser's defaults (so a required setting the file gives is not required),
    the command line still winning. Raises ValueError for a bad file."""
    rows = list(rows)
    path = _settings_path(list(argv))
    if path is None:
        return
    values = read_settings_file(path, rows)
    for action in parser._actions:  # argparse has no public way to relax `required`
        if action.dest in values:
            action.default = values[action.dest]
            action.required = False


def parse_args(parser: argparse.ArgumentParser, argv: Iterable[str] | None,
               rows: Iterable[dict[str, Any]]) -> argparse.Namespace:
    """argv (sys.argv's by default) parsed, its `--settings FILE` applied first;
    ValueError (one line) for a bad file."""
    import sys

    argv = list(sys.argv[1:] if argv is None else argv)
    apply_settings_file(parser, argv, rows)
    return parser.parse_args(argv)


def given(args: argparse.Namespace, rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The settings the parsed options hold, by setting name."""
    return {row["name"]: getattr(args, row["name"]) for row in rows}
