"""The verdict package (dbrepro.verdicts) and the criteria
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

from dbrepro import studies

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "workflows" / "scripts"
STUDIES = studies.names(judged=True)  # dbrepro.studies
COLUMNS = ["study", "id", "role", "claim", "setting", "setting_note", "ours", "theirs", "reproduced", "effect",
           "ci_low", "ci_high", "repeats", "pairing", "cells_dropped", "criterion", "mechanism", "reason",
           "within_ci_low", "within_ci_high", "between_run_sd", "between_run_source", "looks",
                 "alpha_per_look", "interval_kind"]
SPREAD = 0.05  # 5% run-to-run spread (lognormal sigma), what timed runs show on a quiet machine


def repeats(rng, n, effect=1.0, spread=SPREAD):
    return effect * rng.lognormal(0.0, spread, n)


# -- noise and real effects -------------------------------------------------------------


@pytest.mark.parametrize("effect, band", [
    ("ratio", {"min": 1.83}),          # E1: at least half the paper's 3.66x
    ("ratio", {"max": 0.25}),          # E2: mutex waits at most a quarter
    ("pct_change", {"max": -17.5}),    # E3: at least half the article's 35% reduction
    ("pct_change", {"min": -6.0, "below": 0.0}),  # E3's small step
])
def test_zero_effect_never_yes(vd, effect, band):
    rng = np.random.default_rng(15)
    outcomes = [vd.evaluate_statistic([repeats(rng, 5), repeats(rng, 5)], vd.median_effect(effect), band, 5)
                for _ in range(25)]
    assert all(o.reproduced != "yes" for o in outcomes)
    assert all(o.repeats == 5 and o.ci_low <= o.ci_high for o in outcomes)


def test_zero_effect_rarely_passes_a_sign_criterion(vd):
    """A criterion that is only a direction ("below 0"): noise passes at most at the interval's 2.5% tail."""
    rng = np.random.default_rng(16)
    outcomes = [vd.evaluate_statistic([repeats(rng, 5), repeats(rng, 5)], vd.median_effect("pct_change"),
                                      {"below": 0.0}, 5).reproduced for _ in range(80)]
    assert outcomes.count("yes") <= 2  # <= 2.5%
    assert outcomes.count("inconclusive") >= 70


def test_real_effect_inside_the_band_is_yes(vd):
    rng = np.random.default_rng(17)
    for _ in range(10):
        faster, slower = repeats(rng, 5, effect=5.0), repeats(rng, 5)
        outcome = vd.evaluate_statistic([faster, slower], vd.median_effect("ratio"), {"min": 3.74}, 5)
        assert outcome.reproduced == "yes", outcome
        assert 3.74 <= outcome.ci_low <= outcome.value <= outcome.ci_high


def test_real_effect_outside_the_band_is_no(vd):
    rng = np.random.default_rng(18)
    for _ in range(10):
        outcome = vd.evaluate_statistic([repeats(rng, 5, effect=1.5), repeats(rng, 5)], vd.median_effect("ratio"),
                                        {"min": 3.74}, 5)
        assert outcome.reproduced == "no" and outcome.ci_high < 3.74
        assert "outside" in outcome.reason


def test_too_few_repeats_is_inconclusive_whatever_the_effect(vd):
    rng = np.random.default_rng(19)
    outcome = vd.evaluate_statistic([repeats(rng, 3, effect=10.0), repeats(rng, 3)], vd.median_effect("ratio"),
                                    {"min": 2.0}, 5)
    assert outcome.reproduced == "inconclusive" and outcome.repeats == 3 and math.isnan(outcome.ci_low)
    assert "fewer than the 5" in outcome.reason


def test_interval_is_deterministic(vd):
    rng = np.random.default_rng(20)
    a, b = repeats(rng, 6, effect=1.2), repeats(rng, 6)
    first = vd.evaluate_statistic([a, b], vd.median_effect("difference"), {"above": 0.0}, 5)
    second = vd.evaluate_statistic([a, b], vd.median_effect("difference"), {"above": 0.0}, 5)
    assert (first.ci_low, first.ci_high) == (second.ci_low, second.ci_high)


