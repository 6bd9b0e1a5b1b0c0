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
`looking_glass_duet` measures all three of the ladder's claimed ratios
(step 11 / 10 and 10 / 2 per CPU-second, 10 / 0 per wall second) run one
after the other (sequential: the workflow before duets) and as duet pairs
(dbrepro.duet: both steps at once, one pinned to each CPU, swapped between
repeats), and an A/A duet (step 10 on both CPUs: what the arms cost each
other), interleaved round by round so that the machine's load falls on
every mode alike:

    python benchmarks/cell_spread.py looking_glass_duet --seconds 2 --repeats 10 \
        --out reference/cell_spread-duet.csv --runs-out reference/cell_spread-duet-runs.csv

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
import time
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


# E1's ladder ratios as its claims judge them (looking_glass.DUET_PAIRS): faster step, slower step, metric.
LADDER_RATIOS = ((11, 10, "cpu_tps"), (10, 2, "cpu_tps"), (10, 0, "throughput_tps"))
# The default modes; duet_shared and duet_free: duets in dbrepro.duet's other layouts.
LADDER_MODES = ("sequential", "duet", "aa")


def ladder_settings(workdir: Path, step: int, seconds: float, name: str | None = None) -> Path:
    """A ladder cell's settings file, as the workflow's (looking_glass.smk) writes it: with the
    duet's start gate (a 100-transaction warm-up) in every mode, so that the modes differ in
    how the cells run and in nothing else."""
    import json

    from dbrepro import duet, looking_glass

    path = workdir / "settings" / f"{name or f'ladder_step{step}'}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    (workdir / "log").mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(duet.gated_settings({
        "stack": looking_glass.stack_name(step), "warehouses": 1, "seconds": seconds, "transactions": 0, "seed": 1,
        "variant": "paper", "log_dir": str(workdir / "log")})))
    return path


def ladder_row(record: dict, mode: str, repeat: int, step: int, partner, arm: str, length: float) -> dict:
    metrics = record["metrics"]
    host, pair = metrics.get("host", {}), metrics.get("duet") or {}
    return {"mode": mode, "repeat": repeat, "step": step, "partner": partner, "arm": arm, "length": length,
            "cpu": pair.get("cpu"), "throughput_tps": metrics["throughput_tps"],
            "cpu_tps": metrics["transactions"] / metrics["cpu_seconds"] if metrics["cpu_seconds"] else float("nan"),
            "foreign_cores": host.get("foreign_cores"), "steal_cores": host.get("steal_cores"),
            "overlap": pair.get("overlap"), "measured_overlap": pair.get("measured_overlap"),
            "loadavg_1m_before": (host.get("loadavg_before") or [None])[0]}


def ladder_repeat(workdir: Path, mode: str, repeat: int, seconds: float) -> list[dict]:
    """One repeat of the ladder's claimed ratios, run `mode`'s way: sequential (each step in
    a fresh process, one after the other, unpinned: the workflow before duets), duet (each
    claimed pair at once, dbrepro.duet) or aa (step 10 against itself: what a duet's arms
    cost each other). Measured only: no cell is rerun for foreign load, in any mode."""
    import subprocess

    from dbrepro import duet, read_record

    os.environ.update({"DBREPRO_MAX_FOREIGN_CORES": "", "DBREPRO_MAX_RERUNS": "0"})  # measure, never rerun
    rows = []
    if mode == "sequential":
        for step in sorted({s for pair in LADDER_RATIOS for s in pair[:2]}):
            out = workdir / f"seq_step{step}.json"
            subprocess.run(duet.study_argv("tpcc", ladder_settings(workdir, step, seconds), out), check=True,
                           stdout=subprocess.DEVNULL)
            rows.append(ladder_row(read_record(out), mode, repeat, step, None, "", seconds))
        return rows
    pairs = [(10, 10)] if mode == "aa" else [(fast, slow) for fast, slow, _ in LADDER_RATIOS]
    layout = mode.split("_", 1)[1] if mode.startswith("duet_") else "split"
    for fast, slow in pairs:
        names = ("aa_a", "aa_b") if mode == "aa" else (f"ladder_step{fast}", f"ladder_step{slow}")
        arms = [duet.Arm(name, duet.study_argv("tpcc", ladder_settings(workdir, step, seconds, name),
                                                  workdir / f"{mode}_{name}.json"), workdir / f"{mode}_{name}.json",
                         gated=True)
                for name, step in zip(names, (fast, slow))]
        duet.run(arms, repeat, echo=lambda text: None, layout=layout)
        for arm, step, partner, which in zip(arms, (fast, slow), (slow, fast), "ab"):
            rows.append(ladder_row(read_record(arm.out), mode, repeat, step, partner, which, seconds))
    return rows


