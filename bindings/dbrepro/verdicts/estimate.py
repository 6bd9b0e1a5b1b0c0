"""How far a timed finding's effect moves between runs, beyond what its own interval allows.

Kalibera and Jones ("Rigorous Benchmarking in Reasonable Time", ISMM 2013) ask
where the variance of a measurement lives (iteration, process, run) before
choosing where to repeat. Inside one run, a timed finding's 95% interval comes
from its repeats; a reader who reruns meets a further level, the run itself
(another VM, other neighbours, another hour). This script measures that level
from runs already made: every committed run under reference/runs/ (or folders
given) that judged a timed finding by the same criterion is one sample of it.

For each (study, finding, criterion) judged by at least --min-runs runs:

- scale: what the spread is measured on. A ratio moves by a factor between
  runs (a slower disk scales the arm it slows), so its log; a percentage
  change, the log of 1 + change/100; anything else as it is
  (criteria.EFFECT_SCALES; the judge widens on the same scale);
- within_se: each run's standard error from its own interval on that scale,
  (ci_high - ci_low) / (2 z), shown averaged as a variance over the runs; its
  own interval is the unwidened one (within_ci_low/high) where the run
  already widened the printed one for reruns, and z is 1.96, or the quantile
  of its look's coverage (alpha_per_look) where it took sequential looks;
- between_sd: the spread of the runs' effects (sample standard deviation);
- tau: the between-run component beyond the within-run one, Paule and
  Mandel's estimator: the tau^2 at which the runs, each weighted by
  w = 1 / (se^2 + tau^2), spread as much as their weights expect,
  sum w (y - weighted mean)^2 = k - 1 (0 where they spread less even at
  tau 0). The runs of one criterion span methods of the same claim
  (sequential arms, then duets) whose intervals differ tenfold in width.
  With equal weights (the method of moments, this script until issue 40's
  second fresh pair) the wide early runs hid two tight runs apart: E1's
  step 11 / step 10 read tau 0 with quick-n and quick-o apart. With
  DerSimonian and Laird's fixed weights 1 / se^2, tried next, the tight
  runs decided the mean and two runs far from it counted for little: E4's
  spread_over_q_constant read tau 1.4 with 20 of 66 pairs apart, the two
  os_ts runs at 21 and 46 beside ten at 1.3-3.8. Paule-Mandel's weights
  take tau into account (Veroniki et al., "Methods to estimate the
  between-study variance and its uncertainty in meta-analysis", Research
  Synthesis Methods 2016, recommend it over DerSimonian-Laird): 10.7 there;
- pairs_apart: how many pairs of runs have 95% intervals that do not overlap
  (what `dbrepro compare` calls intervals apart).

Runs beside a deliberate hog (names with `hog`) and trials are left out: they
are not "another machine of this kind, nothing else running". A criterion
that changed between runs (its text differs) starts a new group, so that a
method's runs are not mixed with an earlier method's; a method that changed
without its criterion text (how the arms are run) is not told apart, and the
row says which runs it pooled.

    dbrepro verdicts estimate-reruns [RUN ...] [--out reference/between_runs.csv] [--min-runs 2]
        [--criteria-out workflows/claims/between_runs.yaml]

`--criteria-out` writes the estimate the evaluator adds to each timed claim's
interval (judge.widen_for_reruns): tau for every claim whose current
criterion (workflows/claims/<study>.yaml) is the one those runs were judged by.
Like every criterion, that file changes only in a commit of its own.
"""
from __future__ import annotations

import functools
import itertools
import json
import math
import re
import subprocess
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd
import yaml

from .criteria import REPO, criterion_digest, effect_scale, load_criteria, load_methods
from .stats import to_scale

Z = 1.959964  # the two-sided 95% normal quantile, as the intervals are 95%
LEFT_OUT = ("hog", "trial")
COLUMNS = ("study", "id", "role", "kind", "method", "runs", "run_names", "scale", "mean_effect", "between_sd",
           "within_se", "tau", "tau_over_within", "pairs", "pairs_apart", "criterion")


def run_folders(paths: list[str]) -> list[Path]:
    if paths:
        return [Path(p) for p in paths]
    return sorted(p for p in (REPO / "reference" / "runs").iterdir()
                  if p.is_dir() and not any(word in p.name for word in LEFT_OUT))


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, timeout=60)


@functools.lru_cache(maxsize=None)
def run_commit(folder: Path) -> str:
    """The commit a committed run was made at (its summary's), else the commit that added it to the
    repository (an upper bound); "" where git knows neither."""
    summary = folder / "summary.md"
    if summary.is_file():
        found = re.search(r"^- commit: `([0-9a-f]{7,40})`", summary.read_text(encoding="utf-8"), re.M)
        if found:
            return found.group(1)
    added = _git("log", "--diff-filter=A", "--format=%H", "--", str(folder.resolve().relative_to(REPO))
                 if folder.resolve().is_relative_to(REPO) else str(folder))
    return added.stdout.split()[-1] if added.returncode == 0 and added.stdout.split() else ""


