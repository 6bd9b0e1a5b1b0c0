"""Figures a reader can read (issue 54): every figure the smoke run drew, drawn again by its
own script (figures/, as the workflow's `figure` rule calls it) from the run's tables, and
E4's on each profile's grid of runs (quick's sessions per CPU differ by workload, full's
panels are the most).

- No text (titles, suptitle, axis and tick labels, legends, annotations) overlaps another
  or leaves the canvas; a legend lies wholly inside its panel or wholly outside it, never
  across the panel's edge or over another panel (matplotlib's renderer gives every extent).
- An axis whose ticks a figure sets (set_xticks) has data at every tick it labels.
- A caption (workflows/report/<study>/<name>.rst) names no path that a run or the
  repository lacks, no profile that config/ lacks, no scheduler that a profile it names does
  not run (config/<profile>.yaml), and every scheduler the run drew.
"""
from __future__ import annotations

import importlib
import itertools
import re
from pathlib import Path

import docs_paths
import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import yaml
from matplotlib.ticker import FixedLocator
from matplotlib.transforms import TransformedBbox
from test_figures import parse_profile
from workflow_helpers import profile

REPO = Path(__file__).resolve().parents[1]
CAPTIONS = REPO / "workflows" / "report"
PROFILES = docs_paths.PROFILES
SLACK = 1.0  # pixels (at the figure's 100 dpi): extents that only touch do not overlap
# How a caption names each of E4's schedulers (config/schema: quantum.schedulers).
SCHEDULER_WORDS = {
    "os_ts": r"Solaris's time-sharing class|Solaris TS",
    "os_ts_rt": r"RT class",
    "engine": r"fiber",
    "os_rr": r"SCHED_RR",
    "os_fair": r"fair scheduler(?! with its base slice)",
    "os_fair_q": r"base slice",
}


# ---------------------------------------------------------------------------
# What a reader cannot read, from the drawn figure


def drawn_texts(fig) -> list[tuple[str, object]]:
    """(what, Text) for every non-empty text the figure draws."""
    found, seen = [], set()

    def add(what, text):
        if text is not None and id(text) not in seen and text.get_visible() and text.get_text().strip():
            seen.add(id(text))
            found.append((f"{what} {text.get_text()!r}", text))

    def add_legend(what, legend):
        if legend is not None and legend.get_visible():
            add(f"{what} title", legend.get_title())
            for text in legend.get_texts():
                add(f"{what} entry", text)

    add("suptitle", fig._suptitle)
    for legend in fig.legends:
        add_legend("figure legend", legend)
    for number, ax in enumerate(fig.axes, 1):
        if not ax.get_visible():
            continue
        panel = f"panel {number}"
        for title in (ax._left_title, ax.title, ax._right_title):
            add(f"{panel} title", title)
        if ax.axison:
            for name, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
                add(f"{panel} {name} label", axis.label)
                add(f"{panel} {name} offset", axis.offsetText)
                for tick in axis._update_ticks():  # the ticks it draws: in view (no public listing)
                    for label in (tick.label1, tick.label2):
                        add(f"{panel} {name} tick", label)
        for text in ax.texts:
            add(f"{panel} text", text)
        add_legend(f"{panel} legend", ax.get_legend())
    for text in fig.texts:
        add("figure text", text)
    return found


def outline(text, renderer) -> np.ndarray:
    """A text's four corners on the canvas: its extent turned by its rotation (the extent
    of a rotated label is the box around it, which overlaps its neighbours' where the
    labels do not)."""
    box = text.get_window_extent(renderer)
    angle = text.get_rotation() % 180
    if angle % 90 == 0:
        return corners(box)
    rotation = text.get_rotation()
    text.set_rotation(0)
    flat = text.get_window_extent(renderer)
    text.set_rotation(rotation)
    turn = np.deg2rad(rotation)
    axes = np.array([[np.cos(turn), np.sin(turn)], [-np.sin(turn), np.cos(turn)]])
    half = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * [flat.width / 2, flat.height / 2]
    return np.array([box.x0 + box.width / 2, box.y0 + box.height / 2]) + half @ axes


def overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Two convex outlines (corners in order) share more than a sliver: on no edge's
    normal are they apart (the separating axis test)."""
    for shape in (a, b):
        for edge in np.diff(np.vstack([shape, shape[:1]]), axis=0):
            normal = np.array([-edge[1], edge[0]]) / (np.hypot(*edge) or 1.0)
            pa, pb = a @ normal, b @ normal
            if min(pa.max(), pb.max()) - max(pa.min(), pb.min()) <= SLACK:
                return False
    return True


def corners(box) -> np.ndarray:
    return np.array([[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]])


def inside(inner: np.ndarray, box) -> bool:
    return bool((inner[:, 0] >= box.x0 - SLACK).all() and (inner[:, 0] <= box.x1 + SLACK).all()
                and (inner[:, 1] >= box.y0 - SLACK).all() and (inner[:, 1] <= box.y1 + SLACK).all())


def canvas(fig, renderer):
    """What a saved file holds: the style saves the box around every artist (savefig.bbox: tight)."""
    if matplotlib.rcParams["savefig.bbox"] != "tight":
        return fig.bbox
    box = fig.get_tightbbox(renderer).padded(matplotlib.rcParams["savefig.pad_inches"])
    return TransformedBbox(box, fig.dpi_scale_trans)


def clip_box(text):
    """The box a text is cut to, if it is cut."""
    if not text.get_clip_on():
        return None
    if text.get_clip_box() is not None:
        return text.get_clip_box()
    path = text.get_clip_path()
    return path.get_fully_transformed_path().get_extents() if path is not None else None


def text_problems(fig) -> list[str]:
    """Texts that overlap each other, leave the canvas or are cut by their panel; legends
    across a panel's edge or over another panel."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [(what, text, outline(text, renderer)) for what, text in drawn_texts(fig)]
    saved = canvas(fig, renderer)
    problems = [f"{what} leaves the canvas" for what, _, shape in texts if not inside(shape, saved)]
    problems += [f"{what} is cut off at its panel's edge" for what, text, shape in texts
                 if (box := clip_box(text)) is not None and not inside(shape, box)]
    problems += [f"{a} overlaps {b}" for (a, _, one), (b, _, other) in itertools.combinations(texts, 2)
                 if overlap(one, other)]
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.axison]
    legends = [(f"panel {number}'s legend", ax, ax.get_legend()) for number, ax in enumerate(fig.axes, 1)]
    legends += [("a figure legend", None, legend) for legend in fig.legends]
    for what, owner, legend in legends:
        if legend is None or not legend.get_visible():
            continue
        extent = corners(legend.get_window_extent(renderer))
        if owner is not None and overlap(extent, corners(owner.bbox)) and not inside(extent, owner.bbox):
            problems.append(f"{what} runs past the panel's edge")
        problems += [f"{what} lies over panel {fig.axes.index(other) + 1}"
                     for other in panels if other is not owner and overlap(extent, corners(other.bbox))]
    return problems


def data_extents(ax) -> tuple[np.ndarray, list[tuple[float, float, float, float]]]:
    """The display positions of what a panel draws: points (lines, markers, error bars) and
    extents (bars, images)."""
    points = [np.empty((0, 2))]
    for line in ax.get_lines():
        if line.get_visible():
            points.append(line.get_transform().transform(np.asarray(line.get_xydata(), float)))
    for collection in ax.collections:
        offsets = np.asarray(collection.get_offsets(), float)
        if collection.get_visible() and len(collection.get_paths()) and offsets.size and offsets.any():
            points.append(collection.get_offset_transform().transform(offsets))  # a scatter's points
        elif collection.get_visible():  # error bars, filled areas: their paths
            points += [collection.get_transform().transform(path.vertices) for path in collection.get_paths()]
    renderer = ax.figure.canvas.get_renderer()
    spans = [(e.x0, e.x1, e.y0, e.y1) for e in (artist.get_window_extent(renderer)
                                                for artist in [*ax.patches, *ax.images] if artist.get_visible())]
    return np.concatenate(points), spans