def test_counts_compare_exactly(vd):
    assert vd.evaluate_count(10.0, {"min": 10.0}).reproduced == "yes"
    assert vd.evaluate_count(9.999, {"min": 10.0}).reproduced == "no"
    assert vd.evaluate_count(0.0, {"above": 0.0}).reproduced == "no"
    assert vd.evaluate_count(0, {"min": 0, "max": 0}).reproduced == "yes"
    assert vd.evaluate_count(1, {"min": 0, "max": 0}).reproduced == "no"
    assert vd.evaluate_count(math.nan, {"min": 0}).reproduced == "inconclusive"
    assert vd.evaluate_count(5, {"min": 0}).repeats is None


def test_judge_interval(vd):
    band = {"min": 1.0, "max": 2.0}
    assert vd.judge_interval(1.2, 1.8, band) == "yes"
    assert vd.judge_interval(0.5, 0.9, band) == "no" and vd.judge_interval(2.1, 3.0, band) == "no"
    assert vd.judge_interval(0.9, 1.5, band) == "inconclusive" and vd.judge_interval(0.5, 2.5, band) == "inconclusive"
    assert vd.judge_interval(-1.0, 0.0, {"below": 0.0}) == "inconclusive"  # touches a strict bound
    assert vd.judge_interval(0.0, 1.0, {"below": 0.0}) == "no"


def test_combine_counts_follows_the_criterion(vd):
    """Several counted cells combine as the criterion says (all, or a share), never 'any no makes it no'
    without saying so; a cell not counted leaves the claim inconclusive."""
    yes, no, maybe = vd.Outcome("yes", 1), vd.Outcome("no", 3, reason="3 is outside"), vd.Outcome("inconclusive")
    every = vd.Criterion({"id": "x", "combine": {"rule": "all"}})
    half = vd.Criterion({"id": "y", "combine": {"rule": "share", "share": 0.5}})
    assert vd.combine_counts([yes, yes], every).reproduced == "yes"
    assert vd.combine_counts([yes, no], every).reproduced == "no"
    assert vd.combine_counts([yes, no], half).reproduced == "yes"
    assert vd.combine_counts([no, no, yes], half).reproduced == "no"
    assert vd.combine_counts([yes, maybe], every).reproduced == "inconclusive"
    with pytest.raises(ValueError, match="combine"):
        vd.combine_counts([yes], vd.Criterion({"id": "z"}))


# -- the repeat is the unit: paired bootstrap -----------------------------------------


def drifting_repeats(rng, n=6, effect=1.10, drift=0.5, spread=0.01):
    """Two arms run back to back in each repeat, on a machine whose speed drifts 2x between repeats:
    what the repeat shares (the drift) cancels only when the arms are paired by repeat."""
    machine = np.exp(rng.uniform(-drift, drift, n))
    on = pd.Series(effect * machine * rng.lognormal(0, spread, n), index=pd.RangeIndex(1, n + 1, name="repeat"))
    off = pd.Series(machine * rng.lognormal(0, spread, n), index=pd.RangeIndex(1, n + 1, name="repeat"))
    return on, off


def test_paired_bootstrap_cancels_drift_between_repeats(vd):
    rng = np.random.default_rng(29)
    on, off = drifting_repeats(rng)
    band, ratio = {"min": 1.05}, vd.median_effect("ratio")
    paired = vd.evaluate_statistic([on, off], ratio, band, 5)
    unpaired = vd.evaluate_statistic([on.to_numpy(), off.to_numpy()], ratio, band, 5)
    assert paired.pairing.startswith("paired by repeat (6 repeats") and unpaired.pairing.startswith("unpaired")
    assert paired.reproduced == "yes" and unpaired.reproduced == "inconclusive"
    assert (paired.ci_high - paired.ci_low) < (unpaired.ci_high - unpaired.ci_low) / 5


