"""Repeats where a verdict is still open (issue 40, item 6): the stopping rule's levels, a
decided finding staying decided, the budget, and the makeups of disturbed repeats
(workflows/scripts/sequential.py, dbrepro.verdicts' looks; the workflow's side is in
test_sequential_workflow.py)."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]

import sequential as seq
from dbrepro import verdicts as vd


def test_each_profile_splits_five_percent_evenly_over_its_looks():
    for profile in ("smoke", "quick", "full"):
        plan = seq.load_plan(profile)
        assert plan.looks == 1 + plan.extra_looks
        # Bonferroni: L looks at alpha/L each, so the union bound gives 5% over all of them.
        assert math.isclose(plan.alpha_per_look * plan.looks, 0.05)
        assert math.isclose(plan.confidence_per_look, 1 - 0.05 / plan.looks)
    assert not seq.load_plan("smoke").active  # smoke's graph is the one it had before
    quick = seq.load_plan("quick")
    assert quick.active and quick.looks == 2 and math.isclose(quick.confidence_per_look, 0.975)
    assert 1 <= quick.extra_looks <= 2  # bounded: make repro keeps near its budget
    assert not seq.load_plan("a-profile-the-file-does-not-name").active


@pytest.mark.parametrize("profiles, rule, message", [
    ({"p": {"extra_looks": 1, "repeats_per_look": 0, "max_makeups": 0}}, "bonferroni", "repeats_per_look"),
    ({"p": {"extra_looks": -1, "repeats_per_look": 1, "max_makeups": 0}}, "bonferroni", "extra_looks"),
    ({"p": {"extra_looks": 1, "repeats_per_look": 1, "max_makeups": 0}}, "pocock", "rule"),
])
def test_a_bad_plan_is_refused(tmp_path, profiles, rule, message):
    path = tmp_path / "sequential.yaml"
    path.write_text(json.dumps({"rule": rule, "confidence": 0.95, "profiles": profiles}))
    with pytest.raises(ValueError, match=message):
        seq.load_plan("p", path)


def test_a_look_judges_on_the_split_level_and_says_so():
    """At 1 - 0.05/2 the same repeats give a wider interval than at 95%, one that holds it, and
    the reason names the level."""
    rng = np.random.default_rng(7)
    a, b = pd.Series(10 + rng.normal(0, 1, 12)), pd.Series(9 + rng.normal(0, 1, 12))
    band = {"min": 1.0}
    at95 = vd.evaluate_statistic([a, b], vd.median_effect("ratio"), band, 5)
    look = vd.Context.from_judging({"confidence": 0.975, "look": 1, "looks": 2})
    at975 = vd.evaluate_statistic([a, b], vd.median_effect("ratio"), band, 5, look)
    assert at975.ci_low <= at95.ci_low and at975.ci_high >= at95.ci_high
    assert at975.ci_high - at975.ci_low > at95.ci_high - at95.ci_low
    assert at975.look == 1 and at95.look == 1
    if at975.reason:
        assert "97.5% within-run CI" in at975.reason


def entry(reproduced, reason="", role="finding", timed=True, value=1.2, tau=None, band=None, low=0.97, scale=""):
    return {"role": role, "timed": timed, "band": band or {"min": 1.0}, "ours": f"ours {reproduced}",
            "outcome": {"reproduced": reproduced, "value": value, "ci_low": low, "ci_high": 1.5, "repeats": 5,
                        "reason": reason, "pairing": "paired by repeat", "cells_dropped": 0, "seeds": [],
                        "within_low": None, "within_high": None, "between_sd": tau, "between_scale": scale,
                        "look": 1}}


STRADDLES = "the 97.5% within-run CI [0.97, 1.5] straddles >= 1"


def test_open_findings_get_more_repeats_and_decided_ones_stay_decided():
    plan = seq.Plan("quick", extra_looks=1, repeats_per_look=2, max_makeups=2, max_extra_seconds=300)
    look1 = {
        "decided_yes": entry("yes"),
        "open_one": entry("inconclusive", STRADDLES),
        # its between-run part alone (2.24 x 0.5) is wider than its distance to the band (0.2)
        "hopeless": entry("inconclusive", STRADDLES, tau=0.5),
        "a_check": entry("inconclusive", STRADDLES, role="check"),
        "a_count": entry("inconclusive", STRADDLES, timed=False),
        "too_few": entry("inconclusive", f"4 repeat(s), fewer than the 5 {vd.TOO_FEW_REPEATS}"),
    }
    grids = {"serves_open": ["open_one"], "serves_decided": ["decided_yes"], "serves_hopeless": ["hopeless"],
             "serves_all": None}
    record = seq.decide_look(1, plan, look1, None, grids, {g: 10.0 for g in grids}, {g: 5 for g in grids})
    assert sorted(record["decided"]) == ["decided_yes"]
    assert record["open"] == ["open_one", "too_few"]
    assert "cannot decide" in record["left_open"]["hopeless"]
    assert record["extend"] == {"serves_all": 2, "serves_open": 2}  # never a grid whose findings are decided
    assert record["spent_seconds"] == 40.0

    # Look 2, the last: the decided finding's interval now straddles, the open one is decided.
    look2 = {**look1, "decided_yes": entry("inconclusive", STRADDLES), "open_one": entry("no", value=0.5)}
    last = seq.decide_look(2, plan, look2, record, grids, {g: 10.0 for g in grids}, {g: 7 for g in grids})
    assert last["decided"]["decided_yes"]["look"] == 1
    assert last["decided"]["decided_yes"]["outcome"]["reproduced"] == "yes"
    assert last["decided"]["open_one"]["look"] == 2
    assert last["extend"] == {}  # no look is left after the last
    assert last["extended_total"]["serves_open"] == 2


def test_extra_repeats_stop_at_the_profiles_time():
    plan = seq.Plan("quick", extra_looks=2, repeats_per_look=2, max_makeups=0, max_extra_seconds=300)
    grids = {"cheap": None, "dear": None}
    record = seq.decide_look(1, plan, {"f": entry("inconclusive", STRADDLES)}, None, grids,
                             {"cheap": 60.0, "dear": 100.0}, {"cheap": 5, "dear": 5})
    assert record["extend"] == {"cheap": 2}  # 120 s; the dear grid's 200 s would pass 300
    assert "max_extra_seconds" in record["skipped"]["dear"]
    again = seq.decide_look(2, plan, {"f": entry("inconclusive", STRADDLES)}, record, grids,
                            {"cheap": 60.0, "dear": 100.0}, {"cheap": 7, "dear": 5})
    assert again["extend"] == {"cheap": 2} and again["spent_seconds"] == 240.0
    assert again["extended_total"] == {"cheap": 4, "dear": 0}


def test_the_claims_keep_a_verdict_decided_at_an_earlier_look(tmp_path):
    criteria = vd.load_criteria("fifo_cache")
    c = criteria["nopm_speedup"]
    decided = vd.Outcome("yes", 1.3, 1.1, 1.5, repeats=5, pairing="paired by repeat (5 repeats in every arm)", look=1)
    previous = tmp_path / "look1.json"
    previous.write_text(json.dumps({"decided": {"nopm_speedup": {"look": 1, "ours": "1.30x at look 1",
                                                                   "outcome": vd.outcome_record(decided)}}}))
    context = vd.Context.from_judging({"confidence": 0.975, "look": 2, "looks": 2, "previous_look": str(previous),
                                       "outcomes_out": str(tmp_path / "outcomes.json")})
    now = vd.Outcome("inconclusive", 1.2, 0.95, 1.4, repeats=7, reason="the 97.5% within-run CI [0.95, 1.4] straddles", look=2,
                     confidence=0.975)
    judged = vd.judge_all([vd.ClaimResult(c, "1.20x at look 2", now)], criteria, context)
    table = vd.write_claims(judged, criteria, tmp_path / "claims.csv", tmp_path / "claims.md", context)
    row = table.set_index("id").loc["nopm_speedup"]
    assert row["reproduced"] == "yes" and row["ours"] == "1.30x at look 1"
    assert int(row["looks"]) == 1 and math.isclose(float(row["alpha_per_look"]), 0.025)
    assert "decided at look 1" in row["pairing"] and "read inconclusive" in row["pairing"]
    md = (tmp_path / "claims.md").read_text()
    assert "look 2 of at most 2" in md and "97.5%" in md
    outcomes = json.loads((tmp_path / "outcomes.json").read_text())
    assert outcomes["nopm_speedup"]["outcome"]["reproduced"] == "yes"


def test_one_look_leaves_the_table_as_before(tmp_path):
    """Without extra looks the level is 95% and every timed row says look 1 at alpha 0.05."""
    criteria = vd.load_criteria("fifo_cache")
    c = criteria["nopm_speedup"]
    rng = np.random.default_rng(3)
    outcome = vd.evaluate_medians(pd.Series(2 + rng.normal(0, 0.05, 5)), pd.Series(1 + rng.normal(0, 0.05, 5)), c)
    judged = vd.judge_all([vd.ClaimResult(c, "x", outcome)], criteria, vd.DEFAULT)
    table = vd.write_claims(judged, criteria, tmp_path / "c.csv", tmp_path / "c.md", vd.DEFAULT)
    row = table.iloc[0]
    assert int(row["looks"]) == 1 and math.isclose(float(row["alpha_per_look"]), 0.05)
    assert "Sequential looks" not in (tmp_path / "c.md").read_text()


def test_a_repeat_with_a_disturbed_cell_is_made_up(tmp_path):
    paths = {}
    for rep, disturbed in ((1, False), (2, True), (3, False), (4, True), (5, True)):
        path = tmp_path / f"rep{rep}.json"
        # deep in the record, as a duet's arm or a grid's cell carries it
        path.write_text(json.dumps({"cells": [{"qps": 1.0, "disturbed": False},
                                              {"qps": 2.0, "foreign_load": {}, "disturbed": disturbed}]}))
        paths[rep] = [str(path)]
    plan = seq.Plan("quick", max_makeups=2)
    assert seq.makeups_record(paths, plan) == {"disturbed_repeats": [2, 4, 5], "makeups": 2, "max_makeups": 2}
    assert seq.makeups_record(paths, seq.Plan("smoke"))["makeups"] == 0
    # claims.md's foreign-load line counts them
    context = vd.Context(makeups={"runs": seq.makeups_record(paths, plan)})
    frame = pd.DataFrame({"attempts": [3, 1, 3], "disturbed": [True, False, True]})
    text = vd.load_account(context, frame)
    assert "2 still disturbed" in text and "Made up: 2 repeat(s)" in text and "1 beyond" in text


def test_a_grids_time_per_repeat_comes_from_its_records(tmp_path):
    paths = {}
    for rep in range(1, 5):
        path = tmp_path / f"rep{rep}.json"
        path.write_text("{}")
        os.utime(path, (1000 + 30 * rep, 1000 + 30 * rep))
        paths[rep] = [str(path)]
    assert seq.seconds_per_repeat(paths) == 30
    assert seq.seconds_per_repeat({1: paths[1]}) is None


def test_a_look_after_one_that_added_nothing_judges_nothing_again(tmp_path):
    """Full takes two extra looks: where look 1 extended no grid, the second look's checkpoint has
    the same repeats to read, so it keeps look 1's record (and its number) without judging again."""
    import sequential_look

    previous = {"look": 1, "looks": 3, "decided": {"f": {"look": 1}}, "open": [], "extend": {},
                "extended_total": {"runs": 0}, "skipped": {}, "spent_seconds": 0.0}
    (tmp_path / "look1.json").write_text(json.dumps(previous))
    plan = seq.Plan("full", extra_looks=2, repeats_per_look=5, max_makeups=3, max_extra_seconds=3600)
    record = sequential_look.look("no_such_study", 2, SimpleNamespace(previous=str(tmp_path / "look1.json")),
                                  str(tmp_path / "look2.json"), {"plan": vars(plan)}, {})
    assert record["look"] == 1 and record["same_as_look"] == 1 and record["extend"] == {}
    assert record["decided"] == previous["decided"]
    assert json.loads((tmp_path / "look2.json").read_text()) == record


