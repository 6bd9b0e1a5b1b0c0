# Study `looking_glass` (E1): Harizopoulos et al., "OLTP through the looking
# glass", SIGMOD 2008. Where do a TPC-C engine's instructions go as logging,
# locking, latching and the buffer manager are removed one by one?
#
#   counts    results/raw/looking_glass/instructions/seed{seed}/step{step}_{txn}.json
#             (instructions and cycles per phase; deterministic: one run per seed)
#   ladder    results/raw/looking_glass/ladder/rep{rep}/{layout}{a}-{b}/step{step}.json (timed, two steps at
#             once: dbrepro.duet; layout split or shared), results/raw/looking_glass/ladder/rep{rep}/step{step}.json
#             (a step left over)
#   tables    results/tables/looking_glass/{instructions,instructions_seeds,switches,components,ladder,claims}.csv,
#             claims.md (instructions: the first seed's counts; instructions_seeds: every seed's)
#   figures   results/figures/looking_glass/{fig5_payment,fig6_new_order,fig7_switches,
#             fig8_instructions_vs_cycles,throughput_ladder}.{png,pdf}
#
# The paper's numbers: workflows/data/looking_glass_paper.yaml (their one source).

from dbrepro import duet, looking_glass, registry

LG = config["looking_glass"]
LG_STUDY = "looking_glass"
# The ladder's steps from the engine's registry: 0 = full stack ... 10 =
# stripped engine, 11 = optimal kernel.
LG_STEPS = sorted(row["step"] for row in registry.stacks() if row["study"] == LG_STUDY)
LG_TXNS = ["new_order", "payment"]
LG_COUNT = f"{RESULTS}/raw/{LG_STUDY}/instructions/seed{{seed}}/step{{step}}_{{txn}}.json"
# Counts are deterministic for one input, so each runs once per seed: a count
# claim holds only if it holds on every seed. The first seed's counts are the
# tables and figures; the claims read every seed's (instructions_seeds).
LG_SEEDS = LG["instructions"]["seeds"]
# The timed ladder runs in duets (dbrepro.duet, Bulej et al., ICPE 2020): two steps at
# once, swapped between repeats; each ratio a claim judges is one duet's
# (looking_glass.DUET_PAIRS), formed within it: the per-CPU-second ones with both steps on
# one CPU (layout shared), the wall-time one and the rest with one pinned to each CPU
# (split). A step left over runs alone (rule looking_glass_ladder_run, as before duets).
LG_DUETS = looking_glass.ladder_duets(LG["ladder"]["steps"])
LG_DUET_RUN = raw_path(f"{LG_STUDY}/ladder", "{layout}{a}-{b}/step{step}")
LG_LADDER_RUN = raw_path(f"{LG_STUDY}/ladder", "step{step}")


def lg_ladder_runs(rep):
    """Every timed ladder record of repeat `rep` (each duet's two, a step left over its one)."""
    paths = []
    for pair, layout in LG_DUETS:
        if len(pair) == 2:
            paths += [LG_DUET_RUN.format(rep=rep, layout=layout, a=pair[0], b=pair[1], step=step) for step in pair]
        else:
            paths.append(LG_LADDER_RUN.format(rep=rep, step=pair[0]))
    return paths


# Its repeats: the planned ones, and where the profile plans them, makeups and extra looks
# (workflows/sequential.smk; every timed finding of the study reads the ladder).
LG_LADDER_RUNS = timed_grid(LG_STUDY, "ladder", REPEATS, lg_ladder_runs)
LG_AFTER_PREVIOUS_REPEAT = after_previous_repeat_of(LG_STUDY, "ladder", lg_ladder_runs)
LG_PAPER = repo_file("workflows", "data", "looking_glass_paper.yaml")
# A flushing log (steps 0-1) writes to a file here: a known disk, not a tmpfs.
LG_LOG_DIR = f"{RESULTS}/tmp/{LG_STUDY}"


def lg_table(name):
    return table_path(LG_STUDY, name)