def ladder_spread(runs, seconds: float) -> list[dict]:
    """Per mode and claimed ratio: the CV over the repeats of the within-repeat (sequential)
    or within-duet (duet) ratio, each arm's CV, the median ratio, and the load beside them;
    then what a duet costs its arms: the A/A duet's arm A / arm B (the same step: its CV is
    a duet ratio's floor), and step 10 in each duet (A/A included) over step 10 alone in the
    same round (how much its partner slows it: the shared L3 cache and memory bandwidth)."""
    import pandas as pd

    runs = pd.DataFrame(runs)
    out = []

    def row(mode, name, metric, fast, slow):
        joined = pd.concat([fast.rename("fast"), slow.rename("slow")], axis=1, join="inner").dropna()
        ratios = list(joined["fast"] / joined["slow"])
        sub = runs[runs["mode"] == mode]
        overlap = sub["measured_overlap"].dropna()
        out.append({"mode": mode, "ratio": name, "metric": metric, "length_s": seconds, "repeats": len(ratios),
                    "cv_ratio": round(spread(ratios), 4),
                    "ratio_median": round(statistics.median(ratios), 4) if ratios else float("nan"),
                    "cv_arm": round(spread(list(joined["fast"])), 4),
                    "cv_reference": round(spread(list(joined["slow"])), 4),
                    "loadavg_1m_median": round(float(sub["loadavg_1m_before"].median()), 2),
                    "loadavg_1m_max": round(float(sub["loadavg_1m_before"].max()), 2),
                    "foreign_cores_median": round(float(sub["foreign_cores"].median()), 3),
                    "measured_overlap_median": round(float(overlap.median()), 3) if len(overlap) else float("nan")})

    def per_repeat(rows, metric):
        return rows.groupby("repeat")[metric].median()

    for mode in [m for m in dict.fromkeys(runs["mode"]) if m != "aa"]:
        sub = runs[runs["mode"] == mode]
        for fast, slow, metric in LADDER_RATIOS:
            if mode != "sequential":
                arm, reference = sub[(sub["step"] == fast) & (sub["partner"] == slow)], \
                    sub[(sub["step"] == slow) & (sub["partner"] == fast)]
            else:
                arm, reference = sub[sub["step"] == fast], sub[sub["step"] == slow]
            row(mode, f"step{fast}/step{slow}", metric, per_repeat(arm, metric), per_repeat(reference, metric))
    aa = runs[runs["mode"] == "aa"]
    alone = runs[(runs["mode"] == "sequential") & (runs["step"] == 10)]
    for metric in ("cpu_tps", "throughput_tps") if len(aa) and len(alone) else ():
        row("aa", "step10 arm A/arm B", metric, per_repeat(aa[aa["arm"] == "a"], metric),
            per_repeat(aa[aa["arm"] == "b"], metric))
        for partner in (10, 11, 2, 0):
            mode = "aa" if partner == 10 else "duet"
            beside = runs[(runs["mode"] == mode) & (runs["step"] == 10) & (runs["partner"] == partner)]
            row(mode, f"step10 beside step{partner}/step10 alone", metric, per_repeat(beside, metric),
                per_repeat(alone, metric))
    return out


def looking_glass_duets(workdir: Path, seconds: float, repeats: int, runs_out: Path | None,
                        modes=LADDER_MODES) -> list[dict]:
    """Every mode, interleaved: round r runs repeat r of each mode, the modes' order rotating
    by round, so that the machine's load over time falls on every mode alike."""
    import pandas as pd

    modes = tuple(modes)
    runs = []
    for repeat in range(1, repeats + 1):
        shift = (repeat - 1) % len(modes)
        for mode in modes[shift:] + modes[:shift]:
            runs += ladder_repeat(workdir, mode, repeat, seconds)
        print(f"# round {repeat}/{repeats} done, load average {os.getloadavg()[0]:.2f}", file=sys.stderr, flush=True)
        if runs_out:
            pd.DataFrame(runs).to_csv(runs_out, index=False)
    return ladder_spread(runs, seconds)


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
    parser.add_argument("engine", choices=("mariadb", "model", "looking_glass", "looking_glass_duet", "fifo_cache"))
    parser.add_argument("--seconds", type=float, nargs="+", default=[1, 2, 4], help="cell lengths (s)")
    parser.add_argument("--transactions", type=int, nargs="+", default=[1000, 4000],
                        help="fifo_cache: measured transactions per cell (as many again of warm-up)")
    parser.add_argument("--threads", type=int, default=16, help="client threads (fifo_cache: terminals)")
    parser.add_argument("--points", type=int, default=10)
    parser.add_argument("--rows", type=int, default=None, help="table rows (default: quick's)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--workdir", default=None, help="keeps the table between calls (default: a temporary one)")
    parser.add_argument("--out", type=Path, default=None,
                        help="looking_glass_duet: write the table as CSV, with commit, machine and date")
    parser.add_argument("--modes", nargs="+", default=list(LADDER_MODES),
                        choices=[*LADDER_MODES, "duet_shared", "duet_free"],
                        help="looking_glass_duet: the modes, interleaved round by round")
    parser.add_argument("--runs-out", type=Path, default=None,
                        help="looking_glass_duet: every run's row (mode, repeat, step, partner, CPU, load) as CSV")
    a = parser.parse_args(argv)
    if a.engine == "looking_glass_duet":
        return looking_glass_duet_main(a)
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


def looking_glass_duet_main(a) -> int:
    import pandas as pd

    from dbrepro import provenance

    info = provenance.collect()
    commit = (info.get("git") or {}).get("commit", "")[:7] + ("+" if (info.get("git") or {}).get("dirty") else "")
    machine = f"{(info.get('host') or {}).get('cpu_model', '')} {os.cpu_count()} vCPU".strip()
    with tempfile.TemporaryDirectory(prefix="dbrepro_spread_") as tmp:
        workdir = Path(a.workdir or tmp)
        table = pd.DataFrame(looking_glass_duets(workdir, a.seconds[0], a.repeats, a.runs_out, a.modes))
    table = table.assign(commit=commit, machine=machine, date=time.strftime("%Y-%m-%d", time.gmtime()))
    if a.out:
        table.to_csv(a.out, index=False)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
