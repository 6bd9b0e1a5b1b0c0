# Study `openedge` (E3, seed 002): OpenEdge 12's server features stacked one on
# another - latch factor and optimistic index access, multi-threaded servers,
# server-side join - timed on the same remote work: U users running the
# article's 7-table join over loopback TCP against M servers, which each run
# starts and stops itself (ports picked by the system).
#
#   runs      results/raw/openedge/rep{rep}/ladder.json (timed; every ladder step, 0 1 2 3)
#             results/raw/openedge/scan.json (counts: baseline and bht on the scan workload)
#             results/raw/openedge/rep{rep}/latency.json (timed; mtdbs and ssj with latency_us added)
#   tables    results/tables/openedge/{runs,ladder,users,traffic,scan,latency,claims}.csv, claims.md
#   figures   results/figures/openedge/{ladder,user_stddev,traffic}.{png,pdf}
#
# The article's numbers: workflows/data/openedge_paper.yaml (their one source).

OE = config["openedge"]
OE_STUDY = "openedge"
OE_RUN = raw_path(OE_STUDY, "ladder")
OE_REPEATS = list(range(1, (OE["repeats"] or config["repeats"]) + 1))
# The optimistic cursor measured where it matters: an index scan whose cursor
# stays in one index block for many records (counts, so one pass of two steps).
OE_SCAN_RUN = f"{RESULTS}/raw/{OE_STUDY}/scan.json"
OE_SCAN_STEPS = [0, 1]
# SSJ against MTDBS again with latency added to every client request: the
# article's "the gain grows with latency" (0 in the profile: no such runs).
OE_LATENCY_RUN = raw_path(OE_STUDY, "latency")
OE_LATENCY_STEPS = [2, 3]
OE_LATENCY_ON = OE["latency_us"] > 0


def oe_runs(rep):
    """A repeat's timed records: the ladder's, then (latency on) the latency run's."""
    return [OE_RUN.format(rep=rep)] + ([OE_LATENCY_RUN.format(rep=rep)] if OE_LATENCY_ON else [])


# One grid for makeups and looks (workflows/sequential.smk): a latency run follows its ladder run.
OE_GRID_RUNS = timed_grid(OE_STUDY, "ladder", OE_REPEATS, oe_runs)
OE_LADDER_RUNS = (OE_GRID_RUNS.subset(lambda rep: [OE_RUN.format(rep=rep)]) if isinstance(OE_GRID_RUNS, GridRuns)
                  else expand(OE_RUN, rep=OE_REPEATS))
OE_LATENCY_RUNS = (OE_GRID_RUNS.subset(lambda rep: [OE_LATENCY_RUN.format(rep=rep)] if OE_LATENCY_ON else [])
                   if isinstance(OE_GRID_RUNS, GridRuns)
                   else expand(OE_LATENCY_RUN, rep=OE_REPEATS) if OE_LATENCY_ON else [])
OE_PAPER = repo_file("workflows", "data", "openedge_paper.yaml")
OE_TABLES = ["runs", "ladder", "users", "traffic", "scan", "latency"]


def oe_table(name):
    return table_path(OE_STUDY, name)


def oe_settings(cell, **run):
    """Registers one run's settings: the profile's openedge settings (its `repeats`
    are timed passes, not the engine's repeats within a run; the seed and steps are
    the run's own), then the run's; the file's path."""
    shared = profile_settings(OE_STUDY, OE, leave_out=("repeats", "seed", "steps", "message_delay_us"))
    return cell_settings(OE_STUDY, cell, {**shared, **run})


for _rep in sequential_repeats(OE_REPEATS):
    _seed = repeat_seed(OE["seed"])(SimpleNamespace(rep=_rep))  # a repeat's runs share its seed
    oe_settings(f"ladder_rep{_rep}", seed=_seed, steps=OE["steps"])
    oe_settings(f"latency_rep{_rep}", seed=_seed, steps=OE_LATENCY_STEPS, message_delay_us=OE["latency_us"],
                repeats=1)