def test_a_look_spends_only_where_its_repeats_can_be_expected_to_decide():
    """1.2 with its repeats' interval 0.23 below it, band >= 1: 2 more repeats (5 -> 7) shrink that
    side to about 0.23 sqrt(5/7) = 0.19, inside the 0.2 to the band: open. At 0.30 below, about
    0.25: not to be expected, left open without repeats. At look 2 of 2 no repeats are left to
    project, and the between-run floor alone decides."""
    z = vd.z_of(0.975)
    near, far = entry("inconclusive", STRADDLES, low=0.97), entry("inconclusive", STRADDLES, low=0.90)
    assert seq.open_reason(near, 0.975, 2) == (True, STRADDLES)
    is_open, why = seq.open_reason(far, 0.975, 2)
    assert not is_open and "cannot be expected" in why and "+-0.254" in why
    assert seq.open_reason(far, 0.975, 0)[0]
    # On the log scale (a ratio's tau): 1.2 vs >= 1 is log(1.2) = 0.182 away; a tau of 0.1 leaves
    # z 0.1 = 0.224 beyond it, where the same tau read on the ratio itself would not.
    is_open, why = seq.open_reason(entry("inconclusive", STRADDLES, tau=0.1, scale="log"), 0.975, 2)
    assert not is_open and "between-run part" in why and "on the log of the ratio" in why and z * 0.1 > math.log(1.2)
    assert seq.open_reason(entry("inconclusive", STRADDLES, tau=0.08), 0.975, 0)[0]  # linear: 0.18 < 0.2
