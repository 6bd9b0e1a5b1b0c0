#!/usr/bin/env bash
# Re-compiles env/requirements.lock: every Python package of the image, pinned
# with its hashes, for the image's Python (3.11, x86_64 Linux). Needs uv
# (pip install uv). Run after changing pyproject.toml's dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
UV=${UV:-uv}
"$UV" pip compile pyproject.toml env/requirements.in --extra workflow \
  --generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
  --no-header --annotation-style line --quiet -o env/requirements.lock
echo "env/requirements.lock: $(grep -c '==' env/requirements.lock) packages"
