"""Checking a workflow config against config/schema/config.schema.yaml, with
the first problem said in one line that names the setting:

    config tpcc.transactions: 1.5 is not of type 'integer'
    config tpcc: unknown setting 'warehouse' (allowed: warehouses, variants, transactions, seed)

Snakemake's own `validate` (which also fills the schema's defaults) reports a
multi-line dump of the schema instead; the Snakefile calls this one.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
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

    from dbrepro import yaml_text
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate as snakemake_validate

    with open(schema_path, encoding="utf-8") as file:
        schema = with_settings(with_registry(yaml_text.safe_load(file)))
    # Our own pass first: Snakemake's wraps the error in a WorkflowError whose
    # text is the whole schema fragment.
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(config))
    if errors:
        raise _one_line(jsonschema.exceptions.best_match(errors))
    with tempfile.TemporaryDirectory(prefix="dbrepro-schema-") as folder:
        resolved = Path(folder) / Path(schema_path).name  # Snakemake reads a schema from a file
        resolved.write_text(yaml.safe_dump(schema, sort_keys=False), encoding="utf-8")
        try:
            snakemake_validate(config, str(resolved))  # fills the defaults
        except WorkflowError as error:  # a default that breaks the schema: the schema's bug
            raise ConfigFileError("", str(error).splitlines()[0]) from None


# Lists the schema takes from the engine instead of spelling them out.
_REGISTRY_LISTS = {"policies": "policies", "stacks": "stack_names", "key_cache_modes": "key_cache_modes"}


def with_registry(schema: Any) -> Any:
    """The schema with `x-enum-from: NAME` replaced by `enum` and
    `x-default-from: NAME` by `default`, NAME a list of dbrepro.registry."""
    from . import registry

    if isinstance(schema, list):
        return [with_registry(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key in ("x-enum-from", "x-default-from"):
            if value not in _REGISTRY_LISTS:
                raise ConfigFileError("", f"schema: {key}: unknown registry list {value!r} "
                                          f"(allowed: {', '.join(_REGISTRY_LISTS)})")
            out["enum" if key == "x-enum-from" else "default"] = list(getattr(registry, _REGISTRY_LISTS[value])())
        else:
            out[key] = with_registry(value)
    return out


CONSTRAINTS = ("minimum", "maximum", "exclusiveMinimum", "enum")


def with_settings(schema: Any) -> Any:
    """The schema with each study property marked `x-setting: NAME` described
    and ranged by NAME's row of the study's engine settings table
    (dbrepro.settings): the schema itself says only what the workflow adds
    (`x-note`: the article's values, the profile's use; the profile's
    default; a list where the profile sweeps the setting)."""
    from . import settings

    for study, section in schema.get("properties", {}).items():
        if study not in settings.TABLES or not isinstance(section, dict):
            continue
        rows = {row["name"]: row for row in settings.table(study)}
        for key, prop in section.get("properties", {}).items():
            prop.pop("x-differs", None)  # why a property named like a setting is not that setting (read by tests)
            name = prop.pop("x-setting", None)
            if name is None:
                continue
            if name not in rows:
                raise ConfigFileError("", f"schema: {study}.{key}: x-setting {name!r} is not a setting of {study} "
                                          f"(allowed: {', '.join(rows)})")
            row, note = rows[name], prop.pop("x-note", None)
            prop["description"] = settings.described(row) + (f"; here: {note}" if note else "")
            # The engine's range, narrowed where the workflow needs more (a run of at least one transaction).
            target = prop.setdefault("items", {}) if prop.get("type") == "array" else prop
            own = {key: target[key] for key in CONSTRAINTS if key in target}
            target.update({**settings.range_schema(row), **own})
    return schema


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
