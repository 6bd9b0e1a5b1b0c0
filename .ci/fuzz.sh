#!/usr/bin/env bash
# CI: every libFuzzer target in engine/fuzz for a bounded time (FUZZ_SECONDS,
# default 30 each), from its committed seed corpus. Installs clang and
# libFuzzer first when missing (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
env/install-system-deps.sh --fuzz
started=$(date +%s)
make fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-30}"
echo "== fuzz: $(($(date +%s) - started)) s"
