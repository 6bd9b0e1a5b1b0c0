# Study `key_cache` (E2): MariaDB's segmented key cache, "Segmented Key Cache
# Performance" (MariaDB 5.2.2). sysbench select_random_points on a MyISAM-like
# sbtest table, key cache off vs N segments, per thread count and P; the
# clients reach the cache as the config's mode says (client_server: a client
# process, each query over a Unix socket to its own server thread).
#
#   table     results/tmp/key_cache/sbtest/sbtest.{MYD,MYI}  (built once, read by every run)
#   runs      results/raw/key_cache/rep{rep}/model.json (timed; every cache size x threads x P cell
#             of the grid and the extra grids, each segments value in turn per cell, the order
#             rotated by one per repeat)
#   tables    results/tables/key_cache/{throughput,relative,mutex_waits,cache_sizes,claims}.csv, claims.md,
#             model_vs_real.csv and mutex_account.csv (the model beside the real MariaDB, cell by cell)
#   mariadb   the real MariaDB beside the model (rules key_cache_mariadb*, at the end of this file)
#   figures   results/figures/key_cache/{heatmap,relative,cache_size,mariadb,mutex_account}.{png,pdf}
#             (cache_size: where a cell runs at several cache sizes; mariadb: where it runs)
#
# One workload for both engines (dbrepro.key_cache_workload): key_cache's rows
# (k = id), points, distributions and seed; the real server gets it as a
# sysbench script, the model's clients draw the same points.
#
# The article's numbers: workflows/data/key_cache_paper.yaml (their one source).

KC = config["key_cache"]
KC_STUDY = "key_cache"
KC_TABLE_DIR = f"{RESULTS}/tmp/{KC_STUDY}/sbtest"
KC_TABLE = {name: f"{KC_TABLE_DIR}/sbtest.{name}" for name in ("MYD", "MYI")}
KC_RUN = raw_path(KC_STUDY, "model")
KC_REPEATS = list(range(1, (KC["repeats"] or config["repeats"]) + 1))
KC_PAPER = repo_file("workflows", "data", "key_cache_paper.yaml")
# Each repeat's model settings (settings as data, workflows/common.smk): the profile's (its
# `repeats` is how many records, not a setting), the table, the repeat's rotation; for every
# repeat it may run (makeups: workflows/sequential.smk).
for _rep in sequential_repeats(KC_REPEATS):
    cell_settings(KC_STUDY, f"model_rep{_rep}", {**profile_settings(KC_STUDY, KC), "table_dir": KC_TABLE_DIR,
                                                 "repeat": _rep})


def kc_table(name):
    return table_path(KC_STUDY, name)


def kc_grid_options(grids):
    """The profile's extra_grids as the run command's --grid options."""
    return " ".join(
        "--grid " + ":".join(f"{key}={','.join(map(str, grid[key]))}" for key in ("threads", "points", "index_fractions"))
        for grid in grids
    )


