#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, if missing:
# a C++20 compiler, GoogleTest (for the engine's tests) and valgrind (for
# instruction counts), ccache. Everything Python comes from pyproject.toml.
set -euo pipefail

need=()
command -v g++ >/dev/null || need+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need+=(libgtest-dev googletest)
command -v valgrind >/dev/null || need+=(valgrind)
command -v ccache >/dev/null || need+=(ccache)  # shares objects between build trees
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "missing system packages: ${need[*]}; install them with: sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "installing system packages: ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