def ticks_without_data(fig) -> list[str]:
    """Ticks a figure set (a fixed list) where its panel draws nothing: a reader looks for data there.
    Data a quarter of the way to the next tick still belongs to a tick (points nudged sideways)."""
    fig.canvas.draw()
    problems = []
    for number, ax in enumerate(fig.axes, 1):
        if not ax.get_visible() or not ax.axison:
            continue
        points, spans = data_extents(ax)
        for dim, axis in enumerate((ax.xaxis, ax.yaxis)):
            if not isinstance(axis.get_major_locator(), FixedLocator):
                continue
            ticks = [tick for tick in axis._update_ticks() if tick in axis.get_major_ticks()
                     and tick.label1.get_visible() and tick.label1.get_text().strip()]
            corner = (ax.get_xlim()[0], ax.get_ylim()[0])  # the other coordinate: any in view
            at = [ax.transData.transform([tick.get_loc() if d == dim else corner[d] for d in (0, 1)])[dim]
                  for tick in ticks]
            gaps = np.diff(sorted(at))
            near = max(SLACK, 0.25 * gaps.min() if len(gaps) else 0.05 * (ax.bbox.width, ax.bbox.height)[dim])
            for tick, where in zip(ticks, at):
                covered = (len(points) and (np.abs(points[:, dim] - where) <= near).any()) or any(
                    span[2 * dim] - SLACK <= where <= span[2 * dim + 1] + SLACK for span in spans)
                if not covered:
                    problems.append(f"panel {number} ({ax.get_title()!r}): {'xy'[dim]} tick "
                                    f"{tick.label1.get_text()!r} has no data")
    return problems


def unreadable(fig) -> list[str]:
    return text_problems(fig) + ticks_without_data(fig)


# ---------------------------------------------------------------------------
# Drawing a registered figure as the workflow's `figure` rule does


@pytest.fixture(scope="module")
def figures_package(monkeypatch_module):
    monkeypatch_module.syspath_prepend(str(REPO))
    return importlib.import_module("figures.style")


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


@pytest.fixture(scope="module")
def registered(tmp_path_factory):
    """registered(profile): what that profile's workflow registers (test_figures.parse_profile), parsed
    when first asked for (the smoke run's tests, which run apart from the rest, need smoke's alone)."""
    parsed = {}

    def of(name: str):
        if name not in parsed:
            parsed[name] = parse_profile(name, tmp_path_factory.mktemp(f"readable_{name}"))
        return parsed[name]

    return of


def draw(style, figure: dict, results: Path, monkeypatch):
    """The figure its script draws from the run's tables (its `main`, with `style.save` kept from writing)."""
    module = importlib.import_module("figures." + figure["script"].removesuffix(".py"))
    drawn = []
    monkeypatch.setattr(style, "save", lambda fig, paths: drawn.append(fig) or [])
    tables = [str(results / table.split("/", 1)[1]) if table.startswith("results/") else table
              for table in figure["tables"]]
    assert module.main([*figure["args"], *tables, "figure.png"]) == 0
    assert len(drawn) == 1, figure
    return drawn[0]


@pytest.mark.slow
def test_every_figure_of_the_smoke_run_is_readable(smoke_run, registered, figures_package, monkeypatch):
    assert smoke_run.returncode == 0, smoke_run.output
    drawn = {(png.parent.name, png.stem) for png in smoke_run.results.glob("figures/*/*.png")}
    figures = registered("smoke").FIGURES
    assert drawn == {(study, name) for study, names in figures.items() for name in names}
    problems = []
    for study, name in sorted(drawn):
        fig = draw(figures_package, figures[study][name], smoke_run.results, monkeypatch)
        problems += [f"{study}/{name}: {problem}" for problem in unreadable(fig)]
        plt.close(fig)
    assert not problems, "\n".join(problems)