# The real MariaDB beside the model (rules key_cache_mariadb*, at the end of this file).
KCM = KC["mariadb"]
KCM_ON = bool(KCM["enabled"])
KCM_DIR = f"{RESULTS}/tmp/{KC_STUDY}/mariadb"
KCM_DATADIR = f"{KCM_DIR}/datadir"
KCM_TABLE = f"{KCM_DIR}/table.json"
KCM_RUN = raw_path(KC_STUDY, "mariadb")
KCM_REPEATS = list(range(1, (KCM["repeats"] or config["repeats"]) + 1))
# The model's and the real server's grids (workflows/sequential.smk): the model serves only
# checks, so it gets makeups and no extra look; every finding is the real server's.
KC_RUNS = timed_grid(KC_STUDY, "model", KC_REPEATS, lambda rep: [KC_RUN.format(rep=rep)], findings=[])
KCM_RUNS = timed_grid(KC_STUDY, "mariadb", KCM_REPEATS, lambda rep: [KCM_RUN.format(rep=rep)]) if KCM_ON else []
# The mutex account's run: the same cells once more, performance_schema on, not timed.
KCM_ACCOUNT = f"{RESULTS}/raw/{KC_STUDY}/account/mariadb.json"
KCM_ACCOUNTS = [KCM_ACCOUNT] if KCM_ON else []
# The grid both runs share: the rules' params and the command's options.
KCM_RUN_PARAMS = dict(
    datadir=KCM_DATADIR,
    threads=",".join(map(str, KCM["threads"])),
    points=",".join(map(str, KC["points"])),
    distributions=",".join(KC["distributions"]),
    segments=",".join(map(str, KCM["segments"])),
    seconds=KCM["seconds"],
    warmup=KCM["warmup_seconds"],
    buffer=KCM["key_buffer_bytes"],
    seed=KC["seed"],
)
KCM_RUN_ARGS = (
    "--datadir {params.datadir:q} --table {input.table:q} --threads {params.threads} --points {params.points}"
    " --distributions {params.distributions} --segments {params.segments} --seconds {params.seconds}"
    " --warmup-seconds {params.warmup} --key-buffer-bytes {params.buffer} --seed {params.seed}"
)
KCM_TABLES = [kc_table(f"mariadb_{name}") for name in ("throughput", "gains", "relative")] if KCM_ON else []


def kc_cache_sizes_swept(cfg):
    """Whether a config runs some (threads, P) cell at more than one cache size
    (the main grid's and the extra grids' index_fractions), the cells that
    cache_sizes.csv and its figure hold."""
    kc = cfg["key_cache"]
    sizes = {}
    for grid in [kc, *(kc.get("extra_grids") or [])]:
        for threads in grid["threads"]:
            for points in grid["points"]:
                sizes.setdefault((threads, points), set()).update(grid["index_fractions"])
    return any(len(fractions) > 1 for fractions in sizes.values())


KC_CACHE_SIZE_FIGURE = (kc_cache_sizes_swept, "one cache size run: nothing swept")
KC_MARIADB_FIGURE = (lambda cfg: bool(cfg["key_cache"]["mariadb"]["enabled"]),
                     "the real MariaDB is not run (key_cache.mariadb.enabled: false)")


KC_TARGETS = [
    *(kc_table(name) for name in ("throughput", "relative", "mutex_waits", "cache_sizes", "claims")),
    f"{RESULTS}/tables/{KC_STUDY}/claims.md",
    *register_figure(KC_STUDY, "heatmap", kc_table("throughput")),
    *register_figure(KC_STUDY, "relative", kc_table("relative")),
    *register_figure(KC_STUDY, "cache_size", kc_table("cache_sizes"), drawn_when=KC_CACHE_SIZE_FIGURE),
    *register_figure(KC_STUDY, "mariadb", kc_table("mariadb_gains"), drawn_when=KC_MARIADB_FIGURE),
    *KCM_TABLES,
    kc_table("model_vs_real"),
    kc_table("mutex_account"),
    *register_figure(KC_STUDY, "mutex_account", kc_table("mutex_account")),
]
STUDY_TARGETS.extend(KC_TARGETS)


rule key_cache:
    """This study's tables and figures only: `snakemake key_cache`."""
    input:
        KC_TARGETS,
    localrule: True


rule key_cache_table:
    """sysbench's sbtest: fixed-length rows in sbtest.MYD, the id and k indexes in sbtest.MYI.
    A working file (quick: 452 MB, reference/disk.csv): removed once the model's last run has read it."""
    output:
        **{name: temp(path) for name, path in KC_TABLE.items()},
    log:
        log_path(KC_STUDY, "table"),
    params:
        rows=KC["rows"],
        seed=KC["seed"],
        block_size=KC["block_size"],
        directory=KC_TABLE_DIR,
    threads: 1
    shell:
        "{DBREPRO} run key_cache build --table-dir {params.directory:q} --rows {params.rows}"
        " --seed {params.seed} --block-size {params.block_size} --distribution id"
        " > {log:q} 2>&1"


