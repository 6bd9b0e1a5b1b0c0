# Study `tpcc`: throughput of the dbrepro engine on TPC-C New Order / Payment,
# per transaction-input variant and number of warehouses.
#
#   raw runs  results/raw/tpcc/rep{rep}/{variant}_w{warehouses}.json
#   table     results/tables/tpcc/throughput.csv
#   figure    results/figures/tpcc/throughput.{png,pdf}

TPCC = config["tpcc"]
TPCC_RUN = raw_path("tpcc", "{variant}_w{warehouses}")
TPCC_GRID = {"variant": TPCC["variants"], "warehouses": TPCC["warehouses"]}

for _variant in TPCC["variants"]:
    for _warehouses in TPCC["warehouses"]:
        cell_settings("tpcc", f"{_variant}_w{_warehouses}", {
            "variant": _variant, "warehouses": _warehouses, "transactions": TPCC["transactions"], "seed": TPCC["seed"]})

STUDY_TARGETS.extend(
    [
        table_path("tpcc", "throughput"),
        *register_figure("tpcc", "throughput", table_path("tpcc", "throughput"), script="tpcc_throughput.py"),
    ]
)


rule tpcc_run:
    """One timed TPC-C run, through the `dbrepro run tpcc` command line."""
    input:
        after_previous_repeat(TPCC_RUN, TPCC_GRID),
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
        expand_repeats(TPCC_RUN, TPCC_GRID),
    output:
        table_path("tpcc", "throughput"),
    log:
        log_path("tpcc", "throughput_table"),
    localrule: True
    script:
        "scripts/tpcc_table.py"
