"""The paper (paper/, workflows/paper.smk): builds with latexmk from whatever
the studies produced, includes every figure that exists, shows a placeholder
for each one that does not, and `snakemake paper` runs the studies first."""
from __future__ import annotations

import json
import re
import sys

import pandas as pd
import pytest
from envelope_helpers import ensure_latexmk, figure_inputs, tpcc_results  # noqa: F401 (fixture)
from workflow_helpers import job_count, profile, snakemake


def build_paper(python, repo, results, out):
    done = python(str(repo / "workflows" / "scripts" / "paper_build.py"), "--results", str(results),
                  "--out", str(out), "--profile", "smoke")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (out / "paper.pdf").read_bytes()[:4] == b"%PDF"
    return json.loads((out / "produced.json").read_text())


def referenced_figures(out):
    """Every figure path the generated study files pass to \\dbfigure, resolved."""
    paths = set()
    for tex in (out / "generated").glob("*.tex"):
        for path in re.findall(r"\\dbfigure\{([^}]*)\}", tex.read_text()):
            paths.add((out / path).resolve())
    return paths


def test_paper_includes_every_produced_figure(python, repo, tmp_path, tpcc_results):
    ensure_latexmk(repo)
    out = tmp_path / "paper"
    produced = build_paper(python, repo, tpcc_results / "results", out)
    assert produced["tpcc"]["figures"] == {"throughput": True}
    assert produced["tpcc"]["tables"] == {"throughput": True}
    assert not any(produced["looking_glass"]["figures"].values())  # only tpcc ran
    included = figure_inputs(out / "paper.fls")
    assert included == {(tpcc_results / "results" / "figures" / "tpcc" / "throughput.pdf").resolve()}
    # Every figure LaTeX read exists, and every referenced one that exists was read.
    assert all(path.is_file() for path in included)
    assert {path for path in referenced_figures(out) if path.is_file()} == included
    # The table is the workflow's, row for row.
    table = pd.read_csv(tpcc_results / "results" / "tables" / "tpcc" / "throughput.csv")
    tex = (out / "tables" / "tpcc_throughput.tex").read_text()
    assert tex.count(r" \\") - 1 == len(table)  # header + one line per row


def test_paper_shows_placeholders_without_results(python, repo, tmp_path):
    ensure_latexmk(repo)
    out = tmp_path / "paper"
    produced = build_paper(python, repo, tmp_path / "no-results", out)
    assert set(produced) == {"tpcc", "looking_glass", "key_cache", "openedge", "quantum", "fifo_cache"}
    assert not any(ok for study in produced.values() for ok in study["figures"].values())
    assert figure_inputs(out / "paper.fls") == set()
    # Captioned figures that are missing are listed (one caption file a figure, every study).
    assert "fig5_payment" in produced["looking_glass"]["figures"]
    assert set(produced["openedge"]["figures"]) == {"ladder", "user_stddev", "traffic"}
    listing = (out / "generated" / "produced.tex").read_text()
    assert "not yet produced: fig5" in listing and "smoke" in listing


def test_paper_target_runs_the_studies_first(python, repo, tmp_path):
    done = snakemake(python, repo, tmp_path, "paper", "-n", "--configfile", str(profile(repo, "smoke")))
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert job_count(output, "paper_pdf") == 1
    assert job_count(output, "tpcc_duet") == 2 and job_count(output, "claims") == 5


def test_tables_escape_latex_and_mark_claims_that_fail(repo, monkeypatch):
    monkeypatch.syspath_prepend(str(repo / "workflows" / "scripts"))
    from paper_tables import claims_count, claims_tex, escape, table_tex

    assert escape("50% of A_B & #1 {x}") == r"50\% of A\_B \& \#1 \{x\}"
    assert escape("x >= 5 \u2265 4 \u00d7 2, \u4e2d") == r"x \textgreater{}= 5 $\geq$ 4 $\times$ 2, ?"
    claims = pd.DataFrame({"claim": ["x > 5%", "y"], "ours": ["7%", "1"], "theirs": ["6%", "2"],
                           "reproduced": ["yes", "no"]})
    tex = claims_tex(claims)
    assert r"x \textgreater{} 5\% & 7\% & 6\% & yes \\" in tex and r"y & 1 & 2 & \textbf{no} \\" in tex
    assert claims_count(claims) == (1, 2)
    with pytest.raises(ValueError, match="reproduced"):
        claims_tex(claims.drop(columns="reproduced"))
    with pytest.raises(ValueError, match="nope"):
        table_tex(claims, ["claim", "nope"])
    assert "1 more rows" in table_tex(claims, max_rows=1)


def test_paper_build_rejects_a_missing_paper_folder(python, repo, tmp_path):
    done = python(str(repo / "workflows" / "scripts" / "paper_build.py"), "--paper", str(tmp_path))
    assert done.returncode == 2 and "--paper: no paper.tex" in done.stderr
