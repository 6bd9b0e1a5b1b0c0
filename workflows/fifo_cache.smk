# Study `fifo_cache` (E5): SoQoL's FIFO-based page cache. TPC-C (the full mix)
# on a disk-backed buffer pool holding a fraction of the database:
#  - timed grid: one run per replacement policy, pool fraction and terminal
#    count at `warehouses`, interleaved over the repeats (NOPM, TPM, lock
#    waits on the hit path, I/O per transaction);
#  - scale sweep: one single-terminal run per policy, pool fraction (of the
#    database's pages) and warehouse count (hit ratio and page reads per
#    transaction are counts, deterministic for a seed); one job per warehouse
#    count, its database loaded once per policy, each fraction a forked copy;
#  - page reference strings recorded at several warehouse counts, replayed
#    through every policy the engine has (whichever the profile times) at the
#    profile's pool fractions of the database's pages and of the trace's
#    distinct pages (the curve toward the article's 250 warehouses).
#
#   runs      results/raw/fifo_cache/rep{rep}/{policy}_p{percent}_t{terminals}.json (timed, interleaved);
#             one terminal: results/raw/fifo_cache/rep{rep}/duet_{a}+{b}/{policy}_p{percent}_t1.json
#             (the policies two by two at once, one pinned to each CPU: dbrepro.duet)
#   scale     results/raw/fifo_cache/scale/seed{seed}/{policy}_w{warehouses}_p{percent}.json
#   traces    results/tmp/fifo_cache/trace_w{warehouses}.txt (single-thread run, libCacheSim's plain format; its record beside)
#   tables    results/tables/fifo_cache/{throughput,scale,hit_curve,claims}.csv, claims.md
#   figures   results/figures/fifo_cache/{hit_ratio,trace_hit_ratio,nopm}.{png,pdf}
#
# SoQoL's numbers: workflows/data/fifo_cache_paper.yaml (their one source).

from dbrepro import duet, registry

FC = config["fifo_cache"]
FC_STUDY = "fifo_cache"
FC_RUN = raw_path(FC_STUDY, "{policy}_p{percent}_t{terminals}")
FC_GRID = {
    "policy": FC["policies"],
    "percent": [f"{fraction * 100:g}" for fraction in FC["fractions"]],
    "terminals": FC["terminals"],
}
FC_REPEATS = list(range(1, (FC["repeats"] or config["repeats"]) + 1))
# One terminal each: the policies run two by two at each pool fraction as duets (dbrepro.duet:
# at once, one pinned to each CPU, swapped between repeats); a policy left over, and every
# cell of more terminals (they need the whole machine), run alone.
FC_DUET_RUN = raw_path(FC_STUDY, "duet_{a}+{b}/{cell}")
FC_DUETS = [pair for percent in FC_GRID["percent"] if 1 in FC_GRID["terminals"]
            for pair in duet.pairs(f"{policy}_p{percent}_t1" for policy in FC_GRID["policy"])
            if len(pair) == 2]
FC_IN_DUETS = {cell for pair in FC_DUETS for cell in pair}


def fc_runs(rep):
    """Every timed record of repeat `rep`: each duet's two, then every cell run alone."""
    paths = [FC_DUET_RUN.format(rep=rep, a=a, b=b, cell=cell) for a, b in FC_DUETS for cell in (a, b)]
    for policy in FC_GRID["policy"]:
        for percent in FC_GRID["percent"]:
            for terminals in FC_GRID["terminals"]:
                if f"{policy}_p{percent}_t{terminals}" not in FC_IN_DUETS:
                    paths.append(FC_RUN.format(rep=rep, policy=policy, percent=percent, terminals=terminals))
    return paths


# Its repeats: planned, then makeups and extra looks where the profile plans them (workflows/sequential.smk).
FC_RUNS = timed_grid(FC_STUDY, "runs", FC_REPEATS, fc_runs)
FC_AFTER_PREVIOUS_REPEAT = after_previous_repeat_of(FC_STUDY, "-".join(FC_GRID), fc_runs)
FC_PAPER = repo_file("workflows", "data", "fifo_cache_paper.yaml")
FC_TRACE = f"{RESULTS}/tmp/{FC_STUDY}/trace_w{{warehouses}}.txt"
FC_TRACE_RECORD = f"{RESULTS}/tmp/{FC_STUDY}/trace_w{{warehouses}}.json"  # its run: database pages, warm-up references
FC_SCALE_RUN = f"{RESULTS}/raw/{FC_STUDY}/scale/seed{{seed}}/{{policy}}_w{{warehouses}}_p{{percent}}.json"
FC_SCALE_GRID = {
    "policy": FC["scale_policies"],
    "warehouses": FC["scale_warehouses"],
    "percent": [f"{fraction * 100:g}" for fraction in FC["scale_fractions"]],
}
# The scale table shows the first seed; the claims count on every seed.
FC_SCALE_SEEDS = FC["scale_seeds"]
FC_SCALE_RUNS = expand(FC_SCALE_RUN, seed=FC_SCALE_SEEDS[0], **FC_SCALE_GRID)
FC_SCALE_RUNS_ALL_SEEDS = expand(FC_SCALE_RUN, seed=FC_SCALE_SEEDS, **FC_SCALE_GRID)


