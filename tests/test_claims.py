"""The claims evaluator (workflows/scripts/claims_common.py) and the criteria
files (workflows/claims/<study>.yaml): noise never passes for an effect, a real
effect inside the band passes, one outside fails, counts compare exactly, and
every claim a study's script emits is written in its yaml."""
from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "workflows" / "scripts"
STUDIES = ["looking_glass", "key_cache", "openedge", "quantum", "fifo_cache"]
COLUMNS = ["claim", "ours", "theirs", "reproduced", "ci_low", "ci_high", "repeats", "mechanism", "criterion"]
SPREAD = 0.05  # 5% run-to-run spread (lognormal sigma), what timed runs show on a quiet machine


@pytest.fixture(scope="module")
def cc():
    import sys

    sys.path.insert(0, str(SCRIPTS))
    try:
        import claims_common
    finally:
        sys.path.remove(str(SCRIPTS))
    return claims_common


def repeats(rng, n, effect=1.0, spread=SPREAD):
    return effect * rng.lognormal(0.0, spread, n)


# -- noise and real effects -------------------------------------------------------------


@pytest.mark.parametrize("effect, band", [
    ("ratio", {"min": 1.83}),          # E1: at least half the paper's 3.66x
    ("ratio", {"max": 0.25}),          # E2: mutex waits at most a quarter
    ("pct_change", {"max": -17.5}),    # E3: at least half the article's 35% reduction
    ("pct_change", {"min": -6.0, "below": 0.0}),  # E3's small step
])
def test_zero_effect_never_yes(cc, effect, band):
    rng = np.random.default_rng(15)
    outcomes = [cc.evaluate_statistic([repeats(rng, 5), repeats(rng, 5)], cc.median_effect(effect), band, 5)
                for _ in range(25)]
    assert all(o.reproduced != "yes" for o in outcomes)
    assert all(o.repeats == 5 and o.ci_low <= o.ci_high for o in outcomes)


def test_zero_effect_rarely_passes_a_sign_criterion(cc):
    """A criterion that is only a direction ("below 0"): noise passes at most at the interval's 2.5% tail."""
    rng = np.random.default_rng(16)
    outcomes = [cc.evaluate_statistic([repeats(rng, 5), repeats(rng, 5)], cc.median_effect("pct_change"),
                                      {"below": 0.0}, 5).reproduced for _ in range(80)]
    assert outcomes.count("yes") <= 2  # <= 2.5%
    assert outcomes.count("inconclusive") >= 70


def test_real_effect_inside_the_band_is_yes(cc):
    rng = np.random.default_rng(17)
    for _ in range(10):
        faster, slower = repeats(rng, 5, effect=5.0), repeats(rng, 5)
        outcome = cc.evaluate_statistic([faster, slower], cc.median_effect("ratio"), {"min": 3.74}, 5)
        assert outcome.reproduced == "yes", outcome
        assert 3.74 <= outcome.ci_low <= outcome.value <= outcome.ci_high


def test_real_effect_outside_the_band_is_no(cc):
    rng = np.random.default_rng(18)
    for _ in range(10):
        outcome = cc.evaluate_statistic([repeats(rng, 5, effect=1.5), repeats(rng, 5)], cc.median_effect("ratio"),
                                        {"min": 3.74}, 5)
        assert outcome.reproduced == "no" and outcome.ci_high < 3.74
        assert "outside" in outcome.reason


def test_too_few_repeats_is_inconclusive_whatever_the_effect(cc):
    rng = np.random.default_rng(19)
    outcome = cc.evaluate_statistic([repeats(rng, 3, effect=10.0), repeats(rng, 3)], cc.median_effect("ratio"),
                                    {"min": 2.0}, 5)
    assert outcome.reproduced == "inconclusive" and outcome.repeats == 3 and math.isnan(outcome.ci_low)
    assert "fewer than the 5" in outcome.reason


def test_interval_is_deterministic(cc):
    rng = np.random.default_rng(20)
    a, b = repeats(rng, 6, effect=1.2), repeats(rng, 6)
    first = cc.evaluate_statistic([a, b], cc.median_effect("difference"), {"above": 0.0}, 5)
    second = cc.evaluate_statistic([a, b], cc.median_effect("difference"), {"above": 0.0}, 5)
    assert (first.ci_low, first.ci_high) == (second.ci_low, second.ci_high)


def test_counts_compare_exactly(cc):
    assert cc.evaluate_count(10.0, {"min": 10.0}).reproduced == "yes"
    assert cc.evaluate_count(9.999, {"min": 10.0}).reproduced == "no"
    assert cc.evaluate_count(0.0, {"above": 0.0}).reproduced == "no"
    assert cc.evaluate_count(0, {"min": 0, "max": 0}).reproduced == "yes"
    assert cc.evaluate_count(1, {"min": 0, "max": 0}).reproduced == "no"
    assert cc.evaluate_count(math.nan, {"min": 0}).reproduced == "inconclusive"
    assert cc.evaluate_count(5, {"min": 0}).repeats is None


