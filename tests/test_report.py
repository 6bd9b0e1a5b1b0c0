"""`snakemake --report report.html`: every figure of the workflow goes into the
report with a caption and its study as category."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from envelope_helpers import TPCC_OUTPUTS, tpcc_results  # noqa: F401 (fixture)
from workflow_helpers import profile, snakemake

from dbrepro import studies



@pytest.fixture(scope="module")
def parsed_workflow(repo, tmp_path_factory):
    """The smoke profile's parsed workflow (rules and globals)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings()) as api:
        workflow_api = api.workflow(
            snakefile=repo / "Snakefile", workdir=tmp_path_factory.mktemp("report_parse"),
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(configfiles=[profile(repo, "smoke")]),
        )
        return workflow_api._workflow  # Snakemake has no public listing of rules' flags


def test_every_figure_is_in_the_report_with_a_caption(parsed_workflow, repo):
    figure_rules = [rule for rule in parsed_workflow.rules
                    if any(str(output).startswith("results/figures/") for output in rule.output)]
    assert [rule.name for rule in figure_rules] == ["figure"]  # one rule draws them all
    png = next(output for output in figure_rules[0].output if str(output).endswith(".png"))
    flag = png.flags.get("report")
    assert flag is not None, "the figures' PNG is not marked report(...)"
    assert Path(flag.caption.get_path_or_uri(secret_free=True)).read_text().strip()
    registered = parsed_workflow.globals["FIGURES"]
    assert set(studies.names()) <= set(registered)
    categories = parsed_workflow.globals["REPORT_CATEGORIES"]
    for study, figures in registered.items():
        assert study in flag.category(SimpleNamespace(study=study)) == categories[study]
        for name in figures:
            own = repo / "workflows" / "report" / study / f"{name}.rst"
            assert own.is_file() and own.read_text().strip(), f"{study}/{name}: no caption {own}"


def test_report_holds_the_captioned_figures(python, repo, tpcc_results):
    # Only tpcc ran: the report of its targets (every figure marked for a
    # report must exist, so the report of `all` needs the whole run).
    done = snakemake(python, repo, tpcc_results, *TPCC_OUTPUTS, "--report", "report.html",
                     "--configfile", str(profile(repo, "smoke")))
    assert done.returncode == 0, done.stdout + done.stderr
    html = (tpcc_results / "report.html").read_text(encoding="utf-8")
    caption = (repo / "workflows" / "report" / "tpcc" / "throughput.rst").read_text().split(" of the")[0]
    assert caption in html  # the figure's caption
    assert "tpcc: TPC-C baseline" in html  # its category
    assert "profile <tt class=\\\"docutils literal\\\">smoke</tt>" in html  # the front page, rendered


def test_captions_shared_with_the_paper(repo, monkeypatch):
    monkeypatch.syspath_prepend(str(repo / "workflows" / "scripts"))
    from paper_captions import caption

    report = repo / "workflows" / "report"
    heatmap, relative = caption(report, "key_cache", "heatmap"), caption(report, "key_cache", "relative")
    assert heatmap.startswith("E2: throughput gain") and relative.startswith("E2: throughput with 32")
    assert caption(report, "looking_glass", "fig5_payment").startswith("E1, Figure 5")
    assert caption(report, "no_such_study", "anything") is None  # no caption: the paper names the file


# ---------------------------------------------------------------------------
# The summary (the report's first page) says what the run judged (issue 41).


@pytest.fixture
def summary(repo, monkeypatch):
    monkeypatch.syspath_prepend(str(repo / "workflows" / "scripts"))
    import summary

    return summary


def _claims(verdicts, reasons=None, role="finding"):
    import pandas as pd

    return pd.DataFrame({"role": role, "setting": "original", "reproduced": verdicts,
                         "reason": reasons or [""] * len(verdicts)})


def test_a_run_that_judges_no_finding_says_so_in_its_headline(summary):
    from dbrepro import verdicts as vd

    too_few = vd.evaluate_statistic([[1.0, 2.0]], lambda a, axis: a.mean(axis=axis), {"min": 0}, 5).reason
    assert vd.too_small_to_judge(too_few)
    line = summary.headline(_claims(["inconclusive"] * 3, [too_few, too_few, "the MariaDB was not run"]),
                            _claims(["yes", "no"], role="check"))
    assert line.startswith("**This run judged none of the originals' 3 findings**"), line
    assert "2 inconclusive because the run has fewer repeats or seeds" in line
    assert "1 inconclusive for the reasons each study's claims.md gives" in line
    assert "reproduced" not in line and "our 2 checks beside: 1 yes, 1 no, 0 inconclusive" in line
    judged = summary.headline(_claims(["yes", "inconclusive", "no"]), _claims([], role="check"))
    assert judged.startswith("**1 of 3 judged findings of the originals reproduced** (1 no, 1 inconclusive;")


def test_criteria_change_lines_are_cut_at_a_word(summary):
    line = "abc1234 2026-11-27 " + "E2: the claims judge the cells whose points were drawn " * 5
    cut = summary.shortened(line)
    assert len(cut) <= 160 and cut.endswith(" ...")
    assert line.startswith(cut[:-4]) and line[len(cut) - 4] == " "  # the cut falls between two words
    assert summary.shortened("short line") == "short line"