def quantum_table(runs: dict) -> pd.DataFrame:
    """E4's runs.csv for a profile's grid of runs (QT_RUNS), with made-up times."""
    rows = []
    for name, run in runs.items():
        q = "fair" if run["scheduler"] == "os_fair" else str(run["quantum_ms"])
        mean = run["sessions_per_cpu"] * (1.3 if run["workload"] == "cpu" else 1.7) * (0.95 if q == "400" else 1.0)
        rows.append({**{key: run[key] for key in ("scheduler", "placement", "workload", "sessions_per_cpu")},
                     "quantum_ms": q, "mean_seconds": mean, "min_seconds": 0.9 * mean, "max_seconds": 1.1 * mean,
                     "predicted_mean_s": mean})
    return pd.DataFrame(rows)


@pytest.mark.parametrize("name", PROFILES)
def test_the_session_time_figure_is_readable_on_each_profiles_grid(registered, figures_package, name):
    """quick runs 5 CPU-bound sessions per CPU and 1 and 6 memory-bound: a panel's ticks are its own;
    full draws its most panels (every scheduler, pinned and unpinned), smoke every scheduler (as root)."""
    from figures.quantum_mean_session_time import plot

    paper = yaml.safe_load((REPO / "workflows" / "data" / "quantum_paper.yaml").read_text())
    fig = plot(quantum_table(registered(name).QT_RUNS), paper)
    assert not unreadable(fig), "\n".join(unreadable(fig))
    plt.close(fig)


# ---------------------------------------------------------------------------
# Captions: what they name exists, and what they say of a profile is what it runs


def captions() -> list[Path]:
    return sorted(CAPTIONS.glob("*/*.rst"))


def schedulers_named(text: str) -> set[str]:
    return {scheduler for scheduler, words in SCHEDULER_WORDS.items() if re.search(words, text)}


def profiles_named(text: str) -> set[str]:
    return {name for name in PROFILES if re.search(rf"\b{name}\b", text)}


def clauses(text: str) -> list[str]:
    """A caption's clauses: what lies between semicolons and sentence ends."""
    return [part for part in re.split(r";|\.\s", " ".join(text.split())) if part.strip()]


def profile_schedulers(name: str) -> set[str]:
    return set(yaml.safe_load(profile(REPO, name).read_text())["quantum"]["schedulers"])


def scheduler_problems(text: str) -> list[str]:
    """A clause that names profiles and schedulers says what those profiles run: each scheduler it
    names is in each profile's config, and all of them where it says "alone"."""
    problems = []
    for clause in clauses(text):
        named, profiles = schedulers_named(clause), profiles_named(clause)
        for name in sorted(profiles if named else ()):
            runs = profile_schedulers(name)
            if named - runs:
                problems.append(f"{clause.strip()!r}: {name} does not run {sorted(named - runs)} "
                                f"(config/{name}.yaml runs {sorted(runs)})")
            elif re.search(r"\balone\b", clause) and named != runs:
                problems.append(f"{clause.strip()!r}: {name} runs {sorted(runs)}, not {sorted(named)} alone")
    return problems


def path_problems(text: str, run: Path) -> list[str]:
    """Every path the caption names is in the repository or the run (tests/docs_paths.py's rules)."""
    words = [word.strip(".,;:()") for word in text.split()]
    return [why for word in words if docs_paths.is_path(word) for why in [docs_paths.check_path(word, run)] if why]


def profile_word_problems(text: str) -> list[str]:
    """"the X profile": X is a profile of config/."""
    generic = {"the", "this", "a", "each", "every", "its", "one", "that", "whole"}
    return [f"{word!r} is no profile of config/ ({', '.join(PROFILES)})"
            for word in re.findall(r"\b([\w-]+) profile\b", text) if word not in generic and word not in PROFILES]


