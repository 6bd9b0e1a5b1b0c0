"""A variation of a profile: dotted settings on the command line, turned into
the run's folder name and Snakemake's --config arguments (issue 31).

    python workflows/scripts/variation.py name quick "key_cache.threads=[1,8] key_cache.rows=4000000"
        -> quick+key_cache.threads=1,8+key_cache.rows=4000000
    python workflows/scripts/variation.py file quick "key_cache.threads=[1,8]"
        -> results/quick+key_cache.threads=1,8/variation.yaml (written; pass it as a second --configfile)

Each setting is PATH=VALUE, PATH a dotted path into the config (the schema
checks it when the workflow starts: a typo is an error naming it), VALUE YAML.
Without settings the run is the profile's own: results/<profile>.
"""
from __future__ import annotations

import shlex
import sys
from pathlib import Path

import yaml

from dbrepro import yaml_text


def parse(settings: str) -> list[tuple[list[str], object, str]]:
    """(path, value, the setting as written) of each PATH=VALUE."""
    found = []
    for item in shlex.split(settings or ""):
        path, equals, text = item.partition("=")
        if not equals or not path or any(not part.isidentifier() for part in path.split(".")):
            raise ValueError(f"{item!r}: expected PATH=VALUE with a dotted PATH (e.g. key_cache.threads=[1,8])")
        found.append((path.split("."), yaml_text.safe_load(text), item))
    return found


def name(profile: str, settings: str) -> str:
    parts = [profile]
    for path, value, _ in parse(settings):
        shown = ",".join(map(str, value)) if isinstance(value, list) else str(value)
        parts.append(f"{'.'.join(path)}={shown}")
    folder = "+".join(parts)
    if any(c in folder for c in "/ \\{}[]:'\""):
        raise ValueError(f"{folder!r}: a variation's values must make a plain folder name")
    return folder


def overrides(profile: str, settings: str) -> dict:
    """The config the variation lays over its profile: the run's folder, the variation as
    written, and the settings as nested sections (Snakemake merges a second config file
    into the first section by section, keeping what it does not name)."""
    merged: dict = {"results_dir": f"results/{name(profile, settings)}",
                    "variation": " ".join(item for _, _, item in parse(settings))}
    for path, value, _ in parse(settings):
        at = merged
        for key in path[:-1]:
            at = at.setdefault(key, {})
            if not isinstance(at, dict):
                raise ValueError(f"{'.'.join(path)}: {key} is a setting, not a section")
        at[path[-1]] = value
    return merged


def write_file(profile: str, settings: str) -> Path:
    folder = Path("results") / name(profile, settings)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "variation.yaml"
    path.write_text("# Written by workflows/scripts/variation.py: what this run changes from config/"
                    f"{profile}.yaml.\n" + yaml.safe_dump(overrides(profile, settings), sort_keys=False))
    return path


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (2, 3) or argv[0] not in ("name", "file"):
        print(__doc__, file=sys.stderr)
        return 2
    profile, settings = argv[1], argv[2] if len(argv) == 3 else ""
    try:
        print(name(profile, settings) if argv[0] == "name" else write_file(profile, settings))
    except (ValueError, yaml.YAMLError) as error:
        print(f"variation: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
