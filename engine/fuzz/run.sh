#!/usr/bin/env bash
# Builds every libFuzzer target of engine/fuzz with clang (build/fuzz) and
# runs each for SECONDS (default 30), starting from its committed seed corpus
# engine/fuzz/corpus/<target>/. New inputs go to build/fuzz/corpus/<target>/
# (the committed corpus is only read); a crashing input is saved as
# build/fuzz/artifacts/<target>-crash-<sha1> and fails the run.
#
#   engine/fuzz/run.sh [SECONDS] [TARGET...]      (make fuzz FUZZ_SECONDS=...)
#
# Environment: FUZZ_JOBS (build parallelism, 2), FUZZ_TIMEOUT (seconds one
# input may take before libFuzzer calls it a hang, 10), FUZZ_MAX_LEN (4096).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-30}
shift || true
case "$seconds" in
  '' | *[!0-9]*) echo "engine/fuzz/run.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2 ;;
esac
bin=${VENV:-.venv}/bin
build=build/fuzz

if ! command -v clang++ >/dev/null; then
  echo "engine/fuzz/run.sh: clang++ not found; install it with: env/install-system-deps.sh --fuzz" >&2
  exit 2
fi
CXX=clang++ "$bin/cmake" -S . -B "$build" -G Ninja -DCMAKE_MAKE_PROGRAM="$PWD/$bin/ninja" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDBREPRO_BUILD_FUZZ=ON -DDBREPRO_BUILD_TESTS=OFF -DDBREPRO_BUILD_PYTHON=OFF >/dev/null
"$bin/cmake" --build "$build" --target fuzz_targets -j "${FUZZ_JOBS:-2}"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for source in engine/fuzz/*.cpp; do targets+=("$(basename "$source" .cpp)"); done
fi
mkdir -p "$build/artifacts"
failed=()
for target in "${targets[@]}"; do
  binary="$build/engine/fuzz/$target"
  if [ ! -x "$binary" ]; then
    echo "engine/fuzz/run.sh: no fuzz target '$target' (engine/fuzz/$target.cpp)" >&2
    exit 2
  fi
  seeds=()
  [ -d "engine/fuzz/corpus/$target" ] && seeds=("engine/fuzz/corpus/$target")
  mkdir -p "$build/corpus/$target"
  echo "== $target: ${seconds} s from $(find "${seeds[@]}" "$build/corpus/$target" -type f | wc -l) input(s)"
  log=$build/$target.log
  if "$binary" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-10}" -max_len="${FUZZ_MAX_LEN:-4096}" \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" \
      "$build/corpus/$target" "${seeds[@]}" >"$log" 2>&1; then
    grep -E '^(Done|stat::number_of_executed_units|stat::new_units_added)' "$log" | tr '\n' ' '
    echo
  else
    tail -n 40 "$log" >&2
    echo "== $target FAILED; input saved as: $(ls -t "$build/artifacts/$target-"* 2>/dev/null | head -1)" >&2
    failed+=("$target")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "engine/fuzz/run.sh: failed: ${failed[*]} (replay: $build/engine/fuzz/TARGET INPUT)" >&2
  exit 1
fi
