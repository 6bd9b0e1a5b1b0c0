"""The summary's section on findings that depend on the machine (issue 52): for E2 it sets this
run's own counters beside the kinds' estimates, the untimed account run's mutex waits and the
timed arms' server CPU and context switches per query, and prices the switches the segments
saved at this machine's measured context switch."""
from __future__ import annotations

import shutil

import pandas as pd
import pytest


@pytest.fixture
def summary(repo, monkeypatch):
    monkeypatch.syspath_prepend(str(repo / "workflows" / "scripts"))
    import summary

    return summary


def _e2_tables(results):
    folder = results / "tables" / "key_cache"
    folder.mkdir(parents=True)
    common = {"distribution": "special", "points": 10}
    pd.DataFrame([
        {**common, "threads": 4, "segments": 0, "qps_median": 9000.0, "server_cpu_us_per_query": 90.0,
         "voluntary_switches_per_query": 0.5, "involuntary_switches_per_query": 0.7},
        {**common, "threads": 64, "segments": 0, "qps_median": 12000.0, "server_cpu_us_per_query": 116.0,
         "voluntary_switches_per_query": 1.16, "involuntary_switches_per_query": 0.6},
        {**common, "threads": 64, "segments": 64, "qps_median": 11600.0, "server_cpu_us_per_query": 115.0,
         "voluntary_switches_per_query": 0.82, "involuntary_switches_per_query": 0.68},
    ]).to_csv(folder / "mariadb_throughput.csv", index=False)
    pd.DataFrame([
        {**common, "source": "mariadb", "threads": 64, "segments": 0, "queries_per_second": 8600.0,
         "waits_per_query": 239.3, "wait_us_per_query": 1545.7, "server_cpu_us_per_query": 171.6},
        {**common, "source": "model", "threads": 128, "segments": 0, "queries_per_second": 36000.0,
         "waits_per_query": 79.4, "wait_us_per_query": 776.6, "server_cpu_us_per_query": 43.8},
    ]).to_csv(folder / "mutex_account.csv", index=False)


def _repo_with_committed_kinds(repo, tmp_path):
    """A repository holding the committed per-kind estimates (reference/machine_dependent.csv)."""
    fake = tmp_path / "repo"
    (fake / "reference").mkdir(parents=True)
    for name in ("machine_dependent.csv", "machines.csv"):
        shutil.copy(repo / "reference" / name, fake / "reference" / name)
    return fake


def test_e2_counters_give_the_timed_arms_costs_and_price_the_saved_switches(summary, repo, tmp_path):
    results = tmp_path / "results" / "quick"
    _e2_tables(results)
    about = {"kind": "a kind never seen", "fingerprint": {"start": {"context_switch_ns": 3500.0},
                                                         "end": {"context_switch_ns": 2500.0}}}
    text = "\n".join(summary.machine_dependent_lines(results, about, _repo_with_committed_kinds(repo, tmp_path)))
    assert "E2 `mariadb_segments_help`" in text
    assert "this run's kind is a kind never seen, not yet among them." in text
    # The account run: the real server's row at its most threads, never the model's 128.
    assert "account of the real MariaDB's key cache mutex at 64 threads" in text
    assert "0 segments: 8,600 q/s, 239.3 timed mutex waits" in text
    # The timed arms at 64 threads, both segment values, and the saving priced at 3,000 ns.
    assert "timed arms at 64 threads" in text
    assert "0 segments: 12,000 q/s, server CPU 116.0 us, 1.16 voluntary and 0.60 involuntary switches" in text
    assert "64 segments: 11,600 q/s, server CPU 115.0 us, 0.82 voluntary" in text
    assert ("64 segments against off: voluntary switches -0.34 per query, -1.0 us at this machine's context "
            "switch (3,000 ns), server CPU -1.0 us per query") in text


def test_without_a_fingerprint_the_timed_costs_are_shown_unpriced(summary, tmp_path):
    results = tmp_path / "results" / "quick"
    _e2_tables(results)
    text = summary._key_cache_account(results, {})
    assert "timed arms at 64 threads" in text and "at this machine's context switch" not in text


def test_a_run_without_e2_tables_adds_no_counters(summary, tmp_path):
    assert summary._key_cache_account(tmp_path, {"fingerprint": {"start": {"context_switch_ns": 3000.0}}}) == ""


def test_e3_counters_give_each_steps_switches_and_price_the_servers_wakeups(summary, tmp_path):
    results = tmp_path / "results" / "quick"
    folder = results / "tables" / "openedge"
    folder.mkdir(parents=True)
    pd.DataFrame({"step": [0, 1, 2, 3], "name": ["baseline", "bht", "mtdbs", "ssj"],
                  "seconds_median": [0.120, 0.100, 0.070, 0.003],
                  "voluntary_switches_per_message": [0.55, 0.51, 0.84, 1.2],
                  "process_voluntary_switches": [650, 350, 4350, 28],
                  "client_processes_voluntary_switches": [5400, 5300, 4850, 36]}).to_csv(folder / "ladder.csv",
                                                                                         index=False)
    about = {"fingerprint": {"start": {"cross_cpu_wakeup_ns": 20000.0, "context_switch_ns": 2000.0},
                             "end": {"cross_cpu_wakeup_ns": 30000.0, "context_switch_ns": 3000.0}}}
    text = summary._openedge_switches(results, about)
    assert "baseline 0.55 (650 servers', 5,400 users'); bht 0.51" in text and "ssj 1.20 (28 servers'" in text
    # 4,000 more switches of the servers: 10 ms of CPU at 2,500 ns, 100 ms of latency at 25 us.
    assert ("mtdbs against bht: the servers' switches +4,000 per run, +10.0 ms of CPU at this machine's context "
            "switch (2,500 ns) and +100.0 ms of latency at its wake-up across CPUs (25.0 us), beside the step's "
            "30.0 ms less per run") in text
    assert "wake-up across CPUs" not in summary._openedge_switches(results, {})
    assert summary._openedge_switches(tmp_path / "none", about) == ""
