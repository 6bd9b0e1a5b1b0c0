# Study `tpcc`: throughput of the dbrepro engine on TPC-C New Order / Payment,
# per transaction-input variant and number of warehouses.
#
#   raw runs  results/raw/tpcc/rep{rep}/duet_{a}+{b}/{variant}_w{warehouses}.json (the variants two by two
#             at each warehouse count, at once: dbrepro.duet), results/raw/tpcc/rep{rep}/{variant}_w{warehouses}.json
#             (a variant left over, alone)
#   table     results/tables/tpcc/throughput.csv
#   figure    results/figures/tpcc/throughput.{png,pdf}

from dbrepro import duet

TPCC = config["tpcc"]
TPCC_RUN = raw_path("tpcc", "{variant}_w{warehouses}")
TPCC_DUET_RUN = raw_path("tpcc", "duet_{a}+{b}/{cell}")
# One terminal each: the variants run two by two at each warehouse count as duets
# (dbrepro.duet: at once, one pinned to each CPU, swapped between repeats).
TPCC_DUETS = [pair for warehouses in TPCC["warehouses"]
              for pair in duet.pairs(f"{variant}_w{warehouses}" for variant in TPCC["variants"])]


def tpcc_runs(rep):
    """Every record of repeat `rep`: each duet's two, a cell left over its one."""
    return [TPCC_DUET_RUN.format(rep=rep, a=pair[0], b=pair[1], cell=cell) if len(pair) == 2
            else TPCC_RUN.format(rep=rep, variant=cell.rsplit("_w", 1)[0], warehouses=cell.rsplit("_w", 1)[1])
            for pair in TPCC_DUETS for cell in pair]


TPCC_AFTER_PREVIOUS_REPEAT = after_previous_repeat_of("tpcc", "variant-warehouses", tpcc_runs)

for _variant in TPCC["variants"]:
    for _warehouses in TPCC["warehouses"]:
        # Each cell stops at a duet's start gate (dbrepro.duet.gated_settings), one left over alone as well.
        cell_settings("tpcc", f"{_variant}_w{_warehouses}", duet.gated_settings({
            "variant": _variant, "warehouses": _warehouses, "transactions": TPCC["transactions"], "seed": TPCC["seed"]}))

STUDY_TARGETS.extend(
    [
        table_path("tpcc", "throughput"),
        *register_figure("tpcc", "throughput", table_path("tpcc", "throughput"), script="tpcc_throughput.py"),
    ]
)


rule tpcc_duet:
    """Two cells' timed TPC-C runs at once, through `dbrepro duet tpcc`: cell a on the
    first CPU in odd repeats, the second in even ones, cell b on the other."""
    input:
        TPCC_AFTER_PREVIOUS_REPEAT,
        settings_a=lambda wildcards: settings_path("tpcc", wildcards.a),
        settings_b=lambda wildcards: settings_path("tpcc", wildcards.b),
    output:
        a=TPCC_DUET_RUN.replace("{cell}", "{a}"),
        b=TPCC_DUET_RUN.replace("{cell}", "{b}"),
    log:
        log_path("tpcc", "rep{rep}/duet_{a}+{b}"),
    wildcard_constraints:
        a=r"[a-z]+_w[1-9][0-9]*",
        b=r"[a-z]+_w[1-9][0-9]*",
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} duet tpcc --repeat {wildcards.rep}"
        " --settings {input.settings_a:q} {input.settings_b:q} --out {output.a:q} {output.b:q} > {log:q} 2>&1"


rule tpcc_run:
    """One timed TPC-C run, through the `dbrepro run tpcc` command line (a variant
    left over when the profile's variants do not pair up)."""
    input:
        TPCC_AFTER_PREVIOUS_REPEAT,
        settings=lambda wildcards: settings_path("tpcc", f"{wildcards.variant}_w{wildcards.warehouses}"),
    output:
        record=TPCC_RUN,
    log:
        log_path("tpcc", "rep{rep}/{variant}_w{warehouses}"),
    wildcard_constraints:
        variant="|".join(TPCC["variants"]),
        warehouses=r"[1-9][0-9]*",
    threads: TIMED_THREADS
    resources:
        timed=1,
    # DBREPRO and PYTHON are used directly, not as params, on purpose: params
    # are part of the rerun provenance, and the interpreter's path differs
    # between `snakemake` and `python -m snakemake` (python3 vs python).
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} run tpcc --settings {input.settings:q}"
        " --no-progress --out {output.record:q} > {log:q} 2>&1"


rule tpcc_table:
    """Throughput per variant and warehouses over the repeats (median, spread)."""
    input:
        [path for rep in REPEATS for path in tpcc_runs(rep)],
    output:
        table_path("tpcc", "throughput"),
    log:
        log_path("tpcc", "throughput_table"),
    localrule: True
    script:
        "scripts/tpcc_table.py"
