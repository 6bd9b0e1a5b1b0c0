"""Count claims on several seeds (issue 29, item 8): a deterministic count is
robust only if it holds on other inputs too, so each count claim is judged on
every seed the runs counted, `yes` only when every seed says yes, its interval
the range over the seeds; and the workflow gives each repeat of a timed grid
its own seed."""
from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "workflows" / "scripts"


def criterion(vd, role="finding", kind="count", band=None):
    spec = {"id": "some_count", "text": "a count", "role": role, "setting": "original", "theirs": "x",
            "source": "s", "quantity": "q", "direction": "above", "band": band or {"min": 10},
            "why_band": "w", "kind": kind, "mechanism": "m"}
    if kind == "timed":
        spec.update(effect="ratio", min_repeats=5)
    return vd.Criterion(spec)


def on_seeds(vd, values, role="finding", min_seeds=3):
    c = criterion(vd, role)
    return vd.across_seeds({seed: vd.count_result(c, f"{v:g}", v) for seed, v in values.items()}, min_seeds)


def test_every_seed_inside_is_yes_with_the_range_as_interval(vd):
    result = on_seeds(vd, {1: 12.0, 2: 11.0, 3: 15.0})
    row = vd.row_of(result, "study")
    assert row["reproduced"] == "yes"
    assert (row["effect"], row["ci_low"], row["ci_high"]) == (12.0, 11.0, 15.0)
    assert "seeds 1, 2, 3" in row["pairing"] and "range" in row["pairing"]
    assert "3 seeds: 11..15" in row["ours"]


def test_one_seed_outside_makes_it_inconclusive_and_says_which(vd):
    result = on_seeds(vd, {1: 12.0, 2: 9.0, 3: 15.0})
    assert result.outcome.reproduced == "inconclusive"
    assert "yes on seeds 1, 3" in result.outcome.reason and "no on seed 2" in result.outcome.reason


def test_every_seed_outside_is_no(vd):
    result = on_seeds(vd, {1: 2.0, 2: 3.0, 3: 1.0})
    assert result.outcome.reproduced == "no"
    assert "no on every seed" in result.outcome.reason


def test_too_few_seeds_leave_a_finding_inconclusive_but_not_a_check(vd):
    finding = on_seeds(vd, {1: 12.0, 2: 13.0}, min_seeds=3)
    assert finding.outcome.reproduced == "inconclusive" and "needs 3" in finding.outcome.reason
    check = on_seeds(vd, {1: 12.0}, role="check", min_seeds=3)
    assert check.outcome.reproduced == "yes"
    assert math.isnan(check.outcome.ci_low)  # one seed: no range
    assert vd.row_of(check)["pairing"] == "deterministic count on seed 1"


def test_a_timed_claim_is_refused(vd):
    c = criterion(vd, kind="timed")
    with pytest.raises(ValueError, match="pairs by repeat"):
        vd.across_seeds({1: vd.ClaimResult(c, "x", vd.Outcome("yes", 1.0))})


def test_judge_on_seeds_keeps_timed_claims_and_skips_seeds_without_counts(vd):
    count, timed = criterion(vd), criterion(vd, kind="timed")
    timed.spec["id"] = "some_time"
    all_runs = [vd.count_result(count, "12", 12.0), vd.ClaimResult(timed, "1.5x", vd.Outcome("yes", 1.5, 1.2, 1.8))]
    per_seed = {1: 12.0, 2: 14.0, 3: None, 4: 9.0}

    def claims_of(seed):
        value = per_seed[seed]
        timed_here = vd.ClaimResult(timed, "n/a", vd.inconclusive("one repeat"))
        return [None if value is None else vd.count_result(count, f"{value:g}", value), timed_here]

    judged = vd.judge_on_seeds(all_runs, claims_of, [1, 2, 3, 4], min_seeds=3)
    assert judged[1] is all_runs[1]  # the timed claim as judged on every repeat
    assert judged[0].outcome.seeds == (1, 2, 4)
    assert judged[0].outcome.reproduced == "inconclusive"  # seed 4 is below the band