LG_TARGETS = [
    *(lg_table(name) for name in ("instructions", "instructions_seeds", "switches", "components", "ladder",
                                  "claims")),
    f"{RESULTS}/tables/{LG_STUDY}/claims.md",
    # Figures 5-8 of the paper and the throughput ladder, each from its table.
    *register_figure(LG_STUDY, "fig5_payment", lg_table("instructions"), LG_PAPER,
                     script="looking_glass_phases.py", args=["payment"]),
    *register_figure(LG_STUDY, "fig6_new_order", lg_table("instructions"), LG_PAPER,
                     script="looking_glass_phases.py", args=["new_order"]),
    *register_figure(LG_STUDY, "fig7_switches", lg_table("switches"), script="looking_glass_switches.py"),
    *register_figure(LG_STUDY, "fig8_instructions_vs_cycles", lg_table("components"),
                     script="looking_glass_cycles.py"),
    *register_figure(LG_STUDY, "throughput_ladder", lg_table("ladder"), script="looking_glass_ladder.py"),
]
STUDY_TARGETS.extend(LG_TARGETS)

# Every cell's settings (workflows/common.smk: settings as data).
for _seed in LG_SEEDS:
    for _step in LG_STEPS:
        for _txn in LG_TXNS:
            cell_settings(LG_STUDY, f"instructions_seed{_seed}_step{_step}_{_txn}", {
                "step": _step, "txn_type": _txn, "seed": _seed, **profile_settings(LG_STUDY, LG["instructions"])})
# The ladder's cells stop at a duet's start gate (a short warm-up, then both arms' measured
# phases start at once: dbrepro.duet.gated_settings), a step left over alone as well.
for _step in LG["ladder"]["steps"]:
    cell_settings(LG_STUDY, f"ladder_step{_step}", duet.gated_settings({
        "stack": looking_glass.stack_name(int(_step)), "warehouses": LG["ladder"]["warehouses"],
        "seconds": LG["ladder"]["seconds"], "transactions": 0, "seed": LG["ladder"]["seed"], "variant": "paper",
        "log_dir": LG_LOG_DIR}))


rule looking_glass:
    """This study's tables and figures only: `snakemake looking_glass`."""
    input:
        LG_TARGETS,
    localrule: True


rule looking_glass_instructions:
    """Instructions (and cycles) per transaction and phase of one ladder step and
    transaction type on one seed, through `dbrepro run looking_glass`. Counts do
    not depend on timing, so these run in parallel and are not repeated."""
    input:
        settings=lambda wildcards: settings_path(LG_STUDY, f"instructions_seed{wildcards.seed}_step{wildcards.step}_{wildcards.txn}"),
    output:
        record=LG_COUNT,
    log:
        log_path(LG_STUDY, "instructions/seed{seed}/step{step}_{txn}"),
    wildcard_constraints:
        step=r"[0-9]|1[01]",
        txn="|".join(LG_TXNS),
        seed=r"[0-9]+",
    threads: 1
    shell:
        "{DBREPRO} run looking_glass --settings {input.settings:q} --out {output.record:q} > {log:q} 2>&1"


rule looking_glass_ladder_duet:
    """Two ladder steps' timed runs of the 50/50 New Order / Payment mix at once
    (`dbrepro duet`): split, step a on the first CPU in odd repeats, the second in even
    ones, step b on the other; shared, both on the first CPU in odd repeats, the second
    in even ones, taking turns. The duet is guarded against foreign load as one.

    Timed jobs never overlap (timed=1), are interleaved across repeats, and
    claim every core so that no other job (a callgrind count, say) runs beside
    them and disturbs the timing."""
    input:
        LG_AFTER_PREVIOUS_REPEAT,
        settings_a=lambda wildcards: settings_path(LG_STUDY, f"ladder_step{wildcards.a}"),
        settings_b=lambda wildcards: settings_path(LG_STUDY, f"ladder_step{wildcards.b}"),
    output:
        a=LG_DUET_RUN.replace("{step}", "{a}"),
        b=LG_DUET_RUN.replace("{step}", "{b}"),
    log:
        log_path(LG_STUDY, "ladder/rep{rep}/{layout}{a}-{b}"),
    wildcard_constraints:
        layout="split|shared",
        a=r"[0-9]|1[01]",
        b=r"[0-9]|1[01]",
    params:
        log_dir=LG_LOG_DIR,
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "mkdir -p {params.log_dir:q} && {FOREIGN_LOAD_ENV} {DBREPRO} duet tpcc --repeat {wildcards.rep}"
        " --layout {wildcards.layout} --settings {input.settings_a:q} {input.settings_b:q}"
        " --out {output.a:q} {output.b:q} > {log:q} 2>&1"