# Memory of a job that holds the whole database, for the scheduler (resource
# memory_mb, workflows/common.smk): measured at 100 warehouses, 10.04 GB in
# memory (docs/fifo_cache.md), so about 100.4 MB a warehouse; a scale cell's
# forked child adds its pool, up to the largest fraction of the database.
FC_MB_PER_WAREHOUSE = 100.4

# Every cell's settings (settings as data, workflows/common.smk): the profile's run
# settings, then the cell's (the timed grid's seed is its repeat's).
for _rep in sequential_repeats(FC_REPEATS):
    for _policy in FC_GRID["policy"]:
        for _percent in FC_GRID["percent"]:
            for _terminals in FC_GRID["terminals"]:
                _cell = {**profile_settings(FC_STUDY, FC), "seed": repeat_seed(FC["seed"])(SimpleNamespace(rep=_rep)),
                         "cache_policy": _policy, "pool_fraction": float(_percent) / 100, "terminals": int(_terminals)}
                # A duet's cell stops at its start gate, the end of its warm-up (dbrepro.duet.gated_settings).
                _in_duet = f"{_policy}_p{_percent}_t{_terminals}" in FC_IN_DUETS
                cell_settings(FC_STUDY, f"rep{_rep}_{_policy}_p{_percent}_t{_terminals}",
                              duet.gated_settings(_cell) if _in_duet else _cell)
for _seed in FC_SCALE_SEEDS:
    for _warehouses in FC["scale_warehouses"]:
        cell_settings(FC_STUDY, f"scale_seed{_seed}_w{_warehouses}", {
            "warehouses": _warehouses, "seed": _seed, "transactions": FC["scale_transactions"],
            "warmup_transactions": FC["scale_warmup_transactions"], "check_consistency": False})
for _warehouses in FC["trace_warehouses"]:
    cell_settings(FC_STUDY, f"trace_w{_warehouses}", {
        "warehouses": _warehouses, "seed": FC["seed"], "transactions": FC["trace_transactions"],
        "warmup_transactions": FC["trace_warmup_transactions"]})


def fc_memory_mb(wildcards, pool_share=0.0):
    return int(FC_MB_PER_WAREHOUSE * int(wildcards.warehouses) * (1 + pool_share)) + 256


def fc_table(name):
    return table_path(FC_STUDY, name)


FC_TARGETS = [
    *(fc_table(name) for name in ("throughput", "scale", "hit_curve", "claims")),
    f"{RESULTS}/tables/{FC_STUDY}/claims.md",
    *register_figure(FC_STUDY, "hit_ratio", fc_table("scale"), FC_PAPER),
    *register_figure(FC_STUDY, "trace_hit_ratio", fc_table("hit_curve"), FC_PAPER),
    *register_figure(FC_STUDY, "nopm", fc_table("throughput"), FC_PAPER),
]
STUDY_TARGETS.extend(FC_TARGETS)


rule fifo_cache:
    """This study's tables and figures only: `snakemake fifo_cache`."""
    input:
        FC_TARGETS,
    localrule: True


rule fifo_cache_duet:
    """Two single-terminal runs on the disk-backed pool at once (`dbrepro duet
    fifo_cache`): cell a on the first CPU in odd repeats, the second in even ones."""
    input:
        FC_AFTER_PREVIOUS_REPEAT,
        settings_a=lambda wildcards: settings_path(FC_STUDY, f"rep{wildcards.rep}_{wildcards.a}"),
        settings_b=lambda wildcards: settings_path(FC_STUDY, f"rep{wildcards.rep}_{wildcards.b}"),
    output:
        a=FC_DUET_RUN.replace("{cell}", "{a}"),
        b=FC_DUET_RUN.replace("{cell}", "{b}"),
    log:
        log_path(FC_STUDY, "runs/rep{rep}/duet_{a}+{b}"),
    wildcard_constraints:
        a=r"[a-z0-9]+_p[0-9.]+_t1",
        b=r"[a-z0-9]+_p[0-9.]+_t1",
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} duet fifo_cache --repeat {wildcards.rep}"
        " --settings {input.settings_a:q} {input.settings_b:q} --out {output.a:q} {output.b:q} > {log:q} 2>&1"


rule fifo_cache_run:
    """One TPC-C run on the disk-backed pool: policy, pool at percent% of the
    database, N terminals. Timed runs never overlap and are interleaved."""
    input:
        FC_AFTER_PREVIOUS_REPEAT,
        # the profile's run settings (warehouses, transactions, warm-up, seed: the repeat's), the cell's
        settings=lambda wildcards: settings_path(
            FC_STUDY, f"rep{wildcards.rep}_{wildcards.policy}_p{wildcards.percent}_t{wildcards.terminals}"),
    output:
        record=FC_RUN,
    log:
        log_path(FC_STUDY, "runs/rep{rep}/{policy}_p{percent}_t{terminals}"),
    wildcard_constraints:
        policy="|".join(FC["policies"]),
        percent=r"[0-9.]+",
        terminals=r"[0-9]+",
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} run fifo_cache run --settings {input.settings:q}"
        " --out {output.record:q} > {log:q} 2>&1"