rule key_cache_run:
    """One repeat of the model's grid: in every (threads, P) cell each key_cache_segments value in
    turn (the order rotates by one per repeat), as the real MariaDB's runner does.

    Timed runs never overlap (timed=1), run one repeat after the other, and
    claim every core, so nothing else runs beside the clients' and server's threads."""
    input:
        after_previous_repeat(KC_RUN, {}),
        **KC_TABLE,
        # The profile's model settings (its `repeats` is how many records, not a setting); the
        # repeat's own rotation is --repeat, the grid's cache sizes and extra grids are flags.
        settings=lambda wildcards: settings_path(KC_STUDY, f"model_rep{wildcards.rep}"),
    output:
        record=KC_RUN,
    log:
        log_path(KC_STUDY, "runs/rep{rep}/model"),
    params:
        index_fractions=",".join(map(str, KC["index_fractions"])),
        grids=kc_grid_options(KC["extra_grids"]),
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} run key_cache run --settings {input.settings:q}"
        " --index-fractions {params.index_fractions} {params.grids}"
        " --out {output.record:q} > {log:q} 2>&1"


rule key_cache_throughput_table:
    """Queries/s per segments value, threads and P over the repeats (median, min, max), latency and mutex waits."""
    input:
        runs=KC_RUNS,
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


rule key_cache_cache_sizes_table:
    """The cells run at several cache sizes: gain over off, hit ratio, misses, in-flight and mutex waits."""
    input:
        throughput=kc_table("throughput"),
    output:
        kc_table("cache_sizes"),
    log:
        log_path(KC_STUDY, "cache_sizes_table"),
    localrule: True
    script:
        "scripts/key_cache_cache_sizes_table.py"


# The article's findings against ours, each cell's repeats the samples
# (rule claims, workflows/claims.smk).
register_claims(
    KC_STUDY,
    settings={"mariadb_skipped": "" if KCM_ON else (KCM["skip_reason"] or "key_cache.mariadb.enabled is false")},
    runs=KC_RUNS,
    mariadb_runs=KCM_RUNS,
    model_vs_real=kc_table("model_vs_real"),
    paper=KC_PAPER,
)
register_look(KC_STUDY, runs=KC_RUNS, mariadb_runs=KCM_RUNS, paper=KC_PAPER)


rule key_cache_model_vs_real:
    """The model beside the real MariaDB, cell by cell (each engine's gain, paired by repeat
    within it), and where each spends a query's time (mutex acquisitions and waits, the
    real server's data-file reads from performance_schema in its accounting run, server CPU)."""
    input:
        model=KC_RUNS,
        mariadb=KCM_RUNS,
        account=KCM_ACCOUNTS,
    output:
        model_vs_real=kc_table("model_vs_real"),
        mutex_account=kc_table("mutex_account"),
    log:
        log_path(KC_STUDY, "model_vs_real"),
    localrule: True
    script:
        "scripts/key_cache_model_vs_real.py"


# ---------------------------------------------------------------------------
# The real system beside the model: MariaDB's own MyISAM key cache, a private
# server per repeat (dbrepro.key_cache_mariadb; its own datadir and socket,
# never the system service), sysbench's select_random_points.
#
#   datadir   results/tmp/key_cache/mariadb/datadir (+ table.json), sbtest1 as MyISAM
#   runs      results/raw/key_cache/rep{rep}/mariadb.json (timed; every cell, segments interleaved per
#             cell, each arm in a server of its own started with its key_cache_segments, as the
#             article's runs; performance_schema off)
#   account   results/raw/key_cache/account/mariadb.json (the same cells once, performance_schema's
#             key cache mutex and data file instruments on: the mutex account; not timed)
#   tables    results/tables/key_cache/mariadb_{throughput,gains,relative}.csv; its claims in claims.csv
#
# Off in a profile (key_cache.mariadb.enabled: false), its claims read
# inconclusive with the profile's skip_reason. Its settings: KCM, at the top.


