# Study `quantum` (E4, seed 003, 2008): do CPU-bound sessions finish sooner
# under a longer scheduler quantum when several share a CPU? Sessions run
# S per CPU, pinned or free on the CPUs (placement), under the OS (SCHED_RR
# with kernel.sched_rr_timeslice_ms = Q, which needs root; SCHED_OTHER for
# comparison; Solaris's time-sharing class, the article's, emulated over
# SCHED_FIFO with a dispatcher thread: os_ts, at the article's quanta
# ts_quanta_ms, every dispatcher time and the session length times
# ts_time_scale) and under the engine's own fiber scheduler. Sessions are as long
# as the article's ratio of quantum to session makes them with our longest Q
# (scripts/quantum_sizing.py, from a calibration run on this machine).
#
#   sizing    results/raw/quantum/sizing.json (timed: the calibration)
#   runs      results/raw/quantum/rep{rep}/{scheduler}_{placement}_{workload}_q{Q}_s{S}.json (timed)
#             (os_fair has no Q: its runs are named ..._qfair_s{S}; os_ts runs are named by
#             the article's Q, before ts_time_scale)
#   tables    results/tables/quantum/{runs,workload1,workload2,claims}.csv, claims.md
#             (runs.csv: the round-robin prediction, or for os_ts the TS table's simulation,
#             and the residual beside each point; ts.csv: os_ts beside os_rr, cell by cell)
#   readings  results/tables/quantum/readings.csv: each reading of the article's "the
#             quantum was set to Q" simulated beside its numbers, and the one they select
#             (issue 55; workflows/claims/quantum.yaml's `readings`). A scheduler
#             os_ts_<reading> in the profile runs os_ts with that reading and the article's
#             start (dbrepro.quantum.article_start), pinned (qt_placements says why)
#   figure    results/figures/quantum/mean_session_time.{png,pdf}
#
# The article's numbers: workflows/data/quantum_paper.yaml (their one source).

QT = config["quantum"]
QT_STUDY = "quantum"
QT_REPEATS = list(range(1, (QT["repeats"] or config["repeats"]) + 1))
QT_PAPER = repo_file("workflows", "data", "quantum_paper.yaml")


def qt_reading(scheduler):
    """The engine's reading a scheduler os_ts_<reading> runs (None for the others)."""
    if not scheduler.startswith("os_ts_"):
        return None
    from dbrepro import _engine

    readings = {r["name"]: r for r in _engine.ts_dispatch_table()["readings"]}
    name = scheduler.removeprefix("os_ts_")
    if name not in readings:
        raise ValueError(f"quantum.schedulers: {scheduler}: no reading {name!r} (the engine's: {', '.join(readings)})")
    return readings[name]


def qt_ts(scheduler):
    """os_ts or one of its readings: the article's quanta, times ts_time_scale."""
    return scheduler == "os_ts" or qt_reading(scheduler) is not None


def qt_sessions(workload):
    """Sessions per CPU of a workload: the memory workload's own list where the profile has one."""
    own = QT.get("memory_sessions_per_cpu") if workload == "memory" else None
    return own or QT["sessions_per_cpu"]


def qt_quanta(scheduler, workload):
    """A scheduler's quanta: os_fair none; os_ts the article's (ts_quanta_ms; the memory workload its
    shortest and longest, as the article's workload 2); the others the profile's quanta_ms."""
    if scheduler == "os_fair":
        return ["fair"]
    if qt_ts(scheduler):
        ts = sorted(QT["ts_quanta_ms"])
        return [_qt_name(q) for q in (ts if workload == "cpu" else [ts[0], ts[-1]])]
    return QT["quanta_ms"]


def qt_placements(scheduler):
    """os_ts runs pinned where the profile has it (each CPU its own TS queue: the prediction's model);
    os_ts_<reading> always pinned: Linux's SCHED_FIFO keeps a queue per CPU and does not move threads
    of equal priority to even them out (an unpinned smoke run of rt left one of four sessions a CPU
    to itself), so neither Solaris's migration nor RT's one queue can be had unpinned; readings.csv
    simulates each reading pinned beside its own queues."""
    if scheduler == "os_ts" and "pinned" in QT["placements"] or qt_reading(scheduler) is not None:
        return ["pinned"]
    return QT["placements"]


def qt_scheduler_settings(scheduler):
    """The engine's settings a workflow scheduler stands for: os_ts_<reading> is os_ts with that
    reading and the article's start (its gap, its sessions' level, the update's phase drawn per run)."""
    reading = qt_reading(scheduler)
    if reading is None:
        return {"scheduler": scheduler}
    import yaml

    from dbrepro.quantum import article_start

    with open(QT_PAPER, encoding="utf-8") as file:
        start = article_start(yaml.safe_load(file))
    return {"scheduler": "os_ts", "ts_reading": reading["name"],
            **{name: start[name] for name in ("start_gap_ms", "ts_entry_level", "ts_update_phase")}}


def _qt_name(q):
    """A quantum as a cell's name has it: whole milliseconds without a decimal point."""
    return int(q) if float(q).is_integer() else q