OE_TARGETS = [
    *(oe_table(name) for name in (*OE_TABLES, "claims")),
    f"{RESULTS}/tables/{OE_STUDY}/claims.md",
    *register_figure(OE_STUDY, "ladder", oe_table("ladder")),
    *register_figure(OE_STUDY, "user_stddev", oe_table("users")),
    *register_figure(OE_STUDY, "traffic", oe_table("traffic")),
]
STUDY_TARGETS.extend(OE_TARGETS)


rule openedge:
    """This study's tables and figures only: `snakemake openedge`."""
    input:
        OE_TARGETS,
    localrule: True


rule openedge_run:
    """One timed pass over the ladder (steps 0 1 2 3, each with fresh servers
    and connections) through `dbrepro run openedge`; repeats are
    interleaved, never overlap, and claim every core."""
    input:
        after_previous_repeat(OE_RUN, {}),
        # and after the previous repeat's latency run: ladder, latency, ladder, ...
        lambda wildcards: [ancient(OE_LATENCY_RUN.format(rep=int(wildcards.rep) - 1))]
        if OE_LATENCY_ON and int(wildcards.rep) > 1 else [],
        settings=lambda wildcards: settings_path(OE_STUDY, f"ladder_rep{wildcards.rep}"),
    output:
        record=OE_RUN,
    log:
        log_path(OE_STUDY, "rep{rep}/ladder"),
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} run openedge --settings {input.settings:q} --out {output.record:q} > {log:q} 2>&1"


rule openedge_scan_run:
    """Baseline and bht on the scan workload (each user scans its share of
    Table1 through the index): the hash lookups the optimistic cursor avoids
    per index block. Counts, one pass; timed=1 keeps it off the timed runs."""
    input:
        settings=oe_settings("scan", seed=OE["seed"], workload="scan", steps=OE_SCAN_STEPS, repeats=1),
    output:
        record=OE_SCAN_RUN,
    log:
        log_path(OE_STUDY, "scan"),
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} run openedge --settings {input.settings:q} --out {output.record:q} > {log:q} 2>&1"


rule openedge_latency_run:
    """MTDBS and SSJ with the profile's latency added to every client request,
    repeat {rep} after the ladder's repeat {rep} (so the two alternate)."""
    input:
        after_previous_repeat(OE_LATENCY_RUN, {}),
        ladder=lambda wildcards: ancient(OE_RUN.format(rep=wildcards.rep)),
        settings=lambda wildcards: settings_path(OE_STUDY, f"latency_rep{wildcards.rep}"),  # its ladder's seed
    output:
        record=OE_LATENCY_RUN,
    log:
        log_path(OE_STUDY, "rep{rep}/latency"),
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} run openedge --settings {input.settings:q} --out {output.record:q} > {log:q} 2>&1"


rule openedge_tables:
    """Every run, and per step over the repeats: time (median, min, max) and its
    change beside the article's, per-user spread, traffic on the wire."""
    input:
        runs=OE_LADDER_RUNS,
        scan=OE_SCAN_RUN,
        latency=OE_LATENCY_RUNS,
        paper=OE_PAPER,
    output:
        **{name: oe_table(name) for name in OE_TABLES},
    log:
        log_path(OE_STUDY, "tables"),
    localrule: True
    script:
        "scripts/openedge_tables.py"


# The article's findings against ours (rule claims, workflows/claims.smk).
register_claims(
    OE_STUDY,
    runs=oe_table("runs"),
    traffic=oe_table("traffic"),
    scan=oe_table("scan"),
    latency=oe_table("latency"),
    paper=OE_PAPER,
)
# What a look at its claims reads (workflows/scripts/sequential_look.py: its tables built again).
register_look(OE_STUDY, runs=OE_LADDER_RUNS, scan=OE_SCAN_RUN, latency=OE_LATENCY_RUNS, paper=OE_PAPER)
