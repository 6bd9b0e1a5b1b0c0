"""dbrepro: a reproducibility package for database performance experiments.

The heavy parts (the compiled engine, pandas) are imported only when used, so
`import dbrepro` stays cheap for the CLI and for tools that only read records.
"""
from __future__ import annotations

import shutil
import sys
from importlib import metadata
from pathlib import Path

from . import tpcc
from .records import load_runs, read_record, write_record
from .result import RunResult

__all__ = [
    "RunResult",
    "__version__",
    "load_runs",
    "native_executable",
    "read_record",
    "tpcc",
    "write_record",
]


def _package_version() -> str:
    try:
        return metadata.version("dbrepro")
    except metadata.PackageNotFoundError:  # running from a source tree
        return "0+unknown"


__version__ = _package_version()

NATIVE_EXECUTABLE_NAME = "dbrepro-native"


def native_executable() -> Path | None:
    """Where the native `dbrepro-native` driver is, or None if it is not built.

    Looked up beside the running interpreter first (the venv it was installed
    into), then on PATH, then in the source tree's build folders.
    """
    beside_python = Path(sys.executable).parent / NATIVE_EXECUTABLE_NAME
    if beside_python.is_file():
        return beside_python
    on_path = shutil.which(NATIVE_EXECUTABLE_NAME)
    if on_path:
        return Path(on_path)
    source_root = Path(__file__).resolve().parents[2]
    for candidate in sorted((source_root / "build").glob(f"**/{NATIVE_EXECUTABLE_NAME}")):
        if candidate.is_file():
            return candidate
    return None

