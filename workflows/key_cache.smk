# Study `key_cache` (E2): MariaDB's segmented key cache, "Segmented Key Cache
# Performance" (MariaDB 5.2.2). sysbench select_random_points on a MyISAM-like
# sbtest table, key cache off vs N segments, per thread count and P.
#
#   table     results/tmp/key_cache/sbtest/sbtest.{MYD,MYI}  (built once, read by every run)
#   runs      results/raw/key_cache/rep{rep}/seg{segments}.json (timed; every threads x P cell)
#   tables    results/tables/key_cache/{throughput,relative,mutex_waits,claims}.csv, claims.md
#   figures   results/figures/key_cache/{heatmap,relative}.{png,pdf}
#
# The article's numbers: workflows/data/key_cache_paper.yaml (their one source).

KC = config["key_cache"]
KC_STUDY = "key_cache"
KC_TABLE_DIR = f"results/tmp/{KC_STUDY}/sbtest"
KC_TABLE = {name: f"{KC_TABLE_DIR}/sbtest.{name}" for name in ("MYD", "MYI")}
KC_RUN = raw_path(KC_STUDY, "seg{segments}")
KC_GRID = {"segments": KC["segments"]}
KC_REPEATS = list(range(1, (KC["repeats"] or config["repeats"]) + 1))
KC_PAPER = repo_file("workflows", "data", "key_cache_paper.yaml")
KC_FIGURES = {"heatmap": ("key_cache_heatmap.py", "throughput"), "relative": ("key_cache_relative.py", "relative")}


def kc_table(name):
    return table_path(KC_STUDY, name)


KC_TARGETS = [
    *(kc_table(name) for name in ("throughput", "relative", "mutex_waits", "claims")),
    f"results/tables/{KC_STUDY}/claims.md",
    *(path for name in KC_FIGURES for path in figure_paths(KC_STUDY, name).values()),
]
STUDY_TARGETS.extend(KC_TARGETS)


rule key_cache:
    """This study's tables and figures only: `snakemake key_cache`."""
    input:
        KC_TARGETS,
    localrule: True


rule key_cache_table:
    """sysbench's sbtest: fixed-length rows in sbtest.MYD, the id and k indexes in sbtest.MYI."""
    output:
        **KC_TABLE,
    log:
        log_path(KC_STUDY, "table"),
    params:
        rows=KC["rows"],
        seed=KC["seed"],
        block_size=KC["block_size"],
        distribution=KC["distribution"],
        directory=KC_TABLE_DIR,
    threads: 1
    shell:
        "{PYTHON} -m dbrepro.key_cache build --table-dir {params.directory:q} --rows {params.rows}"
        " --seed {params.seed} --block-size {params.block_size} --distribution {params.distribution}"
        " > {log:q} 2>&1"


rule key_cache_run:
    """One timed run of every (threads, P) cell against one key_cache_segments value.

    Timed runs never overlap (timed=1), are interleaved across repeats, and
    claim every core, so nothing else runs beside the clients' threads."""
    input:
        after_previous_repeat(KC_RUN, KC_GRID),
        **KC_TABLE,
    output:
        record=KC_RUN,
    log:
        log_path(KC_STUDY, "runs/rep{rep}/seg{segments}"),
    wildcard_constraints:
        segments=r"[0-9]+",
    params:
        directory=KC_TABLE_DIR,
        threads=",".join(map(str, KC["threads"])),
        points=",".join(map(str, KC["points"])),
        warmup=KC["warmup_seconds"],
        seconds=KC["seconds"],
        buffer=KC["buffer_bytes"],
        index_fraction=KC["index_fraction"],
        division=KC["division_limit"],
        age=KC["age_threshold"],
        replacement=KC["replacement"],
        latch=KC["latch"],
        seed=KC["seed"],
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "{PYTHON} -m dbrepro.key_cache run --table-dir {params.directory:q} --segments {wildcards.segments}"
        " --threads {params.threads} --points {params.points} --warmup-seconds {params.warmup}"
        " --seconds {params.seconds} --buffer-bytes {params.buffer} --index-fraction {params.index_fraction}"
        " --division-limit {params.division}"
        " --age-threshold {params.age} --replacement {params.replacement} --latch {params.latch}"
        " --seed {params.seed}"
        " --out {output.record:q} > {log:q} 2>&1"


rule key_cache_throughput_table:
    """Queries/s per segments value, threads and P over the repeats (median, min, max), latency and mutex waits."""
    input:
        runs=expand(KC_RUN, rep=KC_REPEATS, **KC_GRID),
    output:
        kc_table("throughput"),
    log:
        log_path(KC_STUDY, "throughput_table"),
    localrule: True
    script:
        "scripts/key_cache_throughput_table.py"


rule key_cache_relative_table:
    """The article's table: (N/off - 1) in % per thread count and P, pitbull and perro beside ours."""
    input:
        throughput=kc_table("throughput"),
        paper=KC_PAPER,
    output:
        kc_table("relative"),
    log:
        log_path(KC_STUDY, "relative_table"),
    localrule: True
    script:
        "scripts/key_cache_relative_table.py"


rule key_cache_mutex_waits_table:
    """Contended key-cache mutex acquisitions per cell: total and per query."""
    input:
        throughput=kc_table("throughput"),
    output:
        kc_table("mutex_waits"),
    log:
        log_path(KC_STUDY, "mutex_waits_table"),
    localrule: True
    script:
        "scripts/key_cache_mutex_waits_table.py"


rule key_cache_claims:
    """The article's findings against ours: criteria from workflows/claims/key_cache.yaml, each cell's repeats the samples."""
    input:
        runs=expand(KC_RUN, rep=KC_REPEATS, **KC_GRID),
        paper=KC_PAPER,
        criteria=claims_criteria(KC_STUDY),
    output:
        csv=kc_table("claims"),
        md=f"results/tables/{KC_STUDY}/claims.md",
    log:
        log_path(KC_STUDY, "claims"),
    localrule: True
    script:
        "scripts/key_cache_claims.py"


rule key_cache_figure:
    """A figure of this study from one table (figures/key_cache_<name>.py)."""
    input:
        table=lambda wildcards: kc_table(KC_FIGURES[wildcards.name][1]),
        code=lambda wildcards: repo_file("figures", KC_FIGURES[wildcards.name][0]),
        style=repo_file("figures", "style.py"),
        mplstyle=repo_file("figures", "dbrepro.mplstyle"),
    output:
        png=report(
            f"results/figures/{KC_STUDY}/{{name}}.png",
            caption=report_caption(KC_STUDY, "figure"),
            category=REPORT_CATEGORIES[KC_STUDY],
        ),
        pdf=f"results/figures/{KC_STUDY}/{{name}}.pdf",
    log:
        log_path(KC_STUDY, "figure_{name}"),
    wildcard_constraints:
        name="|".join(KC_FIGURES),
    localrule: True
    shell:
        "{PYTHON} {input.code:q} {input.table:q} {output.png:q} {output.pdf:q} > {log:q} 2>&1"
