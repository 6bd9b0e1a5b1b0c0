"""Checking a workflow config against config/schema/config.schema.yaml, with
the first problem said in one line that names the setting:

    config tpcc.transactions: 1.5 is not of type 'integer'
    config tpcc: unknown setting 'warehouse' (allowed: warehouses, variants, transactions, seed)

Snakemake's own `validate` (which also fills the schema's defaults) reports a
multi-line dump of the schema instead; the Snakefile calls this one.
"""
from __future__ import annotations

import os
from typing import Any

PathLike = str | os.PathLike


class ConfigFileError(ValueError):
    """A workflow config that does not match the schema; `setting` is its dotted path."""

    def __init__(self, setting: str, reason: str):
        super().__init__(f"config {setting}: {reason}" if setting else f"config: {reason}")
        self.setting = setting
        self.reason = reason


def validate(config: Any, schema_path: PathLike) -> None:
    """Fill the schema's defaults into `config`, or raise ConfigFileError for its first problem."""
    import jsonschema
    import yaml
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate as snakemake_validate

    with open(schema_path, encoding="utf-8") as file:
        schema = yaml.safe_load(file)
    # Our own pass first: Snakemake's wraps the error in a WorkflowError whose
    # text is the whole schema fragment.
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(config))
    if errors:
        raise _one_line(jsonschema.exceptions.best_match(errors))
    try:
        snakemake_validate(config, str(schema_path))  # fills the defaults
    except WorkflowError as error:  # a default that breaks the schema: the schema's bug
        raise ConfigFileError("", str(error).splitlines()[0]) from None


def _one_line(error) -> ConfigFileError:
    setting = ".".join(str(part) for part in error.absolute_path)
    if error.validator == "additionalProperties":
        allowed = ", ".join(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(error.schema.get("properties", {})))
        names = ", ".join(repr(name) for name in unknown)
        return ConfigFileError(setting, f"unknown setting{'s' if len(unknown) > 1 else ''} {names} (allowed: {allowed})")
    reason = error.message
    description = error.schema.get("description")
    if error.validator in ("contains", "minItems", "uniqueItems") and description:
        reason += f" ({description})"
    return ConfigFileError(setting, reason)