def test_pairing_uses_the_repeats_every_arm_has(vd):
    frame = pd.DataFrame({"repeat": [1, 2, 3, 1, 2, 3, 3], "arm": ["a", "a", "a", "b", "b", "b", "b"],
                          "tps": [10.0, 11, 12, 5, 6, 7, 9], "disturbed": [False, True, False, False, False, False,
                                                                             False]})
    a = vd.by_repeat(frame[frame["arm"] == "a"], "tps")
    b = vd.by_repeat(frame[frame["arm"] == "b"], "tps")
    assert a.attrs["dropped"] == 1 and list(a.index) == [1, 3] and b.loc[3] == 8.0  # a repeat's median
    aligned = vd.align([a, b])
    assert aligned.paired and aligned.dropped == 1 and [list(x) for x in aligned] == [[10.0, 12.0], [5.0, 8.0]]


def test_the_record_paths_repeat_wins_over_a_pass_number(vd):
    """E3's rows number their passes within one repeat (all 1); the path says which repeat."""
    frame = pd.DataFrame({"repeat": [1, 1, 1], "repeat_file": ["rep1", "rep2", "rep3"], "s": [5.0, 6.0, 7.0]})
    assert vd.by_repeat(frame, "s").to_dict() == {1: 5.0, 2: 6.0, 3: 7.0}


def test_repeat_read_from_the_record_path(vd):
    frame = pd.DataFrame({"source": ["results/raw/x/rep2/a.json", "results/raw/x/rep1/a.json"], "v": [2.0, 1.0]})
    assert vd.by_repeat(frame, "v").to_dict() == {1: 1.0, 2: 2.0}
    unknown = vd.by_repeat(pd.DataFrame({"v": [1.0, 2.0]}), "v")
    assert vd.align([unknown, unknown]).pairing.startswith("unpaired")


def test_cells_give_one_effect_and_one_interval(vd):
    """A claim at several cells: the median over cells of each cell's effect, one bootstrap."""
    rng = np.random.default_rng(31)
    cells = [drifting_repeats(rng, effect=e) for e in (1.05, 1.10, 1.30)]
    criterion = vd.Criterion({"id": "c", "effect": "ratio", "band": {"min": 1.0}, "min_repeats": 5,
                              "combine": {"rule": "median"}})
    outcome = vd.evaluate_cells(cells, criterion)
    assert outcome.reproduced == "yes" and 1.07 < outcome.value < 1.13 and outcome.ci_low < outcome.value
    with pytest.raises(ValueError, match="combine"):
        vd.evaluate_cells(cells, vd.Criterion({**criterion.spec, "combine": None}))


def test_rows_round_the_effect_and_interval_alike_and_say_far_beyond(vd):
    assert vd.tables.rounded(12.34567, 11.98765, 13.5) == (12.35, 11.99, 13.5)
    far = vd.Outcome("yes", 20.0, 15.0, 25.0, 5)
    assert "far beyond the original: 5.3x" in vd.far_beyond(far, {"min": 3.74})
    assert vd.far_beyond(vd.Outcome("yes", 5.0, 4.0, 6.0, 5), {"min": 3.74}) == ""
    assert "far beyond" in vd.far_beyond(vd.Outcome("yes", -40.0), {"max": -17.5})


def test_foreign_load_account(vd):
    frame = pd.DataFrame({"attempts": [1, 3, 2, 1], "disturbed": [False, True, False, False]})
    account = vd.load_account(vd.DEFAULT, frame)
    assert "4 timed cells, 3 rerun(s)" in account and "1 still disturbed" in account
    assert "no foreign load" in vd.load_account(vd.DEFAULT, pd.DataFrame({"x": [1]}))
    assert "measured once" not in account
    # A disturbed cell run once: the load was persistent (dbrepro.host_load.PersistentLoad).
    persistent = pd.DataFrame({"attempts": [3, 1, 1], "disturbed": [True, True, True]})
    account = vd.load_account(vd.DEFAULT, persistent)
    assert "3 still disturbed" in account and "2 of them measured once" in account


