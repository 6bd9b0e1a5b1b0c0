"""Multi-threaded TPC-C through the Python API and the CLI: T terminals on
W warehouses leave a consistent database, the per-type results add up over
the terminals, and stacks that cannot run concurrently are refused with a
clear error."""
import pytest

from dbrepro import tpcc

FULL_MIX = {"new_order": 0.45, "payment": 0.43, "order_status": 0.04, "delivery": 0.04, "stock_level": 0.04}


def test_four_terminals_full_mix_is_consistent():
    result = tpcc.run(warehouses=2, transactions=1500, mix=FULL_MIX, stack="step2", terminals=4, progress=False)
    metrics = result.metrics
    assert result.config["terminals"] == 4
    assert metrics["transactions"] == 1500
    attempted = sum(t["commits"] + t["aborts"] for t in metrics["per_type"].values())
    assert attempted == 1500
    assert all("retries" in t for t in metrics["per_type"].values())
    assert result.consistent is True
    frame = result.to_frame()
    assert set(frame["terminals"]) == {4}
    assert "retries" in frame.columns


@pytest.mark.parametrize("stack", ["bare", "step3", "step5", "step10", "optimal"])
def test_stacks_without_locking_latching_or_log_refuse_terminals(stack):
    with pytest.raises(tpcc.ConfigError, match="terminals: more than 1 needs a stack with locking"):
        tpcc.run(transactions=10, stack=stack, terminals=2, progress=False)


def test_terminals_must_be_positive():
    with pytest.raises(tpcc.ConfigError, match="terminals"):
        tpcc.run(transactions=10, stack="step2", terminals=0, progress=False)


def test_cli_takes_terminals(tmp_path, python):
    out = tmp_path / "r.json"
    done = python("-m", "dbrepro", "run", "tpcc", "--stack", "step2", "--terminals", "2", "--transactions", "300",
                  "--no-progress", "--out", str(out))
    assert done.returncode == 0, done.stderr
    import json
    record = json.loads(out.read_text())
    assert record["config"]["terminals"] == 2