rule fifo_cache_throughput_table:
    """NOPM, TPM (HammerDB's definitions) with bootstrap CIs of their medians,
    hit ratio, reads and writes per transaction, lock waits on the hit path,
    CPU time and load average per policy, pool fraction and terminals."""
    input:
        runs=FC_RUNS,
    output:
        fc_table("throughput"),
    log:
        log_path(FC_STUDY, "throughput_table"),
    params:
        table="throughput",
    localrule: True
    script:
        "scripts/fifo_cache_table.py"


rule fifo_cache_scale_cells:
    """Every single-terminal run of the scale sweep at one warehouse count:
    each policy, the pool at each percent of the database's pages. One
    process loads the database once per policy and runs each fraction on a
    forked copy (fifo_cache.run_cells; each cell counts what a run of its own
    counts). Its counts do not depend on the clock, so it is not a timed run;
    the consistency check (which reads the whole database through the pool,
    long at 10+ warehouses) is left to the timed grid and the tests."""
    input:
        settings=lambda wildcards: settings_path(FC_STUDY, f"scale_seed{wildcards.seed}_w{wildcards.warehouses}"),
    output:
        records=expand(FC_SCALE_RUN, policy=FC["scale_policies"], percent=FC_SCALE_GRID["percent"], allow_missing=True),
    log:
        log_path(FC_STUDY, "scale/seed{seed}/w{warehouses}"),
    wildcard_constraints:
        warehouses=r"[0-9]+",
        seed=r"[0-9]+",
    params:
        policies=FC["scale_policies"],
        fractions=FC["scale_fractions"],
        # run_cells fills in {policy}, {warehouses}, {percent}; the seed is the job's
        out=lambda wildcards: FC_SCALE_RUN.replace("{seed}", wildcards.seed),
    threads: 1
    resources:
        memory_mb=lambda wildcards: fc_memory_mb(wildcards, max(FC["scale_fractions"])),
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} run fifo_cache cells --cache-policies {params.policies}"
        " --pool-fractions {params.fractions} --settings {input.settings:q} --out {params.out:q} > {log:q} 2>&1"


rule fifo_cache_scale_table:
    """Hit ratio and page reads per transaction per policy, warehouse count
    and pool fraction (of the database's pages), one terminal."""
    input:
        runs=FC_SCALE_RUNS,
    output:
        fc_table("scale"),
    log:
        log_path(FC_STUDY, "scale_table"),
    params:
        table="scale",
    localrule: True
    script:
        "scripts/fifo_cache_table.py"


rule fifo_cache_trace:
    """The page reference string of a single-thread TPC-C run at `warehouses`
    from the pool's cold start: the warm-up's references first, then the
    measured phase's (the string does not depend on the policy)."""
    input:
        settings=lambda wildcards: settings_path(FC_STUDY, f"trace_w{wildcards.warehouses}"),
    output:
        trace=FC_TRACE,
        record=FC_TRACE_RECORD,
    log:
        log_path(FC_STUDY, "trace_w{warehouses}"),
    wildcard_constraints:
        warehouses=r"[0-9]+",
    threads: 1
    resources:
        memory_mb=fc_memory_mb,
    shell:
        "{DBREPRO} run fifo_cache trace --settings {input.settings:q}"
        " --out {output.trace:q} --record {output.record:q} > {log:q} 2>&1"


rule fifo_cache_hit_curve:
    """Every policy the engine has (not only the profile's timed ones) replaying
    each recorded trace at every fraction of the profile's pools, of the
    database's pages and of the trace's distinct pages (`fraction_of`). Replaying
    is cheap: all seven policies at five fractions of both bases took 0.97 s of
    CPU on quick's 1-warehouse trace (233,093 references), two at one 0.50 s
    (measured at dfeef34 with a load average of 16 from other work)."""
    input:
        traces=expand(FC_TRACE, warehouses=FC["trace_warehouses"]),
        records=expand(FC_TRACE_RECORD, warehouses=FC["trace_warehouses"]),
    output:
        fc_table("hit_curve"),
    log:
        log_path(FC_STUDY, "hit_curve"),
    params:
        fractions=sorted({*FC["fractions"], *FC["scale_fractions"]}),
        policies=list(registry.policies()),
    localrule: True
    script:
        "scripts/fifo_cache_hit_curve.py"


# SoQoL's findings beside ours (rule claims, workflows/claims.smk).
register_claims(FC_STUDY, runs=FC_RUNS, scale=FC_SCALE_RUNS_ALL_SEEDS, paper=FC_PAPER)
register_look(FC_STUDY, runs=FC_RUNS, scale=FC_SCALE_RUNS_ALL_SEEDS, paper=FC_PAPER)