# -- the criteria files ----------------------------------------------------------------


@pytest.mark.parametrize("study", STUDIES)
def test_criteria_parse_and_are_complete(vd, study):
    criteria = vd.load_criteria(study)
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
def test_every_yaml_claim_is_evaluated_and_no_criterion_is_in_a_script(vd, study):
    """The script looks up every claim of its yaml (and judge_all refuses any other: see below)."""
    criteria = vd.load_criteria(study)
    assert _ids_used(study) & set(criteria.claims) == set(criteria.claims)
    script = (SCRIPTS / f"{study}_claims.py").read_text()
    # No band written in a script: every evaluation takes its band from the criteria.
    assert not re.search(r"\{\s*[\"'](min|max|above|below)[\"']\s*:", script)
    assert "_BAND" not in script


def test_judging_refuses_a_claim_outside_the_yaml(vd):
    criteria = vd.load_criteria("fifo_cache")
    stray = vd.Criterion({**criteria["hit_ratio"].spec, "id": "not_in_yaml"})
    with pytest.raises(ValueError, match="not_in_yaml"):
        vd.judge_all([vd.ClaimResult(stray, "1", vd.evaluate_count(1, {"min": 0}))], criteria, vd.DEFAULT)


def test_writer_columns_and_markdown(vd, tmp_path):
    criteria = vd.load_criteria("fifo_cache")
    rng = np.random.default_rng(21)
    results = [
        vd.ClaimResult(criteria["hit_ratio"], "96.0%", vd.evaluate_count(96.0, criteria["hit_ratio"].band)),
        vd.ClaimResult(criteria["nopm_speedup"], "x", vd.evaluate_medians(repeats(rng, 5, 9.0), repeats(rng, 5),
                                                                           criteria["nopm_speedup"])),
        vd.ClaimResult(criteria["hits_at_least_lru"], "n/a", vd.inconclusive("not run")),
    ]
    frame = vd.write_claims(vd.judge_all(results, criteria, vd.DEFAULT), criteria, tmp_path / "claims.csv",
                            tmp_path / "claims.md", vd.DEFAULT)
    written = pd.read_csv(tmp_path / "claims.csv")
    assert list(written.columns) == COLUMNS
    # Findings first, then checks (hit_ratio at 1 warehouse is a check: at_scale is the finding).
    assert list(written["id"]) == ["nopm_speedup", "hits_at_least_lru", "hit_ratio"]
    assert list(frame["reproduced"]) == ["yes", "inconclusive", "yes"]
    assert written.at[0, "repeats"] == 5 and written.at[0, "ci_low"] >= 4.37 and written.at[0, "effect"] > 4.37
    assert all(written["mechanism"].str.len() > 0) and all(written["criterion"].str.len() > 0)
    assert set(written["study"]) == {"fifo_cache"} and set(written["setting"]) == {"scaled"}
    findings, checks = pd.read_csv(tmp_path / "findings.csv"), pd.read_csv(tmp_path / "checks.csv")
    assert list(findings["id"]) == ["nopm_speedup", "hits_at_least_lru"] and list(checks["id"]) == ["hit_ratio"]
    markdown = (tmp_path / "claims.md").read_text()
    assert "1 of 2 judged findings reproduced (0 no, 1 inconclusive" in markdown and "not run" in markdown
    assert "checks beside, not added in: 1 yes" in markdown


def test_a_finding_is_judged_once(vd):
    criteria = vd.load_criteria("fifo_cache")
    row = vd.ClaimResult(criteria["nopm_speedup"], "x", vd.inconclusive("not run"))
    with pytest.raises(ValueError, match="more than once"):
        vd.judge_all([row, row], criteria, vd.DEFAULT)


