#!/usr/bin/env bash
# CI: builds the pinned image from nothing (env/build-image.sh: a Debian base
# bootstrapped here when no registry answers, the wheelhouse, docker build)
# and runs the smoke profile, the paper and the report inside it. Prints a
# SKIP line and exits 0 where no Docker engine answers.
#
#   .ci/docker-smoke.sh            DBREPRO_FRESH=0 keeps Docker's layer cache
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v docker >/dev/null 2>&1 || ! docker info >/dev/null 2>&1; then
  echo "docker-smoke: SKIP: no Docker engine answers (docker info failed)"
  exit 0
fi
export DBREPRO_IMAGE=${DBREPRO_IMAGE:-dbrepro:ci}
start=$SECONDS
DBREPRO_FRESH=${DBREPRO_FRESH:-1} env/build-image.sh
built=$SECONDS
echo "docker-smoke: image $DBREPRO_IMAGE built in $((built - start)) s"

RESULTS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/dbrepro-docker-smoke.XXXXXX")
export RESULTS_DIR
trap 'rm -rf "$RESULTS_DIR"' EXIT
env/docker-repro.sh smoke all paper
DOCKER_RUN_FLAGS="${DOCKER_RUN_FLAGS:-}" env/docker-repro.sh smoke --report /repro/results/report.html all
ran=$SECONDS
echo "docker-smoke: smoke profile, paper and report ran in $((ran - built)) s"

# What the run must have produced: every study's claims, the paper, the report.
missing=0
for file in tables/tpcc/throughput.csv tables/looking_glass/claims.csv tables/key_cache/claims.csv \
            tables/quantum/claims.csv paper/paper.pdf report.html; do
  [ -s "$RESULTS_DIR/$file" ] || { echo "docker-smoke: missing results/$file" >&2; missing=1; }
done
[ "$missing" -eq 0 ] || exit 1
commit=$(docker image inspect --format '{{index .Config.Labels "org.opencontainers.image.revision"}}' "$DBREPRO_IMAGE")
echo "docker-smoke: OK: image $DBREPRO_IMAGE (source $commit), build $((built - start)) s, run $((ran - built)) s"
