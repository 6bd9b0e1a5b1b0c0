"""E2's one workload definition (issue 30): the sysbench Lua script the real
MariaDB runs and the model's clients draw the same points for the same seed,
thread and settings; each thread stays in its slice of the keys."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from dbrepro import key_cache_workload as workload

ROWS = 2_000_000
needs_sysbench = pytest.mark.skipif(shutil.which("sysbench") is None,
                                    reason="needs sysbench: env/install-system-deps.sh --mariadb")


def _dump(script, *, threads, distribution, seed, points=10, events=40):
    done = subprocess.run(["sysbench", str(script), f"--threads={threads}", f"--events={events}",
                           *workload.sysbench_options(rows=ROWS, points=points, distribution=distribution, seed=seed),
                           "--dump-points=on", "run"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return workload.parse_dump(done.stdout)


@needs_sysbench
@pytest.mark.parametrize("distribution", workload.DISTRIBUTIONS)
def test_the_script_and_the_model_draw_the_same_points(tmp_path, distribution):
    script = workload.write_script(tmp_path / "select_points.lua")
    dumped = _dump(script, threads=4, distribution=distribution, seed=303)
    assert dumped and sum(len(queries) for queries in dumped.values()) == 40
    for thread, queries in dumped.items():
        assert queries == workload.model_points(seed=303, thread=thread, threads=4, rows=ROWS,
                                                distribution=distribution, points=10, queries=len(queries))
    other = _dump(script, threads=4, distribution=distribution, seed=304)
    first = next(iter(other))
    assert other[first][0] != workload.model_points(seed=303, thread=first, threads=4, rows=ROWS,
                                                    distribution=distribution, points=10, queries=1)[0]


@pytest.mark.parametrize("distribution", workload.DISTRIBUTIONS)
def test_each_thread_draws_in_its_own_slice(distribution):
    threads = 4
    for thread in range(threads):
        lo, hi = ROWS * thread // threads, ROWS * (thread + 1) // threads
        drawn = [p for query in workload.model_points(seed=1, thread=thread, threads=threads, rows=ROWS,
                                                      distribution=distribution, points=10, queries=500)
                 for p in query]
        assert lo <= min(drawn) and max(drawn) <= hi
        middle = (lo + hi) // 2
        in_band = sum(abs(p - middle) <= (hi - lo) // 200 for p in drawn) / len(drawn)
        if distribution == "special":  # sysbench's special: three in four in the middle 1% of the slice
            assert 0.70 < in_band < 0.82, in_band
        else:
            assert in_band < 0.05, in_band


def test_the_script_refuses_an_unknown_distribution_and_names_its_options():
    with pytest.raises(ValueError, match="distribution"):
        workload.sysbench_options(rows=10, points=10, distribution="zipf", seed=1)
    text = workload.script_text()
    for option in ("table_size", "random_points", "distribution", "points_seed", "dump_points"):
        assert option in text
    assert "k IN (" in text and "ENGINE = MyISAM" in text
