#!/usr/bin/env bash
# Re-compiles env/requirements.lock: every Python package `make repro`, `make
# test` and the image install, pinned with its hashes, for Python 3.11 on x86_64
# Linux (the project's dependencies with its workflow, test and cluster extras,
# and the tools that build the engine), and env/bootstrap.lock (uv, the
# installer). Needs uv (make setup puts it in .venv). Run after changing
# pyproject.toml's dependencies; versions already in the locks are kept unless
# asked (UPGRADE=--upgrade env/lock.sh moves every pin to the newest).
set -euo pipefail
cd "$(dirname "$0")/.."
UV=${UV:-$(command -v uv || echo .venv/bin/uv)}  # make setup installs it in .venv
"$UV" pip compile pyproject.toml env/requirements.in --extra workflow --extra test --extra cluster ${UPGRADE:-} \
  --generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
  --no-header --annotation-style line --quiet -o env/requirements.lock
echo "env/requirements.lock: $(grep -c '==' env/requirements.lock) packages"
# The installer itself (env/bootstrap.in): pip installs it with its hashes, then it installs the lock.
"$UV" pip compile env/bootstrap.in ${UPGRADE:-} \
  --generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
  --no-header --annotation-style line --quiet -o env/bootstrap.lock
echo "env/bootstrap.lock: $(grep '==' env/bootstrap.lock | cut -d' ' -f1)"
