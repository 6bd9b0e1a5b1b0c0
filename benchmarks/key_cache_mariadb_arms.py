"""E2's real MariaDB: what the observer costs and how the arms are run, measured with
the workflow's own runner (`dbrepro.key_cache_mariadb.run`), one CSV row per sysbench run.

    perf-schema  the same cells with performance_schema off (timed) and on (the accounting
                 runs' instruments: KEY_CACHE::cache_lock and myisam/dfile), alternating
                 A B B A ... over --repeats, every arm in a fresh server
    arms         the same cells the two ways (`--arms switched`: one long-lived server,
                 SET GLOBAL key_cache_segments + LOAD INDEX per arm; `fresh`: a server per arm
                 started with --key-cache-segments, the article's procedure), alternating
                 A B B A ..., performance_schema off, with the server's counters (Key_blocks_*,
                 Key_read_requests/Key_reads, Threads_created, CPU, context switches, bytes
                 read, the data file's bytes in the OS page cache, idle CPU before the run)

    python benchmarks/key_cache_mariadb_arms.py perf-schema --datadir D --table D/../table.json \\
        --threads 1 4 64 --repeats 4 --out reference/key_cache/perf_schema_cost.csv
    python benchmarks/key_cache_mariadb_arms.py arms --datadir D --table T --threads 1 4 --repeats 6 \\
        --out reference/key_cache/arms_both_ways.csv

Every row carries the machine, the commit, the load average and the foreign load
(dbrepro.host_load) of its cell. Prints a summary per mode and cell (never asserts).
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
from pathlib import Path

import pandas as pd

MODES = {"perf-schema": ("off", "on"), "arms": ("switched", "fresh")}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _commit() -> str:
    here = Path(__file__).resolve().parents[1]
    done = subprocess.run(["git", "-C", str(here), "describe", "--always", "--dirty", "--abbrev=12"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() or "unknown"


def abba(modes: tuple[str, str], repeats: int) -> list[tuple[int, str]]:
    """(repeat, mode) pairs: A B, B A, A B, ... so neither mode always runs first."""
    order = []
    for r in range(1, repeats + 1):
        pair = modes if r % 2 else modes[::-1]
        order += [(r, mode) for mode in pair]
    return order


def main(argv=None) -> int:
    from dbrepro import key_cache_mariadb as kcm

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", choices=MODES)
    parser.add_argument("--datadir", required=True)
    parser.add_argument("--table", required=True)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--segments", type=int, nargs="+", default=[0, 64])
    parser.add_argument("--distribution", default="special")
    parser.add_argument("--points", type=int, default=10)
    parser.add_argument("--seconds", type=int, default=2)
    parser.add_argument("--warmup-seconds", type=int, default=1)
    parser.add_argument("--idle-probe-seconds", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--out", required=True)
    a = parser.parse_args(argv)
    kcm._stop_on_sigterm()  # a killed study stops its server as a killed workflow job does
    machine = {"machine": f"{_cpu_model()}, {os.cpu_count()} CPUs", "kernel": platform.release(),
               "commit": _commit()}
    frames = []
    for call, (repeat, mode) in enumerate(abba(MODES[a.study], a.repeats)):
        settings = dict(arms=mode, account=False) if a.study == "arms" else dict(arms="fresh", account=mode == "on")
        result = kcm.run(datadir=a.datadir, table=a.table, threads=a.threads, points=[a.points],
                         distributions=[a.distribution], segments=a.segments, seconds=a.seconds,
                         warmup_seconds=a.warmup_seconds, repeat=repeat,
                         idle_probe_seconds=a.idle_probe_seconds, **settings)
        frame = result.to_frame()
        frame.insert(0, "mode", mode)
        frame.insert(0, "call", call)
        # The call's wall time over its arms: what a way costs per arm, servers' starts included.
        frame["call_wall_seconds"] = result.metrics["host"]["wall_seconds"]
        frame["call_arms"] = len(frame)
        frame.insert(0, "study", a.study)
        for key, value in machine.items():
            frame[key] = value
        frames.append(frame)
        print(f"{a.study} repeat {repeat} {mode}: " + ", ".join(
            f"t={t} s={s} {q:.0f} q/s (foreign {f:.2f} cores)" for t, s, q, f in
            frame[["threads", "segments", "queries_per_second", "foreign_cores"]].itertuples(index=False)),
            flush=True)
        table = pd.concat(frames, ignore_index=True)
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(a.out, index=False, float_format="%.6g")  # after every call: a killed study keeps its rows
    print(summarise(table).to_string())
    return 0


def summarise(table: pd.DataFrame) -> pd.DataFrame:
    """Per mode, threads and segments: q/s, the server's CPU and context switches per query, the
    gain of each segments value over off within each call (the pair run back to back), and the
    foreign load the cells met."""
    t = table.copy()
    t["server_cpu_us_per_query"] = 1e6 * t["server_cpu_seconds"] / t["queries"]
    t["involuntary_per_query"] = t["server_involuntary_switches"] / t["queries"]
    t["voluntary_per_query"] = t["server_voluntary_switches"] / t["queries"]
    off = t[t["segments"] == 0].set_index(["call", "threads"])["queries_per_second"]
    t["gain_pct"] = [100 * (q / off.get((c, th), float("nan")) - 1) for c, th, q in
                     t[["call", "threads", "queries_per_second"]].itertuples(index=False)]
    return t.groupby(["mode", "threads", "segments"]).agg(
        qps_median=("queries_per_second", "median"), qps_min=("queries_per_second", "min"),
        qps_max=("queries_per_second", "max"), gain_pct_median=("gain_pct", "median"),
        gain_pct_min=("gain_pct", "min"), gain_pct_max=("gain_pct", "max"),
        cpu_us_per_query=("server_cpu_us_per_query", "median"), invol_per_query=("involuntary_per_query", "median"),
        vol_per_query=("voluntary_per_query", "median"), foreign_cores=("foreign_cores", "median"),
        loadavg_1m=("loadavg_1m", "median"), runs=("queries_per_second", "count"))


if __name__ == "__main__":
    sys.exit(main())