@pytest.mark.parametrize("change, match", [
    ({"role": "claim"}, "role"), ({"setting": "smaller"}, "setting"), ({"setting": "scaled", "setting_note": ""},
                                                                        "setting_note"),
    ({"combine": {"rule": "any"}}, "combine"), ({"role": None}, "role"),
])
def test_roles_settings_and_combine_are_checked(vd, tmp_path, change, match):
    spec = yaml.safe_load((REPO / "workflows" / "claims" / "fifo_cache.yaml").read_text())
    spec["claims"][0].update(change)
    if change.get("role", "") is None:
        del spec["claims"][0]["role"]
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(spec))
    with pytest.raises(ValueError, match=match):
        vd.load_criteria(path)


@pytest.mark.parametrize("study", STUDIES)
def test_every_study_has_findings_and_says_how_cells_combine(vd, study):
    criteria = vd.load_criteria(study)
    roles = [c.role for c in criteria.claims.values()]
    assert "finding" in roles
    for claim in criteria.claims.values():
        assert claim.setting in ("original", "scaled")


def test_bad_criteria_are_refused(vd, tmp_path):
    spec = yaml.safe_load((REPO / "workflows" / "claims" / "fifo_cache.yaml").read_text())
    spec["claims"][0]["min_repeats"] = 3
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(spec))
    with pytest.raises(ValueError, match="min_repeats"):
        vd.load_criteria(path)
    spec["claims"][0]["min_repeats"] = 5
    spec["claims"][0]["band"] = {"atleast": 3}
    path.write_text(yaml.safe_dump(spec))
    with pytest.raises(ValueError, match="band"):
        vd.load_criteria(path)


def test_theirs_is_filled_from_the_paper_values(vd):
    paper = {"a": {20: 399.1, "b": [{"tps": 12700}]}}
    assert vd.resolve_theirs("{a.20} s, {a.b.0.tps:,} tps", paper) == "399.1 s, 12,700 tps"
    with pytest.raises(KeyError, match="nope"):
        vd.resolve_theirs("{a.nope}", paper)
    # Every criteria file's placeholders resolve (load_criteria fills them) and leave no brace behind.
    for study in STUDIES:
        assert all("{" not in c.theirs for c in vd.load_criteria(study).claims.values()), study


def test_a_profile_that_plans_too_few_repeats_does_not_judge(vd):
    """Issue 40: a timed claim the profile cannot judge by design (fewer repeats planned than the
    criterion needs) is `not judged`, naming the profile that judges it; repeats lost in a profile
    that planned enough stay `inconclusive`."""
    rng = np.random.default_rng(23)
    arms = [repeats(rng, 2, effect=10.0), repeats(rng, 2)]
    smoke = vd.Context.from_params(type("Params", (), {"judging": {"profile": "smoke", "planned_repeats": 2,
                                                                  "judged_by": "quick or full"}})())
    outcome = vd.evaluate_statistic(arms, vd.median_effect("ratio"), {"min": 2.0}, 5, smoke)
    assert outcome.reproduced == "not judged"
    assert "smoke" in outcome.reason and "judged by the quick or full profile" in outcome.reason
    quick = vd.Context(profile="quick", planned_repeats=5, judged_by="quick or full")
    assert vd.evaluate_statistic(arms, vd.median_effect("ratio"), {"min": 2.0}, 5, quick).reproduced == "inconclusive"
    # No module-level state: a context built elsewhere changes nothing here.
    assert vd.evaluate_statistic(arms, vd.median_effect("ratio"), {"min": 2.0}, 5).reproduced == "inconclusive"


def test_the_headline_counts_judged_findings_apart(vd, tmp_path):
    criteria = vd.load_criteria("fifo_cache")
    results = [
        vd.ClaimResult(criteria["nopm_speedup"], "x", vd.not_judged("one repeat planned", "quick")),
        vd.ClaimResult(criteria["hits_at_least_lru"], "n/a", vd.inconclusive("not run")),
        vd.ClaimResult(criteria["hit_ratio"], "96.0%", vd.evaluate_count(96.0, criteria["hit_ratio"].band)),
    ]
    frame = vd.write_claims(vd.judge_all(results, criteria, vd.DEFAULT), criteria, tmp_path / "claims.csv",
                            tmp_path / "claims.md", vd.DEFAULT)
    assert list(frame["reproduced"]) == ["not judged", "inconclusive", "yes"]
    line = vd.headline(results)
    assert line.startswith("0 of 1 judged findings reproduced (0 no, 1 inconclusive")
    assert "1 of 2 not judged by this profile" in line
    assert len(vd.judged(frame)) == 2


