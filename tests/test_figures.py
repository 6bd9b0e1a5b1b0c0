"""When the figures are drawn (issue 41): a figure whose data a profile does
not produce is not registered (no rule instance, no caption in the report),
and the report's summary names it with the profiles that draw it
(register_figure's drawn_when, workflows/common.smk).
"""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import jinja2
import pandas as pd
import pytest
import yaml
from workflow_helpers import profile

REPO = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------
# Registration: no figure without its data, and the report says which profile draws it


@pytest.fixture(scope="module")
def parsed(tmp_path_factory):
    """profile name -> what that profile's parsed workflow registered (copied at once:
    the workflows parsed in one process share their globals)."""
    import copy

    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    registered = {}
    for name in ("smoke", "quick"):
        with SnakemakeApi(OutputSettings()) as api:
            workflow = api.workflow(
                snakefile=REPO / "Snakefile", workdir=tmp_path_factory.mktemp(f"figures_{name}"),
                resource_settings=ResourceSettings(cores=1),
                config_settings=ConfigSettings(configfiles=[profile(REPO, name)]),
            )._workflow  # Snakemake has no public listing of a workflow's globals
            names = ("FIGURES", "FIGURES_LEFT_OUT", "STUDY_TARGETS", "kc_cache_sizes_swept")
            found = {key: copy.deepcopy(workflow.globals[key]) for key in names}
            found["left_out_lines"] = workflow.globals["figures_left_out_text"]()
            registered[name] = SimpleNamespace(**found)
    return registered


@pytest.mark.parametrize("name, left_out, drawn_by", [
    ("quick", "cache_size", ["smoke", "full"]),  # quick runs one cache size: nothing swept
    ("smoke", "mariadb", ["quick", "full"]),  # smoke does not run the real MariaDB
])
def test_a_figure_without_data_is_left_out_and_named(parsed, name, left_out, drawn_by):
    workflow = parsed[name]
    figures, left = workflow.FIGURES, workflow.FIGURES_LEFT_OUT
    assert left_out not in figures["key_cache"]
    assert left["key_cache"][left_out]["drawn_by"] == drawn_by
    # Nothing asks for its files: no rule instance draws it.
    targets = workflow.STUDY_TARGETS
    assert not [path for path in targets if f"/figures/key_cache/{left_out}." in str(path)]
    # The report's summary caption names it with the profiles that draw it.
    lines = workflow.left_out_lines
    assert [line for line in lines if line.startswith(f"key_cache/{left_out}: not drawn")
            and line.endswith("drawn by " + ", ".join(drawn_by))]
    caption = jinja2.Template((REPO / "workflows" / "report" / "summary.rst").read_text()).render(
        snakemake=SimpleNamespace(params=SimpleNamespace(figures_left_out=lines)))
    assert f"key_cache/{left_out}: not drawn" in caption


@pytest.mark.parametrize("name", ["smoke", "quick"])
def test_every_registered_figure_has_data_in_the_profile(parsed, name):
    """The registration rules agree with each profile's settings, figure by figure."""
    workflow = parsed[name]
    config = yaml.safe_load(profile(REPO, name).read_text())
    kc = config["key_cache"]
    figures = workflow.FIGURES
    grids = [kc, *kc["extra_grids"]]
    fractions = {f for grid in grids for f in grid["index_fractions"]}
    cells = {(t, p) for grid in grids for t in grid["threads"] for p in grid["points"]}
    swept = any(len({f for grid in grids if t in grid["threads"] and p in grid["points"]
                     for f in grid["index_fractions"]}) > 1 for t, p in cells)
    assert ("cache_size" in figures["key_cache"]) == swept, (name, fractions)
    assert ("mariadb" in figures["key_cache"]) == bool(kc["mariadb"]["enabled"])
    # A figure is either drawn or left out, never both; every drawn one has its caption.
    for study, left in workflow.FIGURES_LEFT_OUT.items():
        assert not set(left) & set(figures.get(study, {}))
    for study, drawn in figures.items():
        for figure in drawn:
            assert (REPO / "workflows" / "report" / study / f"{figure}.rst").is_file()


def test_cache_size_rule_matches_the_table_it_draws(parsed, monkeypatch):
    """kc_cache_sizes_swept (the registration) and cache_sizes.csv (the data) agree on a
    throughput table holding exactly the cells a config runs."""
    monkeypatch.syspath_prepend(str(REPO / "workflows" / "scripts"))
    from key_cache_cache_sizes_table import cache_sizes_table

    swept = parsed["smoke"].kc_cache_sizes_swept
    for name in ("smoke", "quick", "full"):
        kc = yaml.safe_load(profile(REPO, name).read_text())["key_cache"]
        rows = [{"distribution": d, "index_fraction": f, "points": p, "threads": t, "segments": s,
                 "qps_median": 1000.0 + s, "mutex_waits": 0, "queries": 1000, "hits": 10, "misses": 0,
                 "inflight_waits": 0}
                for grid in [kc, *kc["extra_grids"]] for d in kc["distributions"] for f in grid["index_fractions"]
                for p in grid["points"] for t in grid["threads"] for s in kc["segments"]]
        table = cache_sizes_table(pd.DataFrame(rows).drop_duplicates())
        assert (len(table) > 0) == swept({"key_cache": kc}), name
