"""Scale-out: the smoke grid of a study runs through Snakemake's SLURM executor
(profiles/slurm) on a real single-node cluster that .ci/slurm-smoke.sh starts
(slurmctld, slurmd, munge from Debian's slurm-wlm), each raw run a batch job."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_smoke_grid_runs_through_slurm(repo):
    if shutil.which("slurmctld") is None or shutil.which("slurmd") is None:
        pytest.skip("slurmctld/slurmd not installed (apt-get install slurm-wlm munge, or run .ci/slurm-smoke.sh as root)")
    if os.geteuid() != 0:
        pytest.skip("slurmd must run as root to start jobs")
    done = subprocess.run([str(repo / ".ci" / "slurm-smoke.sh"), "key_cache"], capture_output=True, text=True,
                          timeout=900, env=dict(os.environ, PYTHON=sys.executable))
    output = done.stdout + done.stderr
    if "slurm-smoke: SKIP" in done.stdout:
        pytest.skip(done.stdout.strip().splitlines()[-1])
    assert done.returncode == 0, output[-5000:]
    assert "slurm-smoke: OK" in output
    # key_cache's smoke grid: the table build and 1 timed run (its one repeat, the segment settings
    # interleaved inside it) went to SLURM, every other rule ran locally.
    assert output.count("has been submitted with SLURM jobid") == 2, output[-5000:]
    assert "key_cache: 1 raw records, 2 SLURM job logs" in output