def test_the_profile_named_for_points_runs_several(vd):
    """E2's P finding names the profile that judges it: that profile must run more than one P."""
    import yaml

    import key_cache_claims

    profile = yaml.safe_load((REPO / "config" / f"{key_cache_claims.POINTS_JUDGED_BY}.yaml").read_text())
    assert len(profile["key_cache"]["points"]) > 1


def test_an_interval_is_widened_by_the_spread_between_runs(vd):
    """Issue 40: the printed interval covers a rerun. With a between-run estimate for the claim's
    current criterion, each side grows to sqrt(h^2 + (1.96 tau)^2) and the verdict may only weaken;
    without one (or for a changed criterion) the interval stays and the row says so."""
    criteria = vd.load_criteria("fifo_cache")
    c = criteria["nopm_speedup"]
    outcome = vd.Outcome("yes", 5.0, 4.6, 5.4, repeats=5, pairing="paired by repeat (5 repeats in every arm)")
    digest = vd.criterion_digest(c.text_of_criterion())
    criteria.between_runs = {"nopm_speedup": {"tau": 0.5, "runs": 6, "criterion_sha": digest, "source": "x.csv"}}
    [wide] = vd.widen_for_reruns([vd.ClaimResult(c, "x", outcome)], criteria)
    half = math.sqrt(0.4 ** 2 + (vd.z_of(0.95) * 0.5) ** 2)  # 1.96: the 95% quantile
    assert math.isclose(wide.outcome.ci_low, 5.0 - half) and math.isclose(wide.outcome.ci_high, 5.0 + half)
    assert wide.outcome.within_low == 4.6 and wide.outcome.between_sd == 0.5
    assert wide.outcome.reproduced == vd.judge_interval(5.0 - half, 5.0 + half, c.band) or \
        wide.outcome.reproduced == "inconclusive"
    assert "widened for reruns" in wide.outcome.pairing and "6 runs" in wide.outcome.pairing
    # A large spread turns a yes into inconclusive, never the other way.
    criteria.between_runs["nopm_speedup"]["tau"] = 5.0
    [wider] = vd.widen_for_reruns([vd.ClaimResult(c, "x", outcome)], criteria)
    assert wider.outcome.reproduced == "inconclusive" and "within the run alone: yes" in wider.outcome.reason
    assert "precision reached" in wider.explanation()
    # An estimate made for another criterion text is not used.
    criteria.between_runs["nopm_speedup"]["criterion_sha"] = "0" * 12
    [kept] = vd.widen_for_reruns([vd.ClaimResult(c, "x", outcome)], criteria)
    assert (kept.outcome.ci_low, kept.outcome.reproduced) == (4.6, "yes")
    assert "no between-run estimate" in kept.outcome.pairing


def test_the_committed_between_run_estimates_match_current_criteria(vd):
    """Every estimate in workflows/claims/between_runs.yaml names a claim that exists and its study's
    current method, each kind's tau >= 0 from at least two runs, and a default that is the largest
    of them (issue 52: never a spread pooled across kinds)."""
    for study in STUDIES:
        criteria = vd.load_criteria(study)
        for row_id, estimate in criteria.between_runs.items():
            assert row_id.split("@")[0] in criteria.claims, (study, row_id)
            assert estimate["method"] == criteria.method and "tau" not in estimate, (study, row_id)
            kinds = estimate["kinds"]
            assert kinds and all(k["tau"] >= 0 and k["runs"] >= 2 for k in kinds.values()), (study, row_id)
            assert estimate["default"]["tau"] == max(k["tau"] for k in kinds.values())
            assert estimate["default"]["kind"] in kinds
            effect = criteria.claims[row_id.split("@")[0]].get("effect")
            assert estimate.get("scale", "linear") in ("linear", vd.effect_scale(effect)), (study, row_id)


