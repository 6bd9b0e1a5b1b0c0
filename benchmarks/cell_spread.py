"""How long must a timed cell be? Prints the spread of E2's cells against their length.

For each cell length, runs one E2 cell (segments off, then 32 segments, back to
back: what one repeat of the workflow does) `--repeats` times in a row, and
prints the coefficient of variation (standard deviation / mean) of each arm's
queries/s over those repeats and of the within-repeat ratio (32 / off), the
quantity a paired effect rests on. Issue 29 asks for cells no shorter than what
gives a within-repeat CV under 5% on a quiet machine; run this when nothing
else runs, and read the load average it prints beside each length.

    python benchmarks/cell_spread.py mariadb --seconds 1 2 4 --threads 16
    python benchmarks/cell_spread.py model --seconds 0.5 1 2 --threads 16

Prints numbers only (never asserts): speed targets live in benchmarks.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path


def spread(values: list[float]) -> float:
    return statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else float("nan")


def mariadb_arms(workdir: Path, rows: int, seconds: float, threads: int, points: int, repeats: int):
    from dbrepro import key_cache_mariadb as kcm
    from dbrepro.mariadb_server import PrivateServer

    datadir = workdir / "datadir"
    if not (datadir / kcm.DATABASE).is_dir():
        kcm.prepare(datadir, rows=rows)
    paths = kcm.tools()
    index_bytes = (datadir / kcm.DATABASE / f"{kcm.TABLE}.MYI").stat().st_size
    arms = {0: [], 32: []}
    with PrivateServer(datadir, options=kcm.server_options(kcm.buffer_for_index(index_bytes))) as server:
        for _ in range(repeats):
            for segments in arms:
                run = kcm.one_run(server, paths, segments=segments, threads=threads, points=points,
                                  seconds=int(seconds), warmup_seconds=1, rows=rows, seed=303)
                arms[segments].append(run["queries_per_second"])
    return arms


def model_arms(workdir: Path, rows: int, seconds: float, threads: int, points: int, repeats: int):
    from dbrepro import key_cache

    table = workdir / "sbtest"
    if not (table / "sbtest.MYI").is_file():
        table.mkdir(parents=True, exist_ok=True)
        key_cache.build_table(str(table), rows=rows, seed=1)
    arms = {0: [], 32: []}
    for repeat in range(1, repeats + 1):
        result = key_cache.run(table_dir=table, segments=(0, 32), repeat=repeat, threads=[threads],
                               points=[points], seconds=seconds, warmup_seconds=0.2)
        for cell in result.metrics["cells"]:
            arms[int(cell["segments"])].append(float(cell["queries_per_second"]))
    return arms


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine", choices=("mariadb", "model"))
    parser.add_argument("--seconds", type=float, nargs="+", default=[1, 2, 4], help="cell lengths (s)")
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--points", type=int, default=10)
    parser.add_argument("--rows", type=int, default=None, help="table rows (default: quick's)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workdir", default=None, help="keeps the table between calls (default: a temporary one)")
    a = parser.parse_args(argv)
    rows = a.rows or (200_000 if a.engine == "mariadb" else 1_000_000)
    arms_of = mariadb_arms if a.engine == "mariadb" else model_arms
    with tempfile.TemporaryDirectory(prefix="dbrepro_spread_") as tmp:
        workdir = Path(a.workdir or tmp)
        print("engine,seconds,threads,points,repeats,cv_off,cv_32,cv_ratio,ratio_median,loadavg_1m_after")
        for seconds in a.seconds:
            arms = arms_of(workdir, rows, seconds, a.threads, a.points, a.repeats)
            ratios = [on / off for on, off in zip(arms[32], arms[0])]
            print(f"{a.engine},{seconds:g},{a.threads},{a.points},{a.repeats},{spread(arms[0]):.4f},"
                  f"{spread(arms[32]):.4f},{spread(ratios):.4f},{statistics.median(ratios):.4f},"
                  f"{os.getloadavg()[0]:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
