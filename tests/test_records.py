"""Raw-run records on disk: atomic writes, clear errors, loading many."""
from __future__ import annotations

import json
import os

import pytest

from dbrepro import load_runs, read_record, write_record
from dbrepro.result import RecordError, RunResult


def example_record(**metrics):
    """A minimal record of a kind with no special table form."""
    return {
        "schema_version": 1,
        "kind": "example",
        "config": {"size": 3},
        "metrics": {"seconds": 1.5, **metrics},
        "provenance": {"git": {"commit": "abc", "dirty": False}, "host": {"hostname": "h"}},
    }


def test_write_then_read(tmp_path):
    path = write_record(example_record(), tmp_path / "sub" / "run.json")
    assert read_record(path) == example_record()
    assert sorted(os.listdir(path.parent)) == ["run.json"]  # no temporary file left


def test_write_replaces_whole_file(tmp_path):
    path = tmp_path / "run.json"
    path.write_text("x" * 10_000)
    write_record(example_record(), path)
    assert json.loads(path.read_text()) == example_record()


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    def fail(*_args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_record(example_record(), tmp_path / "run.json")
    assert os.listdir(tmp_path) == []


def test_write_refuses_non_records(tmp_path):
    with pytest.raises(RecordError, match="missing section"):
        write_record({"kind": "example"}, tmp_path / "run.json")
    with pytest.raises(ValueError):  # NaN is not JSON
        write_record(example_record(value=float("nan")), tmp_path / "run.json")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "content, problem",
    [
        ("not json at all", "invalid JSON"),
        ("[1, 2, 3]", "expected a JSON object"),
        ('{"kind": "tpcc"}', "missing section"),
        (json.dumps({**example_record(), "schema_version": 99}), "schema_version 99"),
    ],
)
def test_bad_file_gives_clear_error(tmp_path, content, problem):
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(RecordError, match=problem) as error:
        read_record(path)
    assert str(path) in str(error.value) and "not a dbrepro record" in str(error.value)


def test_binary_file_gives_clear_error(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(RecordError, match="not a dbrepro record"):
        read_record(path)


def test_generic_kind_gives_one_row(tmp_path):
    frame = RunResult.from_dict(example_record(size=4)).to_frame()
    assert len(frame) == 1
    row = frame.iloc[0]
    # A metric named like a config key does not overwrite it.
    assert row["size"] == 3 and row["metric_size"] == 4 and row["kind"] == "example"
    assert row["git_commit"] == "abc"


def test_load_runs_concatenates(tmp_path, small_run):
    paths = [write_record(small_run, tmp_path / f"run{i}.json") for i in range(2)]
    paths.append(write_record(example_record(), tmp_path / "other.json"))
    frame = load_runs(paths)
    assert len(frame) == 2 * 2 + 1  # two tpcc runs of two transaction types, one example
    assert frame["source"].nunique() == 3
    assert set(frame["kind"]) == {"tpcc", "example"}


def test_commit_outside_a_repository_comes_from_the_image(monkeypatch):
    from dbrepro import provenance

    monkeypatch.setattr(provenance, "_git", lambda *args, **kwargs: None)  # no repository anywhere
    monkeypatch.delenv("DBREPRO_SOURCE_COMMIT", raising=False)
    assert provenance.git_info()["commit"] == provenance.UNKNOWN
    monkeypatch.setenv("DBREPRO_SOURCE_COMMIT", "0123abcd")
    info = provenance.git_info()
    assert info["commit"] == "0123abcd" and "image" in info["source"]
