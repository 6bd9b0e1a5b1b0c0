"""Helpers for the tests of the reproducible envelope (paper, report, image,
SLURM): a small real workflow run to build on, and TeX on demand."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from shared_runs import run_once, shared_root
from workflow_helpers import profile, snakemake

# The tpcc chain at smoke size: real raw runs, table and figure in seconds.
TPCC_OUTPUTS = ["results/tables/tpcc/throughput.csv", "results/figures/tpcc/throughput.png",
                "results/figures/tpcc/throughput.pdf"]


def ensure_latexmk(repo: Path) -> None:
    """latexmk and the paper's TeX packages, installed by the project's own
    script where missing (needs root); skips the test only if that cannot be done."""
    if shutil.which("latexmk") is None and os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run([str(repo / "env" / "install-system-deps.sh"), "--paper"], check=False,
                       capture_output=True, timeout=900)
    if shutil.which("latexmk") is None:
        pytest.skip("latexmk is missing and cannot be installed here (not root or no apt-get): "
                    "sudo env/install-system-deps.sh --paper")


def figure_inputs(fls: Path) -> set[Path]:
    """The figure files (under results/figures) that LaTeX read, from latexmk's recorder file."""
    folder = fls.parent
    inputs = set()
    for line in fls.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("INPUT ") and "figures/" in line:
            inputs.add((folder / line[len("INPUT "):]).resolve())
    return inputs


@pytest.fixture(scope="session")
def tpcc_results(python, repo, request) -> Path:
    """A work folder whose results/ holds the tpcc smoke grid, run once per
    session for every module that imports this fixture (and every xdist worker)."""
    def produce(folder):
        done = snakemake(python, repo, folder, *TPCC_OUTPUTS, "--configfile", str(profile(repo, "smoke")))
        return {"returncode": done.returncode, "output": (done.stdout + done.stderr)[-20000:]}

    folder, made = run_once(shared_root(request.config), "tpcc_smoke", produce)
    assert made["returncode"] == 0, made["output"]
    return folder
