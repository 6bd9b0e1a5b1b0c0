#!/usr/bin/env bash
# Builds the pinned dbrepro image (env/Dockerfile), also on a machine whose
# Docker engine can pull nothing:
#   1. the base: the pinned Debian image if Docker has it (or can pull it),
#      else the same release bootstrapped here with debootstrap and imported
#      (the tarball is cached in env/cache/, which git ignores);
#   2. the Python wheels of the hashed lock, downloaded on the host into
#      env/cache/wheels (the build installs from there with --require-hashes);
#   3. docker build, with the base's ID passed in as BASE_IMAGE.
#
#   env/build-image.sh                 # image dbrepro:local
#   DBREPRO_IMAGE=name:tag env/build-image.sh
#   DBREPRO_FRESH=1 env/build-image.sh # from nothing: new base, no layer cache
# Prints how long each step took; the last line is the image's name.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${DBREPRO_IMAGE:-dbrepro:local}
CACHE=env/cache
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# The Dockerfile's default base (one place: its ARG line).
PINNED_BASE=$(sed -n 's/^ARG BASE_IMAGE=//p' env/Dockerfile)
LOCAL_BASE=dbrepro-base:${SUITE}-minbase
ROOTFS_TAR=$CACHE/debian-${SUITE}-minbase.tar
PYTHON=${PYTHON:-python3}

step_start=$SECONDS
step() {  # step NAME: report the previous step's time, announce the next
  echo "build-image: [$((SECONDS - step_start)) s] $*" >&2
}

command -v docker >/dev/null || { echo "build-image: docker is not installed" >&2; exit 1; }
docker info >/dev/null 2>&1 || { echo "build-image: no Docker engine answers (docker info failed)" >&2; exit 1; }
mkdir -p "$CACHE/wheels"
build_flags=()
if [ "${DBREPRO_FRESH:-0}" = 1 ]; then
  step "fresh: dropping the bootstrapped base and Docker's layer cache"
  rm -f "$ROOTFS_TAR"
  build_flags+=(--no-cache)
fi

# 1. Base image.
if docker image inspect "$PINNED_BASE" >/dev/null 2>&1 || docker pull "$PINNED_BASE" >/dev/null 2>&1; then
  base=$PINNED_BASE
  step "base: the pinned $PINNED_BASE"
else
  if [ "${DBREPRO_FRESH:-0}" = 1 ] || ! docker image inspect "$LOCAL_BASE" >/dev/null 2>&1; then
    if [ ! -s "$ROOTFS_TAR" ]; then
      command -v debootstrap >/dev/null || env/install-system-deps.sh --docker \
        || { echo "build-image: cannot pull $PINNED_BASE and debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
      [ "$(id -u)" -eq 0 ] || { echo "build-image: debootstrap needs root" >&2; exit 1; }
      step "base: debootstrap $SUITE (minbase) from $MIRROR"
      rootfs=$(mktemp -d "${TMPDIR:-/tmp}/dbrepro-rootfs.XXXXXX")
      trap 'rm -rf "$rootfs"' EXIT
      debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
        || { tail -20 "$CACHE/debootstrap.log" >&2; exit 1; }
      # Like the official image: no apt caches, no package lists.
      rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
      tar -C "$rootfs" --numeric-owner -cf "$ROOTFS_TAR.part" . && mv "$ROOTFS_TAR.part" "$ROOTFS_TAR"
      rm -rf "$rootfs"
      trap - EXIT
    fi
    step "base: docker import $ROOTFS_TAR as $LOCAL_BASE"
    docker import --change 'CMD ["bash"]' "$ROOTFS_TAR" "$LOCAL_BASE" >/dev/null
  fi
  base=$(docker image inspect --format '{{.Id}}' "$LOCAL_BASE")
  step "base: $LOCAL_BASE ($base), standing in for $PINNED_BASE"
fi

# 2. Wheelhouse: every file of the lock, checked against its hashes. The
# host must be what the image is (Linux x86_64, CPython 3.11): pip picks the
# wheels for the interpreter that runs it (sdist-only packages come as sdists).
"$PYTHON" -c 'import sys, platform; sys.exit(sys.version_info[:2] != (3, 11) or platform.machine() != "x86_64")' \
  || { echo "build-image: $PYTHON must be CPython 3.11 on x86_64 to fetch the image's wheels (set PYTHON=...)" >&2; exit 1; }
step "wheels: pip download -r env/requirements.lock into $CACHE/wheels"
"$PYTHON" -m pip download --quiet --disable-pip-version-check --require-hashes --no-deps \
  -r env/requirements.lock -d "$CACHE/wheels"

# 3. The image. Host networking: the build fetches Debian packages from the mirror.
step "docker build -t $IMAGE (base $base)"
docker build --network host "${build_flags[@]}" \
  --build-arg BASE_IMAGE="$base" --build-arg DEBIAN_MIRROR="$MIRROR" \
  --build-arg SOURCE_COMMIT="$(git rev-parse HEAD 2>/dev/null || echo unknown)" \
  -f env/Dockerfile -t "$IMAGE" . >"$CACHE/docker-build.log" 2>&1 \
  || { tail -40 "$CACHE/docker-build.log" >&2; echo "build-image: docker build failed (log: $CACHE/docker-build.log)" >&2; exit 1; }
step "done: $IMAGE"
echo "$IMAGE"
