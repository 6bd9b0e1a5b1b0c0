"""Where the repository is whose criteria, committed runs and configs the package reads.

The checkout the package was installed from (an editable install: the package's
own folder lies inside it); else $DBREPRO_REPO, which the workflow sets to its own
folder for every job (workflows/common.smk; the Docker image installs the package
into its venv and mounts the checkout); else the working folder or the nearest one
above it that holds workflows/claims.
"""
from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

MARKER = Path("workflows") / "claims"


def _holds_repo(folder: Path) -> bool:
    return (folder / MARKER).is_dir()


@lru_cache(maxsize=None)
def repo_root() -> Path:
    installed_from = Path(__file__).resolve().parents[2]
    if _holds_repo(installed_from):
        return installed_from
    named = os.environ.get("DBREPRO_REPO")
    if named and _holds_repo(Path(named)):
        return Path(named).resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if _holds_repo(folder):
            return folder
    return installed_from
