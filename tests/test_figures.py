"""What the figures show and when they are drawn (issue 41).

- A figure whose data a profile does not produce is not registered (no rule
  instance, no caption in the report), and the report's summary names it with
  the profiles that draw it (register_figure's drawn_when, workflows/common.smk).
- Every legend names the model (our engine), the real system and the original
  (the article) in the same distinct words (figures/style.py), checked on small
  hand-made tables; E2's figures say which draw of the points they show.
"""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
import numpy as np
import pandas as pd
import pytest
import yaml
from workflow_helpers import profile

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def style(monkeypatch_module):
    monkeypatch_module.syspath_prepend(str(REPO))
    from figures import style

    return style


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def texts(fig) -> list[str]:
    """Every legend entry and title, panel title, suptitle and x tick label of a figure."""
    fig.canvas.draw()
    found = []
    legends = [ax.get_legend() for ax in fig.axes] + list(fig.legends)
    for legend in filter(None, legends):
        found += [text.get_text() for text in legend.get_texts()] + [legend.get_title().get_text()]
    for ax in fig.axes:
        found += [ax.get_title()] + [label.get_text() for label in ax.get_xticklabels()]
    if fig._suptitle is not None:
        found.append(fig._suptitle.get_text())
    return [text for text in found if text]


def legend_labels(fig) -> list[str]:
    labels = []
    for legend in filter(None, [ax.get_legend() for ax in fig.axes] + list(fig.legends)):
        labels += [text.get_text() for text in legend.get_texts()]
    return labels


# ---------------------------------------------------------------------------
# Registration: no figure without its data, and the report says which profile draws it


def parse_profile(name: str, workdir: Path) -> SimpleNamespace:
    """What profile `name`'s parsed workflow registered (copied at once: the workflows parsed
    in one process share their globals), the figures and E4's grid of runs among it."""
    import copy

    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings()) as api:
        workflow = api.workflow(
            snakefile=REPO / "Snakefile", workdir=workdir, resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(configfiles=[profile(REPO, name)]),
        )._workflow  # Snakemake has no public listing of a workflow's globals
        names = ("FIGURES", "FIGURES_LEFT_OUT", "STUDY_TARGETS", "kc_cache_sizes_swept", "QT_RUNS")
        found = {key: copy.deepcopy(workflow.globals[key]) for key in names}
        found["left_out_lines"] = workflow.globals["figures_left_out_text"]()
        found["hit_curve_policies"] = list(workflow.get_rule("fifo_cache_hit_curve").params.policies)
        return SimpleNamespace(**found)


@pytest.fixture(scope="module")
def parsed(tmp_path_factory):
    """profile name -> what that profile's parsed workflow registered (parse_profile)."""
    return {name: parse_profile(name, tmp_path_factory.mktemp(f"figures_{name}")) for name in ("smoke", "quick")}


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
        snakemake=SimpleNamespace(params=SimpleNamespace(figures_left_out=lines),
                                  config={"results_dir": f"results/{name}"}))
    assert f"key_cache/{left_out}: not drawn" in caption
    assert f"(results/{name}/summary.md)" in caption  # the run's own summary, not results/summary.md


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


# ---------------------------------------------------------------------------
# Legends: the model, the real system and the original, named distinctly


def test_the_three_sources_have_distinct_names(style):
    names = [style.MODEL, style.real("MariaDB"), style.ORIGINAL, style.original("pitbull")]
    assert len({name.split(" ")[0].rstrip(":,") for name in names[:3]}) == 3  # model, real, original
    assert style.model("x").startswith(style.MODEL) and style.original("x").startswith("original")
    assert "ours" not in " ".join(names)


def test_no_figure_labels_a_line_ours_or_paper():
    """The words a legend used to give the model and our runs with the paper's inputs."""
    for script in sorted((REPO / "figures").glob("*.py")):
        text = script.read_text()
        assert not re.search(r"label=f?[\"'](ours|paper \()", text), script.name
        assert not re.search(r"set_title\(f?[\"'](\([a-z]\) )?(ours|paper)[:,]", text), script.name


def key_cache_relative_table() -> pd.DataFrame:
    rows = []
    for distribution, gain in (("special", 10.0), ("uniform", 72.0)):
        for segments in (32, 64):
            rows.append({"distribution": distribution, "index_fraction": 1.0, "points": 10, "segments": segments,
                         "source": "ours", "1": -1.0, "4": gain})
    for machine, gain in (("pitbull", 55.0), ("perro", 6.0)):
        for segments in (32, 64):
            rows.append({"distribution": "special", "index_fraction": 1.0, "points": 10, "segments": segments,
                         "source": machine, "1": -3.0, "4": gain})
    return pd.DataFrame(rows)


