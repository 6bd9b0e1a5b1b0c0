"""The paper (paper/, workflows/paper.smk): builds with latexmk from whatever
the studies produced, includes every figure that exists, shows a placeholder
for each one that does not, and `snakemake paper` runs the studies first."""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from envelope_helpers import ensure_latexmk, figure_inputs, tpcc_results  # noqa: F401 (fixture)
from shared_runs import smoke_arguments
from workflow_helpers import job_count, target_dry_run

from dbrepro import studies


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
    assert set(produced) == set(studies.names())
    assert not any(ok for study in produced.values() for ok in study["figures"].values())
    assert figure_inputs(out / "paper.fls") == set()
    # Captioned figures that are missing are listed (one caption file a figure, every study).
    assert "fig5_payment" in produced["looking_glass"]["figures"]
    assert set(produced["openedge"]["figures"]) == {"ladder", "user_stddev", "traffic"}
    listing = (out / "generated" / "produced.tex").read_text()
    assert "not yet produced: fig5" in listing and "smoke" in listing


def test_paper_target_runs_the_studies_first(dry_run, repo):
    done = target_dry_run(dry_run, repo, "paper", "smoke")
    output = done.output
    assert done.returncode == 0, output
    assert job_count(output, "paper_pdf") == 1
    assert job_count(output, "tpcc_duet") == 2 and job_count(output, "claims") == 5


def test_tables_escape_latex_and_mark_claims_that_fail(repo, monkeypatch):
    monkeypatch.syspath_prepend(str(repo / "workflows" / "scripts"))
    from paper_tables import claims_tex, escape, table_tex

    assert escape("50% of A_B & #1 {x}") == r"50\% of A\_B \& \#1 \{x\}"
    assert escape("x >= 5 \u2265 4 \u00d7 2, \u4e2d") == r"x \textgreater{}= 5 $\geq$ 4 $\times$ 2, ?"
    claims = pd.DataFrame({"claim": ["x > 5%", "y"], "ours": ["7%", "1"], "theirs": ["6%", "2"],
                           "reproduced": ["yes", "no"]})
    tex = claims_tex(claims)
    assert r"x \textgreater{} 5\% & 7\% & 6\% & yes \\" in tex and r"y & 1 & 2 & \textbf{no} \\" in tex
    with pytest.raises(ValueError, match="reproduced"):
        claims_tex(claims.drop(columns="reproduced"))
    with pytest.raises(ValueError, match="nope"):
        table_tex(claims, ["claim", "nope"])
    assert "1 more rows" in table_tex(claims, max_rows=1)


def test_paper_build_rejects_a_missing_paper_folder(python, repo, tmp_path):
    done = python(str(repo / "workflows" / "scripts" / "paper_build.py"), "--paper", str(tmp_path))
    assert done.returncode == 2 and "--paper: no paper.tex" in done.stderr


def test_claims_split_into_findings_and_checks_counted_as_the_summary_counts(repo, tmp_path, monkeypatch):
    """A study's claims.csv is two tables in the paper, and \\claimssummary counts the findings
    alone, with the function the summary's headline uses (issue 41, item 8)."""
    monkeypatch.syspath_prepend(str(repo / "workflows" / "scripts"))
    from dbrepro import verdicts
    from paper_build import study_tex

    folder = tmp_path / "results" / "tables" / "key_cache"
    folder.mkdir(parents=True)
    claims = pd.DataFrame({"study": "key_cache", "id": list("abcde"), "claim": list("ABCDE"), "ours": "1",
                           "theirs": "2", "role": ["finding", "finding", "finding", "check", "check"],
                           "reproduced": ["yes", "no", "inconclusive", "yes", "yes"]})
    claims.to_csv(folder / "claims.csv", index=False)
    out = tmp_path / "paper"
    (out / "tables").mkdir(parents=True)
    text, contents = study_tex(tmp_path / "results", out, {"name": "key_cache"})
    assert contents["claims"] == verdicts.role_counts(claims)
    assert contents["claims"]["findings"] == {"yes": 1, "no": 1, "inconclusive": 1, "not judged": 0, "judged": 3,
                                              "total": 3, "settings": {}}
    assert contents["tables"] == {"findings": True, "checks": True}
    assert r"\claimssummary{1}{3}{1}{1}{2}" in text
    findings = (out / "tables" / "key_cache_findings.tex").read_text()
    checks = (out / "tables" / "key_cache_checks.tex").read_text()
    assert "A &" in findings and "D &" not in findings and "D &" in checks and "A &" not in checks


