"""A run's machine (issue 52): its fingerprint and kind, and verdicts widened by the spread between
runs of their own kind, never by the spread across kinds."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from dbrepro import machine
from dbrepro.verdicts import estimate, judge

PRIMITIVES = ("fixed_loop_s", "cache_line_transfer_ns", "cross_cpu_wakeup_ns", "context_switch_ns", "mutex_handoffs",
              "memory_latency_ns", "fdatasync_us_median", "odirect_read_4k_us_median")
IDENTITY = ("vendor", "family", "model", "stepping", "model_name", "caches", "topology", "hypervisor", "kernel",
            "memory_kib")


def test_the_kind_is_the_cpus_identity_and_caches_not_its_speed():
    ident = {"vendor": "AuthenticAMD", "family": "25", "model": "17", "stepping": "1",
             "caches": [{"level": 2, "type": "Unified", "size": "512K"}, {"level": 3, "type": "Unified", "size": "32768K"}]}
    assert machine.kind_of(ident) == "AMD family 25 model 17 stepping 1, L2 512K, L3 32768K"
    assert machine.kind_of({**ident, "model_name": "another name", "memory_kib": 1}) == machine.kind_of(ident)
    assert machine.kind_of({**ident, "model": "1"}) != machine.kind_of(ident)


def test_a_committed_runs_kind_comes_from_its_fingerprint_or_its_summary(tmp_path):
    old = tmp_path / "old"
    old.mkdir()
    (old / "summary.md").write_text("# x\n\n- machine: AMD EPYC, 2 usable CPU(s), Linux 6\n")
    assert machine.kind_of_run(old) == "unrecorded: AMD EPYC"
    new = tmp_path / "new"
    new.mkdir()
    (new / "machine.json").write_text(json.dumps({"kind": "Intel family 6 model 207 stepping 2, L2 2048K, L3 1M"}))
    assert machine.kind_of_run(new).startswith("Intel family 6")
    assert machine.kind_of_run(tmp_path / "none") == "unrecorded: unknown CPU"


def test_the_fingerprint_has_every_field_and_primitive(tmp_path):
    out = tmp_path / "start.json"
    done = subprocess.run([sys.executable, "-m", "dbrepro", "machine", "--dir", str(tmp_path), "--brief",
                           "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(out.read_text())
    assert found["kind"] == machine.kind_of(found["identity"]) and found["kind"] in done.stdout
    assert set(IDENTITY) <= set(found["identity"])
    prims = found["primitives"]
    assert "error" not in prims, prims
    for name in PRIMITIVES:
        assert name in prims, name
    assert prims["fixed_loop_s"] > 0 and prims["memory_latency_ns"] > 0 and prims["brief"] is True
    assert [m["threads"] for m in prims["mutex_handoffs"]] == [4, 64]
    assert all(m["acquisitions"] > 0 for m in prims["mutex_handoffs"])
    assert not list(tmp_path.glob(".dbrepro-machine-*"))  # the disk's scratch file is gone
    bad = subprocess.run([sys.executable, "-m", "dbrepro", "machine", "--dir", str(tmp_path / "nope"),
                          "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "not a folder" in bad.stderr


def test_machine_json_keeps_both_ends_and_the_methods():
    start = {"kind": "K", "identity": {"vendor": "x"}, "primitives": {"fixed_loop_s": 1.0}, "timestamp_utc": "a"}
    end = {"kind": "K", "primitives": {"fixed_loop_s": 1.2}, "timestamp_utc": "b"}
    record = machine.combined(start, end, {"quantum": "os_ts"})
    assert record["start"]["fixed_loop_s"] == 1.0 and record["end"]["fixed_loop_s"] == 1.2
    assert record["methods"] == {"quantum": "os_ts"} and "kind_changed" not in record
    assert "kind_changed" in machine.combined(start, {**end, "kind": "L"})


ESTIMATE = {"criterion_sha": "x", "scale": "linear", "method": "m2",
            "kinds": {"A": {"tau": 0.5, "runs": 3}, "B": {"tau": 2.0, "runs": 4}, "C": {"tau": 9.0, "runs": 1}},
            "default": {"tau": 2.0, "kind": "B", "runs": 4}}


def test_a_run_takes_its_own_kinds_spread_else_the_stated_default():
    spread, where = judge.spread_for(ESTIMATE, "A", "m2")
    assert spread["tau"] == 0.5 and "this kind's" in where and "3 committed runs of A" in where
    spread, where = judge.spread_for(ESTIMATE, "C", "m2")  # one run of its kind: not enough
    assert spread["tau"] == 2.0 and "largest same-kind spread" in where and "of B" in where
    spread, where = judge.spread_for(ESTIMATE, "new kind", "m2")
    assert spread["tau"] == 2.0
    assert judge.spread_for(ESTIMATE, "A", "m3") == (None, "")  # estimated over another method's runs
    pooled = {"criterion_sha": "x", "tau": 1.0, "runs": 9, "source": "f.csv"}  # the file before issue 52
    assert judge.spread_for(pooled, "A", "m2") == (pooled, "9 runs, f.csv")


HEADER = "study,id,role,effect,ci_low,ci_high,repeats,criterion,within_ci_low,within_ci_high,alpha_per_look\n"


def write_run(root: Path, name: str, kind: str, effect: float) -> Path:
    folder = root / name / "tables" / "openedge"
    folder.mkdir(parents=True)
    criterion = "q: 95% bootstrap CI of the difference inside > 0, >= 5 repeats"
    (folder / "findings.csv").write_text(HEADER + f'openedge,f,finding,{effect},{effect - 1},{effect + 1},5,"{criterion}",,,\n')
    (root / name / "machine.json").write_text(json.dumps({"kind": kind, "methods": {"openedge": "ladder"}}))
    return root / name


def test_the_spread_is_estimated_per_kind_and_method(tmp_path):
    """Two kinds whose runs agree among themselves and differ between them: each kind's tau is
    small; pooled, the difference between kinds would read as a spread between runs."""
    runs = [write_run(tmp_path, f"a{i}", "kind A", 10.0 + 0.1 * i) for i in range(3)]
    runs += [write_run(tmp_path, f"b{i}", "kind B", 20.0 + 0.1 * i) for i in range(3)]
    rows = pd.concat([estimate.timed_rows(r) for r in runs], ignore_index=True)
    table = estimate.levels(rows)
    assert sorted(table["kind"]) == ["kind A", "kind B"] and set(table["method"]) == {"ladder"}
    assert (table["tau"] < 0.5).all() and (table["runs"] == 3).all()
    pooled = estimate.levels(rows.assign(kind="one"))
    assert float(pooled["tau"].iloc[0]) > 4  # the kinds' 10 points apart, read as between runs


def test_a_runs_method_comes_from_the_commit_it_was_made_at(tmp_path):
    methods = {"quantum": (estimate.load_methods()["quantum"])}
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary.md").write_text("- commit: `45b7263bf0aadc3a4bb2a8e258c3d38cfea1bf3f`\n")  # quick-m's
    estimate.run_commit.cache_clear()
    if estimate._git("cat-file", "-e", "45b7263^{commit}").returncode != 0:
        pytest.skip("quick-m's commit is not in this clone")
    assert estimate.method_of_run(run, "quantum", methods) == "os_rr"
    (run / "summary.md").write_text("- commit: `b4b61d3af567941651fde21dc1feb6089f578b01`\n")  # quick-n's
    estimate.run_commit.cache_clear()
    assert estimate.method_of_run(run, "quantum", methods) == "os_ts"


def test_kinds_apart_are_found_and_machines_listed(tmp_path):
    """Two kinds whose runs agree among themselves and disagree with each other: the finding is
    one that depends on the machine, each kind's estimate holds its own runs."""
    from dbrepro.verdicts import kinds

    runs = [write_run(tmp_path, f"a{i}", "kind A", 10.0 + 0.1 * i) for i in range(3)]
    runs += [write_run(tmp_path, f"b{i}", "kind B", 20.0 + 0.1 * i) for i in range(2)]
    runs.append(write_run(tmp_path, "c0", "kind C", 15.0))  # one run: no estimate of its own
    rows = pd.concat([estimate.timed_rows(r) for r in runs], ignore_index=True)
    assert set(rows["kind"]) == {"kind A", "kind B", "kind C"}
    machines = kinds.machines(runs)
    assert list(machines["kind"]) == ["kind A", "kind B", "kind C"] and list(machines["runs"]) == [3, 2, 1]
    assert (machines["fingerprints"] == 0).all()
    (runs[0] / "machine.json").write_text(json.dumps({"kind": "kind A", "start": {"fixed_loop_s": 1.0},
                                                      "end": {"fixed_loop_s": 3.0}}))
    assert kinds.machines(runs).set_index("kind").at["kind A", "fixed_loop_s"] == 2.0


