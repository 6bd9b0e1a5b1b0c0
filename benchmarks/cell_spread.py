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
    python benchmarks/cell_spread.py looking_glass --seconds 2 4 6
    python benchmarks/cell_spread.py fifo_cache --transactions 1000 4000 --threads 8

E1's ladder pairs step 10 (the optimal kernel's neighbour: everything off)
with step 0 (the full stack) on wall-clock transactions/s, as its claim does;
E5's grid pairs soqol with lru on NOPM at 10% of the database, each repeat on
its own seed (the workflow's `repeat_seed`), `--threads` being terminals.

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
    script = kcm.key_cache_workload.write_script(kcm.script_path(datadir))
    common = dict(threads=threads, points=points, distribution="special", rows=rows, seed=303)
    with PrivateServer(datadir, options=kcm.server_options(kcm.buffer_for_index(index_bytes))) as server:
        for _ in range(repeats):
            kcm.warm_up(server, paths, script, seconds=1, **common)  # one per cell, as the workflow's runs
            for segments in arms:
                run = kcm.one_run(server, paths, script, segments=segments, seconds=int(seconds), **common)
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


def looking_glass_arms(workdir: Path, rows: int, seconds: float, threads: int, points: int, repeats: int):
    import json
    import subprocess

    from dbrepro import looking_glass

    # Each run in a fresh process, as the workflow's rule runs it (a process's
    # first seconds are slower than its later ones: an in-process loop would
    # measure something else).
    (workdir / "log").mkdir(parents=True, exist_ok=True)
    arms = {0: [], 10: []}  # ladder step -> throughput_tps (the claim step 10 / step 0)
    for _ in range(repeats):
        for step in arms:
            out = workdir / f"step{step}.json"
            subprocess.run([sys.executable, "-m", "dbrepro", "run", "tpcc", "--stack", looking_glass.stack_name(step),
                            "--warehouses", "1", "--seconds", f"{seconds:g}", "--transactions", "0", "--seed", "1",
                            "--variant", "paper", "--log-dir", str(workdir / "log"), "--no-progress",
                            "--out", str(out)], check=True, stdout=subprocess.DEVNULL)
            arms[step].append(float(json.loads(out.read_text())["metrics"]["throughput_tps"]))
    return arms


def fifo_cache_arms(workdir: Path, transactions: int, terminals: int, repeats: int):
    from dbrepro import fifo_cache

    arms = {"lru": [], "soqol": []}  # policy -> NOPM (the claim soqol / lru)
    for repeat in range(1, repeats + 1):
        for policy in arms:
            result = fifo_cache.run(policy, 0.1, warehouses=1, transactions=transactions,
                                    warmup_transactions=transactions, terminals=terminals, seed=repeat,
                                    data_dir=str(workdir))
            arms[policy].append(float(result.to_frame().iloc[0]["nopm"]))
    return arms


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine", choices=("mariadb", "model", "looking_glass", "fifo_cache"))
    parser.add_argument("--seconds", type=float, nargs="+", default=[1, 2, 4], help="cell lengths (s)")
    parser.add_argument("--transactions", type=int, nargs="+", default=[1000, 4000],
                        help="fifo_cache: measured transactions per cell (as many again of warm-up)")
    parser.add_argument("--threads", type=int, default=16, help="client threads (fifo_cache: terminals)")
    parser.add_argument("--points", type=int, default=10)
    parser.add_argument("--rows", type=int, default=None, help="table rows (default: quick's)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workdir", default=None, help="keeps the table between calls (default: a temporary one)")
    a = parser.parse_args(argv)
    rows = a.rows or 2_000_000  # quick's table, the same for the model and MariaDB
    arms_of = {"mariadb": mariadb_arms, "model": model_arms, "looking_glass": looking_glass_arms}.get(a.engine)
    lengths = a.transactions if a.engine == "fifo_cache" else a.seconds
    with tempfile.TemporaryDirectory(prefix="dbrepro_spread_") as tmp:
        workdir = Path(a.workdir or tmp)
        # reference / arm: the first arm is the reference, the second the configuration judged against it.
        print("engine,length,threads,points,repeats,cv_reference,cv_arm,cv_ratio,ratio_median,loadavg_1m_after")
        for length in lengths:
            if arms_of is None:
                arms = fifo_cache_arms(workdir, int(length), a.threads, a.repeats)
            else:
                arms = arms_of(workdir, rows, length, a.threads, a.points, a.repeats)
            reference, arm = arms.values()
            ratios = [on / off for on, off in zip(arm, reference)]
            print(f"{a.engine},{length:g},{a.threads},{a.points},{a.repeats},{spread(reference):.4f},"
                  f"{spread(arm):.4f},{spread(ratios):.4f},{statistics.median(ratios):.4f},"
                  f"{os.getloadavg()[0]:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