def test_min_seeds_is_read_from_the_criteria_and_checked(vd, tmp_path):
    text = re.sub(r"(?m)^min_seeds:.*\n", "", (REPO / "workflows" / "claims" / "fifo_cache.yaml").read_text())
    assert vd.load_criteria(REPO / "workflows" / "claims" / "fifo_cache.yaml").min_seeds == 3
    (tmp_path / "absent.yaml").write_text(text, encoding="utf-8")
    assert vd.load_criteria(tmp_path / "absent.yaml").min_seeds == 1
    (tmp_path / "good.yaml").write_text("min_seeds: 4\n" + text, encoding="utf-8")
    assert vd.load_criteria(tmp_path / "good.yaml").min_seeds == 4
    (tmp_path / "bad.yaml").write_text("min_seeds: 0\n" + text, encoding="utf-8")
    with pytest.raises(ValueError, match="min_seeds"):
        vd.load_criteria(tmp_path / "bad.yaml")


def test_each_repeat_of_a_timed_grid_runs_on_its_own_seed():
    """The workflow's repeat_seed: repeat r on seed + r - 1 (E3's ladder, E5's grid)."""
    text = (REPO / "workflows" / "common.smk").read_text(encoding="utf-8")
    assert "def repeat_seed(base):" in text
    namespace: dict = {}
    start = text.index("def repeat_seed(base):")
    exec(text[start:text.index("\n\n\n", start)], namespace)  # the function alone
    seed_of = namespace["repeat_seed"](7)
    assert [seed_of(type("W", (), {"rep": str(r)})) for r in (1, 2, 5)] == [7, 8, 11]
    for study in ("openedge", "fifo_cache"):
        smk = (REPO / "workflows" / f"{study}.smk").read_text(encoding="utf-8")
        assert "repeat_seed(" in smk, study


def test_openedge_counts_are_judged_on_each_repeats_seed(tmp_path):
    """E3: two ladder runs on seeds 5 and 6 (as repeats 1 and 2 run), the scan on seed 5:
    the traffic and lookup findings say they were counted on both seeds, the scan's
    check on its one."""
    import subprocess

    def run(out, seed, *extra):
        out.parent.mkdir(parents=True, exist_ok=True)  # outside the working folder, --out makes no folder
        done = subprocess.run([sys.executable, "-m", "dbrepro.openedge", "--rows", "200", "--servers", "1",
                               "--users", "2", "--seed", str(seed), "--out", str(out), *extra],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return out

    folder = tmp_path / "raw"
    runs = [run(folder / f"rep{r}" / "ladder.json", 4 + r, "--steps", "0,1,2,3") for r in (1, 2)]
    scan = run(folder / "scan.json", 5, "--workload", "scan", "--steps", "0,1", "--repeats", "1")
    import openedge_claims
    import openedge_tables

    names = ("runs", "ladder", "users", "traffic", "scan", "latency")
    out = {name: str(tmp_path / f"{name}.csv") for name in names}
    openedge_tables.main(REPO / "workflows" / "data" / "openedge_paper.yaml", out, runs, scan)
    openedge_claims.main(out["runs"], out["traffic"], out["scan"], out["latency"],
                         REPO / "workflows" / "data" / "openedge_paper.yaml", tmp_path / "claims.csv",
                         tmp_path / "claims.md")
    import pandas as pd

    pairing = pd.read_csv(tmp_path / "claims.csv").set_index("id")["pairing"]
    assert pairing["traffic_drops"].startswith("deterministic count on seeds 5, 6")
    assert pairing["optimistic_saves_lookups"].startswith("deterministic count on seeds 5, 6")
    assert pairing["optimistic_saves_lookups_scan"] == "deterministic count on seed 5"