def _hashes(folder: Path) -> dict[str, str]:
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file() and not path.is_symlink()}


def _summary_counts(summary: str) -> dict[str, tuple[int, int, int, int, int]]:
    """Per study, (findings, reproduced, no, inconclusive, not judged) of the summary's table (its
    columns: study, findings, judged, reproduced, no, inconclusive, not judged, ...)."""
    rows = [line.strip("|").split("|") for line in summary.splitlines() if line.startswith("| ")]
    return {cells[0].strip(): tuple(int(cells[i]) for i in (1, 3, 4, 5, 6)) for cells in rows[1:]
            if cells[0].strip() != "all"}


def test_paper_and_report_leave_the_runs_records_byte_identical(smoke_run, repo, tmp_path):
    """`make report` and `make paper` after a run (here on a copy of the smoke run's folder, with the
    Makefile's Snakemake commands): every file the run wrote is byte-identical afterwards; their
    own files are new ones (times-paper.csv beside times.csv, never over it; issue 41, item 2).
    The paper's counts are the summary's, findings only (item 8)."""
    assert smoke_run.returncode == 0, smoke_run.output
    work = tmp_path / "run"
    shutil.copytree(smoke_run.workdir, work, symlinks=True)  # mtimes kept: nothing is out of date
    results = work / "results"
    before = _hashes(results)
    assert "logs/times.csv" in before
    runs = [("report", ["--report", str(results / "report.html")])]
    try:
        ensure_latexmk(repo)
        runs.append(("paper", ["paper"]))
    except pytest.skip.Exception as skipped:
        missing = str(skipped)
    else:
        missing = ""
    # The Makefile's own flags for a command after a run (AFTER_RUN: only a missing file is made).
    after_run = re.search(r"^AFTER_RUN := (.*)$", (repo / "Makefile").read_text(), re.M).group(1).split()
    assert after_run == ["--rerun-triggers", "mtime"]
    for name, target in runs:
        done = subprocess.run([sys.executable, "-m", "snakemake", "-s", str(repo / "Snakefile"), "--directory",
                               str(work), *target, *after_run, *smoke_arguments(repo)], capture_output=True, text=True,
                              timeout=1200)
        assert done.returncode == 0, (name, done.stdout[-3000:] + done.stderr[-3000:])
        after = _hashes(results)
        changed = sorted(path for path, digest in before.items() if after.get(path) != digest)
        assert not changed, (name, changed)
    new = sorted(set(after) - set(before))
    assert "report.html" in new
    assert all(path == "report.html" or path.startswith(("paper/", "logs/paper/", "logs/times-paper"))
               for path in new), new
    if missing:
        pytest.skip(f"the report left the run unchanged; the paper was not built: {missing}")
    assert "logs/times-paper.csv" in new
    produced = json.loads((results / "paper" / "produced.json").read_text())
    summary = _summary_counts((results / "summary.md").read_text(encoding="utf-8"))
    for study, (findings, yes, no, inconclusive, not_judged) in summary.items():
        found = produced[study]["claims"]["findings"]
        assert {k: found[k] for k in ("yes", "no", "inconclusive", "not judged", "total")} == {
            "yes": yes, "no": no, "inconclusive": inconclusive, "not judged": not_judged, "total": findings}, study
        assert found["judged"] == findings - not_judged, study  # the denominator: judged findings only
