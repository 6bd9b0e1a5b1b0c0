#!/usr/bin/env bash
# Runs the workflow inside the pinned image (env/build-image.sh builds it):
# this checkout's results/ (or $RESULTS_DIR) is mounted at /repro/results,
# and the job runs as the caller's uid and gid, so the files are the caller's.
#
#   env/docker-repro.sh PROFILE [TARGET...]     default targets: all paper
#   DBREPRO_IMAGE=dbrepro:local RESULTS_DIR=/somewhere env/docker-repro.sh smoke
#
# E4 (quantum) sets kernel.sched_rr_timeslice_ms and runs sessions under
# SCHED_RR: that needs root, a writable /proc/sys, CAP_SYS_NICE and, on a
# cgroup-v1 host with real-time group scheduling, a real-time budget for the
# container (cgroup dbrepro-rt). The container gets them when the caller is
# root (as on the host, the previous timeslice is restored after each run; no
# --privileged, which some hosts refuse). Other callers' E4 os_rr runs fail as
# they would outside the image. DOCKER_RUN_FLAGS adds docker run options.
set -euo pipefail
cd "$(dirname "$0")/.."
IMAGE=${DBREPRO_IMAGE:-dbrepro:local}
PROFILE=${1:?usage: env/docker-repro.sh PROFILE [TARGET...] (PROFILE: smoke, quick or full)}
shift
[ -f "config/$PROFILE.yaml" ] || { echo "docker-repro: no profile '$PROFILE' (config/$PROFILE.yaml)" >&2; exit 2; }
docker image inspect "$IMAGE" >/dev/null 2>&1 || { echo "docker-repro: no image $IMAGE; build it with env/build-image.sh" >&2; exit 2; }
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(all paper)
RESULTS_DIR=${RESULTS_DIR:-$PWD/results}
mkdir -p "$RESULTS_DIR"
flags=()
if [ "$(id -u)" -eq 0 ]; then
  flags+=(--cap-add SYS_NICE --security-opt systempaths=unconfined)
  rt=/sys/fs/cgroup/cpu
  if [ -f "$rt/cpu.rt_runtime_us" ]; then  # cgroup v1: Docker's own group has no RT budget
    mkdir -p "$rt/dbrepro-rt"
    # The same budget as the host's root group (95% of each period by default), so
    # that real-time sessions are throttled no more than outside the image.
    budget=$(cat "$rt/cpu.rt_runtime_us")
    [ "$(cat "$rt/dbrepro-rt/cpu.rt_runtime_us")" -eq "$budget" ] || echo "$budget" >"$rt/dbrepro-rt/cpu.rt_runtime_us"
    flags+=(--cgroup-parent=/dbrepro-rt --cpu-rt-runtime="$budget")
  fi
fi
# shellcheck disable=SC2086  # DOCKER_RUN_FLAGS is a list of options
exec docker run --rm --init --user "$(id -u):$(id -g)" "${flags[@]}" ${DOCKER_RUN_FLAGS:-} \
  -v "$(cd "$RESULTS_DIR" && pwd):/repro/results" "$IMAGE" \
  snakemake -s /opt/dbrepro/Snakefile --directory /repro --cores all --resources timed=1 \
  --configfile "/opt/dbrepro/config/$PROFILE.yaml" --printshellcmds --rerun-incomplete \
  "${targets[@]}"
