"""dbrepro.tpcc.run and RunResult, on the real engine."""
from __future__ import annotations

import io
import json
import math

import pytest

from dbrepro import RunResult, tpcc
from dbrepro.result import SCHEMA_VERSION

FRAME_COLUMNS = {
    "kind", "variant", "warehouses", "transactions", "seconds_limit", "seed", "page_size",
    "key_compare", "txn_type", "weight", "commits", "aborts", "seconds", "mean_latency_us", "tps",
    "throughput_tps", "transactions_done", "elapsed_seconds", "cpu_seconds", "load_seconds",
    "consistent", "interrupted", "process_cpu_seconds", "wall_seconds", "git_commit", "hostname",
}


def test_result_metrics_add_up(small_run, small_config):
    metrics = small_run.metrics
    assert metrics["transactions"] == small_config["transactions"]
    assert not metrics["interrupted"]
    per_type = metrics["per_type"]
    assert set(per_type) == set(tpcc.TXN_TYPES)
    attempted = sum(stats["commits"] + stats["aborts"] for stats in per_type.values())
    assert attempted == small_config["transactions"]
    assert per_type["new_order"]["commits"] > 0 and per_type["payment"]["commits"] > 0
    assert metrics["throughput_tps"] > 0 and metrics["elapsed_seconds"] > 0
    host = metrics["host"]
    assert host["wall_seconds"] >= metrics["elapsed_seconds"]
    assert host["process_cpu_seconds"] > 0
    assert len(host["loadavg_before"]) == 3 and len(host["loadavg_after"]) == 3


def test_config_is_echoed(small_run):
    config = small_run.config
    assert config["warehouses"] == 1 and config["seed"] == 7 and config["variant"] == "paper"
    assert config["mix"] == {"new_order": 0.5, "payment": 0.5, "order_status": 0.0, "delivery": 0.0, "stock_level": 0.0}


def test_consistency_passes(small_run):
    assert small_run.consistent
    checks = small_run.consistency
    assert all(check["passed"] for check in checks), checks
    assert [check["condition"] for check in checks] == [1, 2, 3, 4, 5, 6, 7, 12]


def test_frame_has_one_row_per_transaction_type(small_run, small_config):
    frame = small_run.to_frame()
    assert list(frame["txn_type"]) == ["new_order", "payment"]
    assert FRAME_COLUMNS <= set(frame.columns)
    assert (frame["commits"] + frame["aborts"]).sum() == small_config["transactions"]
    assert frame["tps"].sum() <= frame["throughput_tps"].iloc[0] + 1e-6
    assert (frame["mean_latency_us"] > 0).all()


def test_record_round_trip(small_run):
    record = small_run.to_dict()
    assert record["schema_version"] == SCHEMA_VERSION and record["kind"] == "tpcc"
    assert list(record)[:4] == ["schema_version", "kind", "config", "metrics"]
    assert {"consistency", "provenance"} <= set(record)
    # Through JSON, as on disk.
    again = RunResult.from_dict(json.loads(json.dumps(record, allow_nan=False)))
    assert again.to_dict() == record
    assert again.to_frame().equals(small_run.to_frame())


def test_record_has_provenance(small_run):
    provenance = small_run.provenance
    assert {"git", "python", "build", "host", "hardware_counters", "valgrind", "timestamp_utc"} <= set(provenance)
    assert "compiler" in provenance["build"], provenance["build"]
    assert provenance["host"]["logical_cpus"] >= 1
    counters = provenance["hardware_counters"]
    assert isinstance(counters["available"], bool)
    if not counters["available"]:
        assert counters["error"]  # e.g. "ENOENT: No such file or directory"


def test_same_seed_same_counts(small_run, small_config):
    again = tpcc.run(**small_config, progress=False)
    for txn_type in tpcc.TXN_TYPES:
        first, second = small_run.metrics["per_type"][txn_type], again.metrics["per_type"][txn_type]
        assert (first["commits"], first["aborts"]) == (second["commits"], second["aborts"])


def test_progress_callback_is_called(small_run, small_config):
    calls = small_run.progress_calls
    assert calls, "progress callback never called"
    assert all(total == small_config["transactions"] for _, total in calls)
    done = [d for d, _ in calls]
    assert done == sorted(done) and done[0] == 100


