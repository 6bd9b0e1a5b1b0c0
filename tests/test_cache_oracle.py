"""E5's cross-check: our replacement policies against libCacheSim (PyPI
`libcachesim`), miss for miss, on two traces: a Zipf-like synthetic one and the
page reference string recorded from a TPC-C run on the disk-backed stack.

Both sides replay the identical trace file; libCacheSim reads it as plain text
with object sizes ignored, so its cache size counts pages. Our S3-FIFO follows
libCacheSim's S3FIFO.c rules (engine/src/cache/s3fifo.hpp lists them); the
others are the textbook algorithms with libCacheSim's defaults (CLOCK: one bit,
new pages unreferenced).

The bound: S3-FIFO equals libCacheSim's from 20 frames up. Below that
libCacheSim's small queue (10% of the cache) is one page, which admits
nothing (every request misses, 10-19 frames), and below 10 frames it is
empty and libCacheSim aborts the process; ours keeps working there.
"""
from __future__ import annotations

import random
import subprocess
import sys

import pytest

lcs = pytest.importorskip("libcachesim")

from dbrepro import fifo_cache  # noqa: E402

ORACLES = {
    "lru": lambda size: lcs.LRU(size),
    "fifo": lambda size: lcs.FIFO(size),
    "clock": lambda size: lcs.Clock(size, init_freq=0, n_bit_counter=1),
    "sieve": lambda size: lcs.Sieve(size),
    "s3fifo": lambda size: lcs.S3FIFO(size, small_size_ratio=0.1, ghost_size_ratio=0.9, move_to_main_threshold=2),
}


def libcachesim_misses(policy: str, path, size: int) -> tuple[int, int]:
    reader = lcs.TraceReader(str(path), lcs.TraceType.PLAIN_TXT_TRACE, lcs.ReaderInitParam(ignore_obj_size=True))
    cache = ORACLES[policy](size)
    requests = misses = 0
    for request in reader:
        requests += 1
        misses += not cache.get(request)
    return requests, misses


def zipf_like(n: int, universe: int, skew: float, seed: int) -> list[int]:
    rng = random.Random(seed)
    weights = [1.0 / (rank + 1) ** skew for rank in range(universe)]
    ids = list(range(universe))
    rng.shuffle(ids)  # hot ids spread over the id space
    return rng.choices(ids, weights=weights, k=n)


@pytest.fixture(scope="module")
def zipf_trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("oracle") / "zipf.txt"
    ids = zipf_like(60_000, 8_000, 0.9, seed=5)
    fifo_cache.write_trace(path, ids)
    return path, fifo_cache.read_trace(path)


@pytest.fixture(scope="module")
def tpcc_trace(tmp_path_factory):
    path = tmp_path_factory.mktemp("oracle") / "tpcc.txt"
    result = fifo_cache.record_trace(path, warehouses=1, transactions=300, seed=3, progress=False)
    assert result.consistent
    return path, fifo_cache.read_trace(path)


@pytest.mark.parametrize("policy", sorted(ORACLES))
@pytest.mark.parametrize("fraction", [0.02, 0.1])
def test_zipf_misses_match_libcachesim(zipf_trace, policy, fraction):
    path, ids = zipf_trace
    size = int(len(set(ids)) * fraction)
    ours = fifo_cache.simulate(policy, ids, size)
    requests, misses = libcachesim_misses(policy, path, size)
    assert ours["requests"] == requests == len(ids)
    assert ours["misses"] == misses
    assert 0 < misses < requests  # neither everything nor nothing fits


S3FIFO_MIN_FRAMES = 20  # the bound: equality with libCacheSim from here up


@pytest.mark.parametrize("size", [S3FIFO_MIN_FRAMES, S3FIFO_MIN_FRAMES + 1, 64])
def test_s3fifo_matches_libcachesim_from_20_frames(zipf_trace, size):
    path, ids = zipf_trace
    assert fifo_cache.simulate("s3fifo", ids, size)["misses"] == libcachesim_misses("s3fifo", path, size)[1]


@pytest.mark.parametrize("size", [10, S3FIFO_MIN_FRAMES - 1])
def test_s3fifo_below_20_frames_libcachesim_admits_nothing(zipf_trace, size):
    path, ids = zipf_trace
    requests, misses = libcachesim_misses("s3fifo", path, size)
    assert misses == requests  # its one-page small queue admits nothing
    assert fifo_cache.simulate("s3fifo", ids, size)["misses"] < requests


def test_s3fifo_below_10_frames_libcachesim_aborts(zipf_trace):
    path, ids = zipf_trace
    code = ("import libcachesim as lcs; r = lcs.TraceReader(%r, lcs.TraceType.PLAIN_TXT_TRACE, "
            "lcs.ReaderInitParam(ignore_obj_size=True)); c = lcs.S3FIFO(9, small_size_ratio=0.1, "
            "ghost_size_ratio=0.9, move_to_main_threshold=2); [c.get(q) for q in r]" % str(path))
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert child.returncode != 0  # the process dies (SIGABRT), no result to compare
    assert fifo_cache.simulate("s3fifo", ids, 9)["misses"] < len(ids)


@pytest.mark.parametrize("policy", sorted(ORACLES))
@pytest.mark.parametrize("fraction", [0.05, 0.1])
def test_tpcc_trace_misses_match_libcachesim(tpcc_trace, policy, fraction):
    path, ids = tpcc_trace
    assert len(ids) > 10_000
    size = int(len(set(ids)) * fraction)
    ours = fifo_cache.simulate(policy, ids, size)
    requests, misses = libcachesim_misses(policy, path, size)
    assert ours["requests"] == requests == len(ids)
    assert ours["misses"] == misses


def test_oracle_general_trace_reads_back(tmp_path):
    ids = [3, 1, 3, 7, 1, 3]
    path = tmp_path / "t.oracleGeneral"
    fifo_cache.write_trace(path, ids, "oracle_general")
    assert fifo_cache.read_trace(path, "oracle_general") == ids
    reader = lcs.TraceReader(str(path), lcs.TraceType.ORACLE_GENERAL_TRACE)
    assert [request.obj_id for request in reader] == ids
    assert fifo_cache.simulate("lru", ids, 2)["misses"] == libcachesim_trace_misses(path, 2)


def test_csv_trace_reads_the_same_in_libcachesim(tmp_path):
    ids = [3, 1, 3, 7, 1, 3]
    path = tmp_path / "t.csv"
    fifo_cache.write_trace(path, ids, "csv")
    assert fifo_cache.read_trace(path, "csv") == ids
    params = lcs.ReaderInitParam(has_header=True, has_header_set=True, delimiter=",")
    params.obj_id_field, params.obj_size_field = 1, 2
    reader = lcs.TraceReader(str(path), lcs.TraceType.CSV_TRACE, params)
    assert [request.obj_id for request in reader] == ids


def libcachesim_trace_misses(path, size: int) -> int:
    reader = lcs.TraceReader(str(path), lcs.TraceType.ORACLE_GENERAL_TRACE, lcs.ReaderInitParam(ignore_obj_size=True))
    cache = lcs.LRU(size)
    return sum(not cache.get(request) for request in reader)