def test_a_finding_whose_kinds_disagree_depends_on_the_machine(tmp_path):
    from dbrepro import verdicts as vd
    from dbrepro.verdicts import kinds

    criterion = vd.load_criteria("openedge")["mtdbs_step"].text_of_criterion()

    def run(name, kind, effect):
        folder = tmp_path / name / "tables" / "openedge"
        folder.mkdir(parents=True)
        (folder / "findings.csv").write_text(HEADER.replace("\n", ",reproduced\n") + f'openedge,mtdbs_step,finding,{effect},'
                                             f'{effect - 2},{effect + 2},5,"{criterion}",,,,yes\n')
        (tmp_path / name / "machine.json").write_text(json.dumps({"kind": kind, "methods": {"openedge": "ladder"}}))
        return tmp_path / name

    runs = [run("a0", "A", -40.0), run("a1", "A", -41.0), run("b0", "B", -20.0), run("b1", "B", -21.0)]
    table = kinds.kind_estimates(runs)
    assert sorted(table["kind"]) == ["A", "B"] and list(table["yes"]) == [2, 2]
    assert set(table["apart_from"]) == {"A", "B"} and len(kinds.dependent(table)) == 2
    same = kinds.kind_estimates([run("a2", "A", -40.5), *runs[:2]])
    assert kinds.dependent(same).empty


def test_mutex_hand_offs_count_only_from_the_version_that_measures_them(tmp_path):
    """dbrepro-machine's version 1 left its caller pinned to one CPU, so its mutex threads were
    never contended: the kinds table reads hand-offs from version 2 on (the loop from every one)."""
    from dbrepro.verdicts import kinds

    def run(name, version):
        folder = tmp_path / name
        folder.mkdir()
        prims = {"fixed_loop_s": 1.0, "mutex_handoffs": [{"ns_per_acquisition": 60.0 if version == 1 else 280.0},
                                                         {"ns_per_acquisition": 65.0 if version == 1 else 190.0}]}
        if version > 1:
            prims["version"] = version
        (folder / "machine.json").write_text(json.dumps({"kind": "K", "start": prims, "end": prims}))
        return folder

    row = kinds.machines([run("old", 1), run("new", 2)]).set_index("kind").loc["K"]
    assert row["fixed_loop_s"] == 1.0 and row["fingerprints"] == 4
    assert row["mutex_4_threads_ns_per_acquisition"] == 280.0 and row["mutex_64_threads_ns_per_acquisition"] == 190.0