def qt_runs():
    """Every run of one repeat, by name: scheduler x placement x workload x Q x S (os_fair has no Q)."""
    runs = {}
    for scheduler in QT["schedulers"]:
        for placement in qt_placements(scheduler):
            for workload in QT["workloads"]:
                for q in qt_quanta(scheduler, workload):
                    for s in qt_sessions(workload):
                        # By the engine table's names: the profile's settings (cpus, table_mb,
                        # latch), then the run's; os_fair ignores Q (the first one keeps it valid).
                        runs[f"{scheduler}_{placement}_{workload}_q{q}_s{s}"] = {
                            **profile_settings(QT_STUDY, QT), **qt_scheduler_settings(scheduler), "placement": placement,
                            "workload": workload, "quantum_ms": QT["quanta_ms"][0] if q == "fair" else q,
                            "sessions_per_cpu": s,
                        }
    return runs


QT_RUNS = qt_runs()
for _run, _settings in QT_RUNS.items():  # settings as data (workflows/common.smk)
    cell_settings(QT_STUDY, _run, _settings)
QT_SIZING = f"{RESULTS}/raw/{QT_STUDY}/sizing.json"
QT_RUN = raw_path(QT_STUDY, "{run}")
QT_GRID = {"run": list(QT_RUNS)}
QT_TABLES = ["runs", "workload1", "workload2", "ts"]
# Its repeats: planned, then makeups and extra looks where the profile plans them (workflows/sequential.smk).
QT_RECORDS = timed_grid(QT_STUDY, "runs", QT_REPEATS, lambda rep: expand_repeats(QT_RUN, QT_GRID, repeats=[rep]))
QT_READINGS = table_path(QT_STUDY, "readings")
QT_CRITERIA = repo_file("workflows", "claims", "quantum.yaml")
QT_TARGETS = [
    *(table_path(QT_STUDY, name) for name in (*QT_TABLES, "readings", "claims")),
    f"{RESULTS}/tables/{QT_STUDY}/claims.md",
    *register_figure(QT_STUDY, "mean_session_time", table_path(QT_STUDY, "runs"), QT_PAPER),
]
STUDY_TARGETS.extend(QT_TARGETS)


rule quantum:
    """This study's tables and figure only: `snakemake quantum`."""
    input:
        QT_TARGETS,
    localrule: True


rule quantum_sizing:
    """Session lengths at the article's ratio of quantum to session, turned
    into iterations and passes by a calibration run alone on this machine."""
    input:
        paper=QT_PAPER,
    output:
        sizing=QT_SIZING,
    log:
        log_path(QT_STUDY, "sizing"),
    params:
        longest_quantum_ms=max(QT["quanta_ms"]),
        table_mb=QT["table_mb"],
        workloads=QT["workloads"],
        # os_ts sessions: the article's times the dispatcher's scale (none where os_ts is not run)
        ts_time_scale=QT["ts_time_scale"] if any(qt_ts(s) for s in QT["schedulers"]) else None,
    threads: TIMED_THREADS
    resources:
        timed=1,
    script:
        "scripts/quantum_sizing.py"


rule quantum_run:
    """One timed run of S sessions per CPU under one scheduler, placement and
    quantum, through `dbrepro run quantum`, sized by the sizing record.
    os_rr sets the kernel's RR timeslice for the run and restores it (needs root)."""
    input:
        after_previous_repeat(QT_RUN, QT_GRID),
        sizing=QT_SIZING,
        settings=lambda wildcards: settings_path(QT_STUDY, wildcards.run),
    output:
        record=QT_RUN,
    log:
        log_path(QT_STUDY, "rep{rep}/{run}"),
    wildcard_constraints:
        run="|".join(QT_GRID["run"]),
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} run quantum --settings {input.settings:q} --sizing {input.sizing:q}"
        " --out {output.record:q} > {log:q} 2>&1"


rule quantum_tables:
    """Every run's figures (median over repeats) with the round-robin prediction
    and the residual, and the article's two tables with its numbers beside ours."""
    input:
        runs=QT_RECORDS,
        paper=QT_PAPER,
        prediction=repo_file("workflows", "scripts", "quantum_prediction.py"),
    output:
        **{name: table_path(QT_STUDY, name) for name in QT_TABLES},
    log:
        log_path(QT_STUDY, "tables"),
    localrule: True
    script:
        "scripts/quantum_tables.py"


rule quantum_readings:
    """Each reading of the article's "the quantum was set to Q" simulated over the phases the article
    could not control, beside its numbers, and the one its numbers select (issue 55). No timed run,
    but it takes the CPUs for a while: never beside a timed cell."""
    input:
        paper=QT_PAPER,
        criteria=QT_CRITERIA,
        prediction=repo_file("workflows", "scripts", "quantum_prediction.py"),
    output:
        readings=QT_READINGS,
    log:
        log_path(QT_STUDY, "readings"),
    params:
        phases=QT["reading_phases"],
    threads: TIMED_THREADS
    resources:
        timed=1,
    script:
        "scripts/quantum_readings.py"


# The article's findings against ours, and which effect our numbers show
# (rule claims, workflows/claims.smk); the findings judge the reading readings.csv selects.
register_claims(
    QT_STUDY,
    runs=table_path(QT_STUDY, "runs"),
    paper=QT_PAPER,
    prediction=repo_file("workflows", "scripts", "quantum_prediction.py"),
    readings=QT_READINGS,
    # each repeat's run: the evaluator's bootstrap needs them, runs.csv holds medians
    records=QT_RECORDS,
)
register_look(QT_STUDY, records=QT_RECORDS, paper=QT_PAPER, readings=QT_READINGS,
              prediction=repo_file("workflows", "scripts", "quantum_prediction.py"))