def test_a_ratio_is_widened_on_the_log_scale_and_stays_positive(vd):
    """E1's step 10 / step 0 read [-3.27, 36.61] when widened on the ratio itself; on its log the
    interval is a factor either side and stays above zero."""
    criteria = vd.load_criteria("looking_glass")
    c = criteria["speedup_stripped_vs_flushing"]
    outcome = vd.Outcome("yes", 16.58, 14.79, 19.79, repeats=6, pairing="paired within duets")
    digest = vd.criterion_digest(c.text_of_criterion())
    criteria.between_runs = {c.id: {"tau": 0.35, "runs": 8, "criterion_sha": digest, "scale": "log"}}
    [wide] = vd.widen_for_reruns([vd.ClaimResult(c, "x", outcome)], criteria)
    z = vd.z_of(vd.DEFAULT.confidence)
    h_low = math.sqrt(math.log(16.58 / 14.79) ** 2 + (z * 0.35) ** 2)
    assert math.isclose(wide.outcome.ci_low, 16.58 * math.exp(-h_low)) and wide.outcome.ci_low > 0
    assert wide.outcome.ci_high > 16.58 * math.exp(z * 0.35)
    assert "on the log of the ratio" in wide.outcome.pairing
    # A percentage change: the log of 1 + change/100, so the interval stays above -100%.
    assert vd.from_scale(vd.to_scale(-96.5, "log_pct"), "log_pct") == pytest.approx(-96.5)
    assert math.isnan(vd.to_scale(-100.0, "log_pct")) and math.isnan(vd.to_scale(0.0, "log"))

def test_setting_notes_are_filled_from_the_runs_own_config(vd):
    """A setting note names what this run ran, from its config, not a profile's words (issue 41, item 7)."""
    config = {"key_cache": {"rows": 2_000_000, "threads": [1, 4]},
              "quantum": {"memory_sessions_per_cpu": None, "sessions_per_cpu": [1, 2]}}
    note = "{key_cache.rows:,} rows at {key_cache.threads} threads, {quantum.memory_sessions_per_cpu|quantum.sessions_per_cpu}"
    assert vd.resolve_setting_note(note, config) == "2,000,000 rows at 1, 4 threads, 1, 2"
    config["quantum"]["memory_sessions_per_cpu"] = [1, 3, 6]
    assert vd.resolve_setting_note(note, config).endswith(", 1, 3, 6")
    del config["quantum"]["memory_sessions_per_cpu"]  # a profile that leaves it out: the next one stands in
    assert vd.resolve_setting_note(note, config).endswith(", 1, 2")
    with pytest.raises(KeyError, match="key_cache.seed"):
        vd.resolve_setting_note("{key_cache.seed}", config)
    # A script run by hand, without the workflow's config: each placeholder names its setting.
    assert vd.resolve_setting_note("{key_cache.rows:,} rows", None) == "the profile's key_cache.rows rows"


@pytest.mark.parametrize("profile", ["smoke", "quick", "full"])
def test_every_setting_note_resolves_from_each_profile_and_names_none(vd, profile):
    """Each criteria file's setting notes take every number from the run's config (the profile's here):
    none is left unfilled and none names a profile (issue 41, item 7)."""
    config = yaml.safe_load((REPO / "config" / f"{profile}.yaml").read_text())
    for study in STUDIES:
        notes = [c.get("setting_note") for c in vd.load_criteria(study, config).claims.values()
                 if c.get("setting_note")]
        for note in notes:
            assert "{" not in note and not re.search(r"\b(smoke|quick|full)\b", note), (study, note)
    assert any(f"{config['key_cache']['rows']:,} rows" in c.get("setting_note", "")
               for c in vd.load_criteria("key_cache", config).claims.values())
