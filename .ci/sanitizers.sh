#!/usr/bin/env bash
# CI: the C++ tests under ASan + UBSan (every test, and the fuzz corpora
# replayed) and under TSan (the multi-threaded suites, see TSAN_FILTER in the
# Makefile), each in its own build directory. Prints each job's wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
for job in test-asan test-tsan; do
  started=$(date +%s)
  make "$job"
  echo "== $job: $(($(date +%s) - started)) s"
done