def test_key_cache_relative_draws_both_draws_and_names_the_sources(style):
    from figures.key_cache_relative import plot

    fig = plot(key_cache_relative_table())
    titles = [ax.get_title() for ax in fig.axes]
    assert len(titles) == 2  # a row per draw, one P
    assert "special" in titles[0] and "uniform" in titles[1]
    labels = legend_labels(fig)
    assert f"{style.MODEL}, 64 segments" in labels
    assert any(label.startswith("original: pitbull") and "24 hardware threads" in label for label in labels)
    assert any(label.startswith("original: perro") and "4 cores" in label for label in labels)
    # The uniform panel holds the model's largest gain (the summary's headline) beside the original's.
    uniform = fig.axes[1]
    model_lines = [line for line in uniform.get_lines() if line.get_label().startswith(style.MODEL)]
    assert max(float(np.max(line.get_ydata())) for line in model_lines) == 72.0
    assert any(line.get_label().startswith("original") for line in uniform.get_lines())


def test_key_cache_heatmap_panels_per_draw_without_gridlines(style):
    from figures.key_cache_heatmap import plot

    rows = [{"distribution": d, "index_fraction": 1.0, "points": 10, "threads": t, "segments": s,
             "qps_median": 1000.0 * (1 + (gain if s else 0) / 100), "rows": 20000, "cpu_count": 2}
            for d, gain in (("special", 10.0), ("uniform", 72.0)) for t in (1, 4) for s in (0, 32)]
    fig = plot(pd.DataFrame(rows))
    fig.canvas.draw()
    panels = [ax for ax in fig.axes if ax.images]
    assert len(panels) == 2 and "special" in panels[0].get_title() and "uniform" in panels[1].get_title()
    assert "+72" in [text.get_text() for text in panels[1].texts]
    assert style.MODEL in fig._suptitle.get_text()
    for ax in panels:  # the style's gridlines would cross the cells' labels
        assert not [line for line in ax.get_xgridlines() + ax.get_ygridlines() if line.get_visible()]


def test_key_cache_mariadb_names_model_real_and_original(style):
    from figures.key_cache_mariadb import plot

    gains = pd.DataFrame([{"distribution": "special", "points": 10, "threads": t, "segments": s,
                           "mariadb_gain": 5.0 * t, "ci_low": 4.0 * t, "ci_high": 6.0 * t, "model_gain": 3.0 * t,
                           "pitbull": 50.0, "perro": 5.0, "loadavg_1m_median": 1.0}
                          for t in (1, 4) for s in (32, 64)])
    fig = plot(gains)
    labels = legend_labels(fig)
    assert f"{style.MODEL}, 32 segments" in labels
    assert f"{style.real('MariaDB')}, 32 segments (95% CI)" in labels
    assert [label for label in labels if label.startswith("original: pitbull")]
    assert "special" in fig.axes[0].get_title()


def test_key_cache_mutex_account_names_model_and_real(style):
    from figures.key_cache_mutex_account import plot

    account = pd.DataFrame([{"source": source, "distribution": "special", "points": 10, "threads": 4,
                             "segments": s, "wait_us_per_query": 1.0, "data_file_us_per_query": 2.0,
                             "server_cpu_us_per_query": 5.0}
                            for source in ("model", "mariadb") for s in (0, 32)])
    ticks = " ".join(texts(plot(account)))
    assert style.MODEL.replace(" (", "\n(") in ticks and style.real("MariaDB") in ticks
    # The model alone (smoke runs no MariaDB): no data file, so no legend entry for it, and the
    # title names only the model.
    model = account[account["source"] == "model"].assign(data_file_us_per_query=float("nan"))
    fig = plot(model)
    assert not [label for label in legend_labels(fig) if "data file" in label]
    assert fig.axes[0].get_title().endswith(style.MODEL)


def test_tpcc_legend_says_both_variants_are_our_runs(style):
    from figures.tpcc_throughput import plot

    table = pd.DataFrame({"variant": ["paper", "spec"], "warehouses": [1, 1], "repeats": [3, 3],
                          "tps_median": [1000.0, 800.0], "tps_min": [950.0, 790.0], "tps_max": [1100.0, 850.0]})
    labels = legend_labels(plot(table))
    assert len(labels) == 2 and all(label.startswith(style.MODEL) for label in labels)
    assert "Harizopoulos" in labels[0] and "specification" in labels[1]


def quantum_runs(schedulers=("os_rr",)) -> pd.DataFrame:
    rows = []
    for scheduler in schedulers:
        quanta = ("fair",) if scheduler == "os_fair" else ("4", "20")
        for workload, spcs in (("cpu", (1, 5)), ("memory", (1, 3, 6))):
            for q in quanta:
                for n in spcs:
                    mean = n * (1.0 if q != "20" else 0.9)
                    rows.append({"scheduler": scheduler, "placement": "pinned", "workload": workload,
                                 "quantum_ms": q, "sessions_per_cpu": n, "mean_seconds": mean,
                                 "min_seconds": mean * 0.9, "max_seconds": mean * 1.1, "predicted_mean_s": mean})
    return pd.DataFrame(rows)