@functools.lru_cache(maxsize=None)
def _is_ancestor(older: str, newer: str) -> bool:
    return _git("merge-base", "--is-ancestor", older, newer).returncode == 0


def method_of_run(folder: Path, study: str, methods: dict) -> str:
    """A committed run's method for `study` (workflows/claims/methods.yaml): what its machine.json
    records, else the last method whose `since` commit is an ancestor of the run's commit."""
    machine = folder / "machine.json"
    if machine.is_file():
        recorded = (json.loads(machine.read_text(encoding="utf-8")).get("methods") or {}).get(study)
        if recorded:
            return recorded
    listed = methods.get(study) or ()
    commit = run_commit(folder)
    for method in reversed(listed):
        if commit and _is_ancestor(method.since, commit):
            return method.id
    return listed[0].id if listed else ""


def timed_rows(folder: Path) -> pd.DataFrame:
    """Every timed row (findings and checks) of one run: those with an interval and repeats, with
    the run's kind of machine and each study's method."""
    from ..machine import kind_of_run

    methods = load_methods()
    kind = kind_of_run(folder)
    frames = []
    for path in sorted(folder.glob("tables/*/findings.csv")) + sorted(folder.glob("tables/*/checks.csv")):
        frame = pd.read_csv(path, keep_default_na=False)
        if not {"study", "id", "effect", "ci_low", "ci_high", "repeats", "criterion"} <= set(frame.columns):
            continue
        for column in ("effect", "ci_low", "ci_high", "repeats", "within_ci_low", "within_ci_high", "alpha_per_look"):
            if column in frame.columns:
                frame[column] = pd.to_numeric(frame[column], errors="coerce")
        # The run's own (within-run) interval: a run that already widened its printed interval
        # for reruns keeps the unwidened one in within_ci_*; the printed one otherwise.
        low = frame["within_ci_low"] if "within_ci_low" in frame.columns else pd.Series(math.nan, index=frame.index)
        high = frame["within_ci_high"] if "within_ci_high" in frame.columns else pd.Series(math.nan, index=frame.index)
        frame["own_low"] = low.where(low.notna(), frame["ci_low"])
        frame["own_high"] = high.where(high.notna(), frame["ci_high"])
        # Its coverage: 95%, or 100 (1 - alpha_per_look)% where the run took sequential looks.
        alpha = frame["alpha_per_look"] if "alpha_per_look" in frame.columns else pd.Series(math.nan, index=frame.index)
        frame["own_z"] = [Z if not (a > 0) else NormalDist().inv_cdf(1 - a / 2) for a in alpha]
        timed = frame[frame["repeats"].notna() & frame["ci_low"].notna() & frame["ci_high"].notna()]
        frames.append(timed.assign(run=folder.name, role=timed.get("role", "finding"), kind=kind,
                                   method=[method_of_run(folder, study, methods) for study in timed["study"]]))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


_EFFECT = re.compile(r"CI of the (\S+) inside")


def scale_of(criterion: str, group: pd.DataFrame) -> str:
    """The criterion's effect's scale (criteria.effect_scale), linear where a run's effect or
    interval lies outside the log's domain."""
    match = _EFFECT.search(criterion)
    scale = effect_scale(match.group(1) if match else None)
    values = pd.concat([group["effect"], group["own_low"], group["own_high"]])
    if scale != "linear" and not all(math.isfinite(to_scale(float(v), scale)) for v in values):
        return "linear"
    return scale


def paule_mandel(effects, se) -> float:
    """tau: the between-run standard deviation beyond each run's own se (Paule and Mandel), found
    by bisection on tau^2, where the weighted spread falls as tau^2 grows."""
    effects, se = np.asarray(effects, dtype=float), np.maximum(np.asarray(se, dtype=float), 1e-12)

    def excess(tau2: float) -> float:
        w = 1.0 / (se ** 2 + tau2)
        mean = float((w * effects).sum() / w.sum())
        return float((w * (effects - mean) ** 2).sum()) - (len(effects) - 1)

    if len(effects) < 2 or excess(0.0) <= 0:
        return 0.0
    low, high = 0.0, float(np.var(effects, ddof=1)) * 10 + float((se ** 2).max())
    while excess(high) > 0:  # not reached in practice: the bound is far above the spread
        high *= 2
    for _ in range(100):
        middle = (low + high) / 2
        low, high = (middle, high) if excess(middle) > 0 else (low, middle)
    return math.sqrt((low + high) / 2)


