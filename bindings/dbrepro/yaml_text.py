"""YAML read with libyaml's parser where PyYAML was built with it (its wheels are): the same
documents as `yaml.safe_load`, about eight times faster. Every job of a run, and the verdicts'
re-judging, reads the criteria files (between_runs.yaml alone is 30 kB): with the pure-Python
parser, parsing them was most of `test_verdicts_rejudged`'s time."""
from __future__ import annotations

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(stream):
    """`yaml.safe_load(stream)`: a str or an open file, the same tags and types."""
    return yaml.load(stream, Loader=_LOADER)