def test_quantum_draws_what_the_table_holds_and_the_articles_numbers(style):
    from figures.quantum_mean_session_time import plot

    paper = yaml.safe_load((REPO / "workflows" / "data" / "quantum_paper.yaml").read_text())
    fig = plot(quantum_runs(), paper)  # quick: SCHED_RR pinned alone
    titles = [ax.get_title() for ax in fig.axes]
    assert len(titles) == 4  # per workload: SCHED_RR pinned, and the time a longer Q saves
    assert not [t for t in titles if "fair" in t or "engine" in t]  # no panel for what did not run
    labels = legend_labels(fig)
    assert f"{style.MODEL}, Q = 4 ms" in labels
    assert [label for label in labels if label.startswith("original: Oracle 10.2")]
    memory_gains = fig.axes[3]
    original = next(line for line in memory_gains.get_lines() if line.get_label().startswith("original"))
    assert list(original.get_xdata()) == [1, 5, 10, 15]
    assert list(original.get_ydata()) == [paper["workload2"]["gain_pct"][n] for n in (1, 5, 10, 15)]
    ours = next(line for line in memory_gains.get_lines() if line.get_label().startswith(style.MODEL))
    assert np.allclose(ours.get_ydata(), 10.0)  # 1 s -> 0.9 s per session: 10% saved
    # The fair scheduler, where run, is named as such in every panel of its workload.
    fig = plot(quantum_runs(("engine", "os_rr", "os_fair")), paper)
    assert f"{style.MODEL}, OS fair scheduler" in legend_labels(fig)
    # quick since issue 40's budget: Solaris's TS class alone, a panel per workload and its gains.
    fig = plot(quantum_runs(("os_ts",)), paper)
    titles = [ax.get_title() for ax in fig.axes]
    assert len(titles) == 4 and sum("Solaris TS" in t for t in titles) == 2, titles
    # Beside SCHED_RR (smoke and full), each in its own panel.
    fig = plot(quantum_runs(("os_ts", "os_rr")), paper)
    titles = [ax.get_title() for ax in fig.axes]
    assert sum("Solaris TS" in t for t in titles) == 2 and sum("SCHED_RR" in t for t in titles) == 2, titles


def fifo_scale(full) -> pd.DataFrame:
    return pd.DataFrame([{"cache_policy": p, "fraction": 0.1, "warehouses": w, "hit_ratio": 0.8 + w / 100,
                          "pool_full_at_start": full} for p in ("lru", "soqol") for w in (1, 10)])


def test_fifo_cache_hit_ratio_legend_has_no_unused_marker(style):
    from figures.fifo_cache_hit_ratio import plot

    paper = yaml.safe_load((REPO / "workflows" / "data" / "fifo_cache_paper.yaml").read_text())
    fig = plot(fifo_scale(True), paper)
    labels = legend_labels(fig)
    assert "not full when counting began" not in labels  # nothing drawn with it
    assert labels[:2] == [style.model_policy("lru"), style.model_policy("soqol")]
    assert [label for label in labels if label.startswith("original: SoQoL")]
    assert "not full when counting began" in legend_labels(plot(fifo_scale(False), paper))


def test_fifo_cache_trace_title_counts_the_policies_it_holds(style):
    from figures.fifo_cache_trace_hit_ratio import plot

    paper = yaml.safe_load((REPO / "workflows" / "data" / "fifo_cache_paper.yaml").read_text())
    curve = fifo_scale(True).rename(columns={"pool_full_at_start": "cache_full_at_start"}).assign(
        fraction_of="database pages")
    fig = plot(curve, paper)
    assert "of 2 policies" in fig._suptitle.get_text() and "per policy" not in fig._suptitle.get_text()
    assert legend_labels(fig)[:2] == [style.model_policy("lru"), style.model_policy("soqol")]


@pytest.mark.parametrize("name", ["smoke", "quick"])
def test_the_hit_curve_replays_every_policy(parsed, name):
    """The README and config/quick.yaml promise every policy in the trace-driven hit curve, whichever
    the profile times (quick times lru and soqol); replaying a trace costs about a second of CPU."""
    from dbrepro import registry

    assert parsed[name].hit_curve_policies == list(registry.policies())


def test_the_paper_leaves_out_what_the_profile_leaves_out(parsed, monkeypatch, tmp_path):
    """No placeholder, no caption in the paper for a figure the profile has no data for."""
    monkeypatch.syspath_prepend(str(REPO / "workflows" / "scripts"))
    import paper_build

    left = {f"{study}/{name}" for study, names in parsed["quick"].FIGURES_LEFT_OUT.items() for name in names}
    assert "key_cache/cache_size" in left
    assert "cache_size" in paper_build.study_figures(tmp_path, "key_cache")  # a placeholder without the flag
    figures = paper_build.study_figures(tmp_path, "key_cache", frozenset(left))
    assert "cache_size" not in figures and "heatmap" in figures


def test_openedge_titles_name_the_model_and_count_servers_right(style):
    from figures.openedge_user_stddev import plot

    users = pd.DataFrame([{"step": step, "name": name, "user_mean_seconds": 1.0, "user_stddev_seconds": 0.1,
                           "user_stddev_min": 0.1, "user_stddev_max": 0.1, "users": 20, "servers": 1}
                          for step, name in enumerate(("baseline", "bht"))])
    title = plot(users)._suptitle.get_text()
    assert title == f"E3, {style.MODEL}: 20 users on 1 server"  # not "1 servers"