def run_caption_problems(figures: dict, results: Path) -> list[str]:
    """The captions of a run's figures (FIGURES) against the run: each path they name is there,
    and each figure's caption names every scheduler its tables hold."""
    problems = []
    for study, names in figures.items():
        for name, figure in names.items():
            text = (CAPTIONS / study / f"{name}.rst").read_text(encoding="utf-8")
            problems += [f"{study}/{name}: {why}" for why in path_problems(text, results)]
            tables = [results / table.split("/", 1)[1] if table.startswith("results/") else Path(table)
                      for table in figure["tables"]]
            drawn = set().union(*(set(pd.read_csv(table).get("scheduler", [])) for table in tables
                                  if table.suffix == ".csv"))
            if drawn - schedulers_named(text):
                problems.append(f"{study}/{name}: the run drew {sorted(drawn - schedulers_named(text))}, "
                                "which the caption leaves out")
    return problems


@pytest.mark.parametrize("caption", captions(), ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_a_caption_names_only_profiles_and_schedulers_they_run(caption):
    text = caption.read_text(encoding="utf-8")
    problems = scheduler_problems(text) + profile_word_problems(text)
    assert not problems, "\n".join(problems)


@pytest.mark.slow
def test_a_caption_names_only_paths_there_are_and_every_scheduler_the_run_drew(smoke_run, registered):
    assert smoke_run.returncode == 0, smoke_run.output
    problems = run_caption_problems(registered("smoke").FIGURES, smoke_run.results)
    assert not problems, "\n".join(problems)


# ---------------------------------------------------------------------------
# The checks find what they look for (hand-made figures and captions)


def test_the_checks_find_overlapping_titles_a_legend_across_an_edge_and_ticks_without_data(figures_package):
    fig, ax = figures_package.figure()
    ax.plot([5, 5.1], [1, 2], label="a label far wider than the panel it describes, running past its edge")
    ax.set_xticks([1, 5, 6])
    ax.set_title("the panel's own title")
    fig.suptitle("a two-line suptitle\nover a one-panel figure's title")
    ax.legend(loc="upper left")
    problems = unreadable(fig)
    assert [p for p in problems if p.startswith("suptitle") and "overlaps panel 1 title" in p], problems
    assert "panel 1's legend runs past the panel's edge" in problems
    assert [p for p in problems if "x tick '1' has no data" in p] and [p for p in problems if "'6' has no data" in p]
    assert not [p for p in problems if "'5' has no data" in p]
    plt.close(fig)


def test_the_checks_read_turned_labels_and_nudged_points_as_a_reader_does(figures_package):
    """Labels turned 45 degrees overlap only where their letters would; points nudged beside their tick
    belong to it."""
    fig, ax = figures_package.figure(figsize=(6, 3))
    names = [f"{step}: step" for step in range(8)]
    ax.plot(np.arange(8) + 0.05, np.arange(8), marker="o")
    ax.set_xticks(np.arange(8), names, rotation=45, ha="right")
    assert not unreadable(fig), unreadable(fig)
    ax.set_xticks(np.arange(8), [name * 4 for name in names], rotation=10, ha="right")
    assert [p for p in unreadable(fig) if "x tick" in p and "overlaps" in p]
    plt.close(fig)


def test_the_caption_checks_find_a_scheduler_a_profile_does_not_run_and_a_path_no_run_has(tmp_path):
    """The words E4's caption had: quick runs os_ts alone (config/quick.yaml)."""
    said = "the engine's own fiber scheduler, where run (the quick profile runs SCHED_RR pinned alone)"
    assert scheduler_problems(said) and not scheduler_problems("The quick profile runs Solaris's TS class alone.")
    assert scheduler_problems("SCHED_RR runs in quick and full")
    assert profile_word_problems("the quick-m profile") and not profile_word_problems("the quick profile")
    (tmp_path / "tables" / "tpcc").mkdir(parents=True)
    (tmp_path / "tables" / "tpcc" / "throughput.csv").touch()
    assert not path_problems("Table: results/<run>/tables/tpcc/throughput.csv.", tmp_path)
    assert path_problems("Table: results/tables/tpcc/throughput.csv.", tmp_path)  # no run writes there
    assert path_problems("(workflows/data/quantum_papers.yaml)", tmp_path)
