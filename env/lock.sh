#!/usr/bin/env bash
# Re-compiles env/requirements.lock: every Python package `make repro`, `make
# test` and the image install, pinned with its hashes, for Python 3.11 on x86_64
# Linux (the project's dependencies with its workflow, test and cluster extras,
# and the tools that build the engine). Needs uv (pip install uv). Run after
# changing pyproject.toml's dependencies; versions already in the lock are kept
# unless asked (UPGRADE=--upgrade env/lock.sh moves every pin to the newest).
set -euo pipefail
cd "$(dirname "$0")/.."
UV=${UV:-uv}
"$UV" pip compile pyproject.toml env/requirements.in --extra workflow --extra test --extra cluster ${UPGRADE:-} \
  --generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
  --no-header --annotation-style line --quiet -o env/requirements.lock
echo "env/requirements.lock: $(grep -c '==' env/requirements.lock) packages"