def test_judge_interval(cc):
    band = {"min": 1.0, "max": 2.0}
    assert cc.judge_interval(1.2, 1.8, band) == "yes"
    assert cc.judge_interval(0.5, 0.9, band) == "no" and cc.judge_interval(2.1, 3.0, band) == "no"
    assert cc.judge_interval(0.9, 1.5, band) == "inconclusive" and cc.judge_interval(0.5, 2.5, band) == "inconclusive"
    assert cc.judge_interval(-1.0, 0.0, {"below": 0.0}) == "inconclusive"  # touches a strict bound
    assert cc.judge_interval(0.0, 1.0, {"below": 0.0}) == "no"


def test_combine(cc):
    yes, no, maybe = cc.Outcome("yes", 1, 0.5, 2, 5), cc.Outcome("no", 1, 3, 4, 6), cc.Outcome("inconclusive", repeats=2)
    assert cc.combine([yes, yes]).reproduced == "yes"
    assert cc.combine([yes, maybe]).reproduced == "inconclusive"
    both = cc.combine([yes, no, maybe])
    assert both.reproduced == "no" and (both.ci_low, both.ci_high, both.repeats) == (0.5, 4, 2)


# -- the criteria files ----------------------------------------------------------------


@pytest.mark.parametrize("study", STUDIES)
def test_criteria_parse_and_are_complete(cc, study):
    criteria = cc.load_criteria(study)
    assert criteria.study == study and criteria.claims
    assert (REPO / criteria.paper_values).is_file()
    for claim in criteria.claims.values():
        assert claim.kind in ("count", "timed")
        if claim.timed:
            assert int(claim.min_repeats) >= 5 and claim.effect
        assert claim.text_of_criterion()


def _ids_used(study: str) -> set[str]:
    """The claim ids the study's script looks up in its criteria (string subscripts and literals)."""
    tree = ast.parse((SCRIPTS / f"{study}_claims.py").read_text())
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            ids.add(node.slice.value)
    return ids


@pytest.mark.parametrize("study", STUDIES)
def test_every_yaml_claim_is_evaluated_and_no_criterion_is_in_a_script(cc, study):
    """The script looks up every claim of its yaml (and write_claims refuses any other: see below)."""
    criteria = cc.load_criteria(study)
    assert _ids_used(study) & set(criteria.claims) == set(criteria.claims)
    script = (SCRIPTS / f"{study}_claims.py").read_text()
    # No band written in a script: every evaluation takes its band from the criteria.
    assert not re.search(r"\{\s*[\"'](min|max|above|below)[\"']\s*:", script)
    assert "_BAND" not in script


def test_writer_refuses_a_claim_outside_the_yaml(cc, tmp_path):
    criteria = cc.load_criteria("fifo_cache")
    stray = cc.Criterion({**criteria["hit_ratio"].spec, "id": "not_in_yaml"})
    with pytest.raises(ValueError, match="not_in_yaml"):
        cc.write_claims([cc.ClaimResult(stray, "1", cc.evaluate_count(1, {"min": 0}))], criteria,
                        tmp_path / "c.csv", tmp_path / "c.md")


def test_writer_columns_and_markdown(cc, tmp_path):
    criteria = cc.load_criteria("fifo_cache")
    rng = np.random.default_rng(21)
    results = [
        cc.ClaimResult(criteria["hit_ratio"], "96.0%", cc.evaluate_count(96.0, criteria["hit_ratio"].band)),
        cc.ClaimResult(criteria["nopm_speedup"], "x", cc.evaluate_medians(repeats(rng, 5, 9.0), repeats(rng, 5),
                                                                           criteria["nopm_speedup"])),
        cc.ClaimResult(criteria["hits_at_least_lru"], "n/a", cc.inconclusive("not run")),
    ]
    frame = cc.write_claims(results, criteria, tmp_path / "claims.csv", tmp_path / "claims.md")
    written = pd.read_csv(tmp_path / "claims.csv")
    assert list(written.columns) == COLUMNS and list(frame["reproduced"]) == ["yes", "yes", "inconclusive"]
    assert written.at[1, "repeats"] == 5 and written.at[1, "ci_low"] >= 4.37
    assert all(written["mechanism"].str.len() > 0) and all(written["criterion"].str.len() > 0)
    markdown = (tmp_path / "claims.md").read_text()
    assert "2 yes, 0 no, 1 inconclusive of 3 claims" in markdown and "not run" in markdown


def test_bad_criteria_are_refused(cc, tmp_path):
    spec = yaml.safe_load((REPO / "workflows" / "claims" / "fifo_cache.yaml").read_text())
    spec["claims"][0]["min_repeats"] = 3
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(spec))
    with pytest.raises(ValueError, match="min_repeats"):
        cc.load_criteria(path)
    spec["claims"][0]["min_repeats"] = 5
    spec["claims"][0]["band"] = {"atleast": 3}
    path.write_text(yaml.safe_dump(spec))
    with pytest.raises(ValueError, match="band"):
        cc.load_criteria(path)


def test_theirs_is_filled_from_the_paper_values(cc):
    paper = {"a": {20: 399.1, "b": [{"tps": 12700}]}}
    assert cc.resolve_theirs("{a.20} s, {a.b.0.tps:,} tps", paper) == "399.1 s, 12,700 tps"
    with pytest.raises(KeyError, match="nope"):
        cc.resolve_theirs("{a.nope}", paper)
    # Every criteria file's placeholders resolve (load_criteria fills them) and leave no brace behind.
    for study in STUDIES:
        assert all("{" not in c.theirs for c in cc.load_criteria(study).claims.values()), study