rule key_cache_mariadb:
    """The real MariaDB beside the model and the article: its tables, its figure and the study's claims."""
    input:
        KCM_TABLES,
        [figure_paths(KC_STUDY, "mariadb")["png"]] if KCM_ON else [],
        kc_table("claims"),
    localrule: True


rule key_cache_mariadb_table:
    """A fresh datadir with sbtest1 as MyISAM (k = id), loaded by the workload's sysbench script
    through a private server (stopped after).
    MariaDB and sysbench are installed first where they are missing (env/install-system-deps.sh --mariadb)."""
    output:
        table=KCM_TABLE,
        # A working folder (quick: 537 MB, reference/disk.csv): removed once the last run that
        # names it (the timed runs and the account) is done.
        datadir=temp(directory(KCM_DATADIR)),
    log:
        log_path(KC_STUDY, "mariadb_table"),
    params:
        install=repo_file("env", "install-system-deps.sh"),
        rows=KC["rows"],
    threads: 1
    shell:
        "({DBREPRO} run key_cache mariadb tools || {params.install:q} --mariadb) > {log:q} 2>&1"
        " && {DBREPRO} run key_cache mariadb prepare"
        " --datadir {output.datadir:q} --rows {params.rows} --out {output.table:q} >> {log:q} 2>&1"


rule key_cache_mariadb_run:
    """One repeat of the real system's grid: in every (P, threads) cell each key_cache_segments
    value in turn (the order rotates by one per repeat), each in a private server started with
    it (--arms fresh: the article's runs set it at start), performance_schema off. Timed: claims
    every core."""
    input:
        after_previous_repeat(KCM_RUN, {}),
        table=KCM_TABLE,
        # What the runs read: named so that it is kept until they are done; ancient, since
        # every server writes into it and that must not make an earlier repeat look stale.
        datadir=ancient(KCM_DATADIR),
    output:
        record=KCM_RUN,
    log:
        log_path(KC_STUDY, "runs/rep{rep}/mariadb"),
    params:
        **KCM_RUN_PARAMS,
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} run key_cache mariadb run " + KCM_RUN_ARGS +
        " --repeat {wildcards.rep} --arms fresh --out {output.record:q} > {log:q} 2>&1"


rule key_cache_mariadb_account:
    """The real system's mutex account: the timed runs' cells once more, each arm in a fresh
    server as there, with performance_schema's KEY_CACHE::cache_lock and myisam/dfile
    instruments on (what they cost the throughput: reference/key_cache/perf_schema_cost.csv).
    Its record says `timed: false`; nothing judged reads its speed. Runs alone (timed=1), so
    that it disturbs no timed run."""
    input:
        table=KCM_TABLE,
        datadir=ancient(KCM_DATADIR),
    output:
        record=KCM_ACCOUNT,
    log:
        log_path(KC_STUDY, "runs/account/mariadb"),
    params:
        **KCM_RUN_PARAMS,
    threads: TIMED_THREADS
    resources:
        timed=1,
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} run key_cache mariadb run " + KCM_RUN_ARGS +
        " --repeat 1 --arms fresh --account --out {output.record:q} > {log:q} 2>&1"


rule key_cache_mariadb_tables:
    """The real system's throughput per cell, its gains with bootstrap CIs, and the article's
    relative table with the real system, the model, pitbull and perro side by side."""
    input:
        runs=KCM_RUNS,
        model=kc_table("throughput"),
        paper=KC_PAPER,
    output:
        throughput=kc_table("mariadb_throughput"),
        gains=kc_table("mariadb_gains"),
        relative=kc_table("mariadb_relative"),
    log:
        log_path(KC_STUDY, "mariadb_tables"),
    localrule: True
    script:
        "scripts/key_cache_mariadb_tables.py"