def test_progress_returning_none_does_not_stop_the_run(small_config):
    calls = []
    result = tpcc.run(**small_config, progress=lambda done, total: calls.append(done), progress_every=100)
    assert len(calls) == 5 and not result.interrupted


def test_progress_returning_false_stops_the_run(small_config):
    result = tpcc.run(**small_config, progress=lambda done, total: False, progress_every=100)
    assert result.interrupted
    assert result.metrics["transactions"] < small_config["transactions"]


@pytest.mark.parametrize(
    "bad, parameter",
    [
        ({"warehouses": 0}, "warehouses"),
        ({"warehouses": 1.5}, "warehouses"),
        ({"warehouses": True}, "warehouses"),
        ({"transactions": -1}, "transactions"),
        ({"transactions": 0}, "transactions"),  # and no time limit either
        ({"seconds": -1.0}, "seconds"),
        ({"seconds": math.nan}, "seconds"),
        ({"variant": "foo"}, "variant"),
        ({"key_compare": "fast"}, "key_compare"),
        ({"page_size": 1000}, "page_size"),
        ({"seed": -1}, "seed"),
        ({"mix": {"bogus": 1.0}}, "mix"),
        ({"mix": {"new_order": -0.5, "payment": 1.0}}, "mix"),
        ({"mix": {"new_order": "half"}}, "mix"),
        ({"mix": {}}, "mix"),
        ({"progress": "yes"}, "progress"),
    ],
)
def test_bad_config_names_the_parameter(bad, parameter, small_config):
    with pytest.raises(ValueError, match=rf"^{parameter}\b"):
        tpcc.run(**{**small_config, **bad})


def test_bad_choice_lists_allowed_values():
    with pytest.raises(ValueError, match=r"allowed: paper, spec"):
        tpcc.run(variant="foo")


def test_spec_mix_runs_every_transaction_type(small_config):
    mix = {"new_order": 45, "payment": 43, "order_status": 4, "delivery": 4, "stock_level": 4}
    result = tpcc.run(**{**small_config, "transactions": 2000}, variant="spec", mix=mix, progress=False)
    frame = result.to_frame()
    assert set(frame["txn_type"]) >= set(mix)
    assert (frame.set_index("txn_type").loc[list(mix), "commits"] > 0).all()
    assert result.consistent
    assert [c["condition"] for c in result.consistency] == [1, 2, 3, 4, 5, 6, 7, 12]


def test_engine_validates_on_its_own():
    # The native driver relies on the engine's checks, so they must hold
    # without the Python-side validation in front.
    from dbrepro import _engine

    with pytest.raises(ValueError, match=r"variant"):
        _engine.run_tpcc(variant="foo")
    with pytest.raises(ValueError, match=r"warehouses"):
        _engine.run_tpcc(warehouses=0)


def test_progress_line_is_rate_limited():
    stream = io.StringIO()
    line = tpcc.ProgressLine("tpcc", stream=stream, interval=3600)
    for done in range(100, 1001, 100):
        assert line(done, 1000) is True
    line.close()
    text = stream.getvalue()
    # The first tick is drawn, then nothing until close() shows the last one.
    assert text.count("\r") == 2 and "100/1000" in text and text.endswith("1000/1000 txns (100%), 0.0 s\n")


def test_native_driver_gives_the_same_counts(small_run, small_config):
    # dbrepro-native (used under valgrind) must run exactly the same transactions.
    import subprocess

    import dbrepro

    native = dbrepro.native_executable()
    if native is None:
        pytest.skip("dbrepro-native is not built")
    args = [str(native), "tpcc", "--variant", "paper"]
    for name in ("warehouses", "transactions", "seed"):
        args += [f"--{name}", str(small_config[name])]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True)
    native_result = tpcc.from_engine_dict(json.loads(done.stdout))
    for txn_type in tpcc.TXN_TYPES:
        ours, theirs = small_run.metrics["per_type"][txn_type], native_result.metrics["per_type"][txn_type]
        assert (ours["commits"], ours["aborts"]) == (theirs["commits"], theirs["aborts"])
    assert native_result.consistent
