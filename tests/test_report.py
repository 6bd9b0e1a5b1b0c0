"""`snakemake --report report.html`: every figure of the workflow goes into the
report with a caption and its study as category."""
from __future__ import annotations

from pathlib import Path

import pytest
from envelope_helpers import TPCC_OUTPUTS, tpcc_results  # noqa: F401 (fixture)
from workflow_helpers import profile, snakemake

STUDIES = ["tpcc", "looking_glass", "key_cache", "quantum"]


@pytest.fixture(scope="module")
def figure_outputs(repo, tmp_path_factory):
    """(rule, PNG output, its report flag) of every rule that writes a figure, from the parsed workflow."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings()) as api:
        workflow_api = api.workflow(
            snakefile=repo / "Snakefile", workdir=tmp_path_factory.mktemp("report_parse"),
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(configfiles=[profile(repo, "smoke")]),
        )
        rules = workflow_api._workflow.rules  # the parsed rules: Snakemake has no public listing of flags
        return [(rule.name, str(output), output.flags.get("report"))
                for rule in rules for output in rule.output
                if str(output).startswith("results/figures/") and str(output).endswith(".png")]


def test_every_figure_is_in_the_report_with_a_caption(figure_outputs):
    studies = {path.split("/")[2] for _, path, _ in figure_outputs}
    assert set(STUDIES) <= studies
    for rule, path, flag in figure_outputs:
        assert flag is not None, f"{rule}: {path} is not marked report(...)"
        caption = Path(flag.caption.get_path_or_uri(secret_free=True))
        assert caption.is_file() and caption.read_text().strip(), f"{rule}: no caption {caption}"
        assert path.split("/")[2] in flag.category, (rule, flag.category)


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