def levels(rows: pd.DataFrame, min_runs: int = 2) -> pd.DataFrame:
    """Per claim, criterion, kind of machine and method with at least `min_runs` runs: the spread."""
    out = []
    for (study, claim, criterion, kind, method), group in rows.groupby(["study", "id", "criterion", "kind", "method"],
                                                                      sort=True):
        group = group.drop_duplicates("run")
        if len(group) < min_runs:
            continue
        scale = scale_of(criterion, group)
        on = lambda column: group[column].map(lambda v: to_scale(float(v), scale)).to_numpy(dtype=float)
        effects = on("effect")
        se = (on("own_high") - on("own_low")) / (2 * group["own_z"].to_numpy(dtype=float))
        between = float(pd.Series(effects).std(ddof=1))
        within = math.sqrt(float((se ** 2).mean()))
        tau = paule_mandel(effects, se)
        intervals = list(zip(group["ci_low"], group["ci_high"]))
        pairs = list(itertools.combinations(intervals, 2))
        apart = sum(1 for (a_low, a_high), (b_low, b_high) in pairs if max(a_low, b_low) > min(a_high, b_high))
        out.append({"study": study, "id": claim, "role": group["role"].iloc[0], "kind": kind, "method": method,
                    "runs": len(group),
                    "run_names": " ".join(group["run"]), "scale": scale,
                    "mean_effect": round(float(group["effect"].astype(float).mean()), 4),
                    "between_sd": round(between, 4), "within_se": round(within, 4), "tau": round(tau, 4),
                    "tau_over_within": round(tau / within, 3) if within > 0 else math.nan,
                    "pairs": len(pairs), "pairs_apart": apart, "criterion": criterion})
    return pd.DataFrame(out, columns=COLUMNS)


def criteria_estimates(table: pd.DataFrame, source: str) -> dict:
    """{study: {id: {criterion_sha, scale, method, kinds, default, source}}} for the claims whose
    current criterion text is the one the runs were judged by (a changed criterion has no estimate
    until runs judge it): each kind's spread over its runs of the study's current method, and the
    default a kind without two such runs takes, the largest of those same-kind spreads."""
    from ..machine import unrecorded_kind

    out: dict = {}
    for study, rows in table.groupby("study", sort=True):
        criteria = load_criteria(study)
        for row_id, group in rows.groupby("id", sort=True):
            claim = row_id.split("@")[0]
            # Runs whose machine is not known at all (partial runs committed without a summary) speak
            # for no kind.
            now = group[(group["method"] == criteria.method) & (group["kind"] != unrecorded_kind(""))]
            if claim not in criteria.claims:
                continue
            now = now[now["criterion"] == criteria[claim].text_of_criterion()]
            if now.empty:
                continue
            kinds = {row.kind: {"tau": float(row.tau), "runs": int(row.runs), "within_se": float(row.within_se),
                                "run_names": row.run_names} for row in now.itertuples()}
            widest = max(kinds.items(), key=lambda item: item[1]["tau"])
            out.setdefault(study, {})[row_id] = {
                "criterion_sha": criterion_digest(now["criterion"].iloc[0]), "scale": now["scale"].iloc[0],
                "method": criteria.method, "kinds": kinds, "source": source,
                "default": {"tau": widest[1]["tau"], "kind": widest[0], "runs": widest[1]["runs"]}}
    return out


HEADER = ("# Between-run spread of timed claims, beyond their own intervals (tau), estimated by\n"
          "# `dbrepro verdicts estimate-reruns` from committed runs judged by the same criterion, per\n"
          "# kind of machine (dbrepro.machine) over the runs of the study's current method\n"
          "# (methods.yaml). The judge widens each such claim's interval by its own kind's spread\n"
          "# (dbrepro.verdicts.judge.spread_for), so that the interval a run prints covers what a rerun\n"
          "# on another machine of this kind measures; a kind with fewer than two runs takes `default`,\n"
          "# the largest same-kind spread. A criterion: it changes only in a commit of its own.\n")


def estimate(folders: list[Path], min_runs: int = 2) -> pd.DataFrame:
    """The between-run table of these run folders, per claim, kind and method (ValueError where they
    hold no timed row)."""
    rows = pd.concat([timed_rows(f) for f in folders], ignore_index=True) if folders else pd.DataFrame()
    if rows.empty:
        raise ValueError("no timed rows in these runs")
    return levels(rows, min_runs)


def criteria_text(table: pd.DataFrame, source: str) -> str:
    """workflows/claims/between_runs.yaml as the judge reads it."""
    body = yaml.safe_dump({"study": "between_runs", "estimates": criteria_estimates(table, source)},
                          sort_keys=True, width=100)
    return HEADER + body


def summary_line(table: pd.DataFrame, min_runs: int) -> str:
    return (f"between_runs: {len(table)} timed claims judged by >= {min_runs} runs of one criterion; "
            f"{int((table['tau'] > 0).sum())} vary between runs beyond their own intervals; "
            f"{int(table['pairs_apart'].sum())} of {int(table['pairs'].sum())} pairs of runs have intervals apart")
