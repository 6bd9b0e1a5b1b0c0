"""The pinned image (env/): its base pinned by digest, its Debian packages by
version, its Python packages by hash, and the CI script that builds it and
runs the smoke profile inside (.ci/docker-smoke.sh, run by CI itself)."""
from __future__ import annotations

import os
import re
import subprocess
import tomllib


def lines(path):
    return [line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


def locked(repo):
    """name -> (version, number of hashes) of env/requirements.lock."""
    packages, current = {}, None
    for line in (repo / "env" / "requirements.lock").read_text().splitlines():
        match = re.match(r"^([A-Za-z0-9_.-]+)==([^ ;\\]+)", line)
        if match:
            current = match.group(1).lower().replace("_", "-")
            packages[current] = [match.group(2), 0]
        elif "--hash=sha256:" in line and current:
            packages[current][1] += 1
    return packages


def test_base_image_is_pinned_by_digest(repo):
    dockerfile = (repo / "env" / "Dockerfile").read_text()
    base = re.search(r"^ARG BASE_IMAGE=(\S+)$", dockerfile, re.MULTILINE).group(1)
    assert re.fullmatch(r"debian:bookworm-\d{8}-slim@sha256:[0-9a-f]{64}", base), base
    assert re.search(r"^FROM \$\{BASE_IMAGE\}$", dockerfile, re.MULTILINE)


def test_debian_packages_are_pinned_to_versions(repo):
    for name in ("debian-packages.txt", "debian-tex-packages.txt"):
        packages = lines(repo / "env" / name)
        assert packages, name
        for package in packages:
            assert re.fullmatch(r"[a-z0-9.+-]+=[0-9][\w.+:~-]*", package), f"{name}: {package} has no version"


def test_python_lock_pins_every_dependency_with_hashes(repo):
    packages = locked(repo)
    assert all(hashes > 0 for _, hashes in packages.values()), packages
    project = tomllib.loads((repo / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["workflow"]
    wanted += lines(repo / "env" / "requirements.in")
    for requirement in wanted:
        name = re.match(r"[A-Za-z0-9_.-]+", requirement).group(0).lower().replace("_", "-")
        assert name in packages, f"{requirement} is not in env/requirements.lock (run env/lock.sh)"
    assert "pygments" in packages  # snakemake[reports]: the report needs it in the image too
    dockerfile = (repo / "env" / "Dockerfile").read_text()
    assert "--require-hashes" in dockerfile and "requirements.lock" in dockerfile


def test_ci_script_skips_cleanly_without_docker(repo):
    env = dict(os.environ, DOCKER_HOST="unix:///nonexistent/docker.sock")
    done = subprocess.run([str(repo / ".ci" / "docker-smoke.sh")], env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("docker-smoke: SKIP: no Docker engine answers")


def test_docker_repro_rejects_an_unknown_profile(repo):
    done = subprocess.run([str(repo / "env" / "docker-repro.sh"), "nope"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "no profile 'nope'" in done.stderr