rule looking_glass_ladder_run:
    """One timed run of the mix on a ladder step left over when the profile's steps do
    not pair up: alone, as before duets, in its place in the repeat."""
    input:
        LG_AFTER_PREVIOUS_REPEAT,
        settings=lambda wildcards: settings_path(LG_STUDY, f"ladder_step{wildcards.step}"),
    output:
        record=LG_LADDER_RUN,
    log:
        log_path(LG_STUDY, "ladder/rep{rep}/step{step}"),
    wildcard_constraints:
        step=r"[0-9]|1[01]",
    params:
        log_dir=LG_LOG_DIR,
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "mkdir -p {params.log_dir:q} && {FOREIGN_LOAD_ENV} {DBREPRO} run tpcc --settings {input.settings:q}"
        " --no-progress --out {output.record:q} > {log:q} 2>&1"


rule looking_glass_instructions_table:
    """Tidy table of the first seed's counts: step, label, component, txn_type, phase,
    instructions, cycles, backend (the switches, components and figures read it)."""
    input:
        records=expand(LG_COUNT, step=LG_STEPS, txn=LG_TXNS, seed=LG_SEEDS[0]),
    output:
        lg_table("instructions"),
    log:
        log_path(LG_STUDY, "instructions_table"),
    localrule: True
    script:
        "scripts/looking_glass_instructions_table.py"


rule looking_glass_instructions_seeds_table:
    """The same table for every seed (a `seed` column): what the count claims judge."""
    input:
        records=expand(LG_COUNT, step=LG_STEPS, txn=LG_TXNS, seed=LG_SEEDS),
    output:
        lg_table("instructions_seeds"),
    log:
        log_path(LG_STUDY, "instructions_seeds_table"),
    localrule: True
    script:
        "scripts/looking_glass_instructions_table.py"


rule looking_glass_switches_table:
    """Instructions removed by each of the 11 switches (Figure 7), ours and the paper's."""
    input:
        instructions=lg_table("instructions"),
        paper=LG_PAPER,
    output:
        lg_table("switches"),
    log:
        log_path(LG_STUDY, "switches_table"),
    localrule: True
    script:
        "scripts/looking_glass_switches_table.py"


rule looking_glass_components_table:
    """Each component group's share of step-0 instructions and cycles (Figure 8), ours and the paper's."""
    input:
        instructions=lg_table("instructions"),
        paper=LG_PAPER,
    output:
        lg_table("components"),
    log:
        log_path(LG_STUDY, "components_table"),
    localrule: True
    script:
        "scripts/looking_glass_components_table.py"


rule looking_glass_ladder_table:
    """Throughput per ladder step over the repeats (median, spread), beside the paper's."""
    input:
        runs=LG_LADDER_RUNS,
        paper=LG_PAPER,
    output:
        lg_table("ladder"),
    log:
        log_path(LG_STUDY, "ladder_table"),
    localrule: True
    script:
        "scripts/looking_glass_ladder_table.py"


# The paper's findings against ours (rule claims, workflows/claims.smk).
register_claims(
    LG_STUDY,
    instructions=lg_table("instructions"),
    instructions_seeds=lg_table("instructions_seeds"),
    switches=lg_table("switches"),
    components=lg_table("components"),
    ladder=lg_table("ladder"),
    runs=LG_LADDER_RUNS,
    paper=LG_PAPER,
)
# What a look at its claims reads (workflows/scripts/sequential_look.py: the ladder table built again).
register_look(
    LG_STUDY,
    instructions=lg_table("instructions"),
    instructions_seeds=lg_table("instructions_seeds"),
    switches=lg_table("switches"),
    components=lg_table("components"),
    runs=LG_LADDER_RUNS,
    paper=LG_PAPER,
)
