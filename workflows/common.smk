# Shared by every study: where files go, how timed runs are ordered, and the
# list of final targets that rule `all` collects.
#
# Path layout, per study:
#   results/raw/<study>/rep<r>/<run>.json    one raw-run record per timed run
#   results/logs/<study>/...                 one log per job
#   results/tables/<study>/<name>.csv        summaries
#   results/figures/<study>/<name>.{png,pdf}

import functools
import os
import shlex
import sys

# The interpreter running Snakemake is the one with dbrepro installed: use it
# for every command so `snakemake` need not be on an activated venv's PATH.
PYTHON = shlex.quote(sys.executable)
DBREPRO = f"{PYTHON} -m dbrepro"
# The repository root (where the main Snakefile lives); the working directory
# may be elsewhere (`--directory`).
REPO = workflow.basedir
# Every job's dbrepro finds this checkout's criteria and committed runs through it
# (dbrepro.source: an installed, not editable, package, as in the Docker image).
os.environ["DBREPRO_REPO"] = REPO

# Where this run writes everything (raw records, tables, figures, logs, the
# summary, the paper): `results` by default; `make repro` names one folder per
# run (results/<profile>, results/<profile>+<overrides>). A relative path
# inside the working tree, so that a run never writes outside it unasked.
RESULTS = str(config.get("results_dir") or "results").rstrip("/")
if os.path.isabs(RESULTS) or ".." in RESULTS.split("/") or not RESULTS.split("/")[0] == "results":
    raise ValueError(f"results_dir: {RESULTS!r} must be results or a folder under results/ (a relative path)")

# Final outputs of every study; each study's .smk extends it.
STUDY_TARGETS = []

# Repeats are numbered from 1.
REPEATS = list(range(1, config["repeats"] + 1))


wildcard_constraints:
    rep=r"[1-9][0-9]*",


def raw_path(study, name):
    """Raw-run record of run `name` in repeat `{rep}` (a wildcard)."""
    return f"{RESULTS}/raw/{study}/rep{{rep}}/{name}.json"


def log_path(study, name):
    return f"{RESULTS}/logs/{study}/{name}.log"


def table_path(study, name):
    return f"{RESULTS}/tables/{study}/{name}.csv"


def figure_paths(study, name):
    """The PNG and PDF of one figure, as a dict for named outputs."""
    return {ext: f"{RESULTS}/figures/{study}/{name}.{ext}" for ext in ("png", "pdf")}


def repo_file(*parts):
    """A file of the repository (figure scripts, styles), as an absolute path."""
    return os.path.join(REPO, *parts)


def claims_criteria(study):
    """The study's claims criteria (workflows/claims/<study>.yaml), an input of its claims rule."""
    return repo_file("workflows", "claims", f"{study}.yaml")


# Each study's claims: what its claims script reads (name -> files) and its
# settings, registered by the study's .smk; one rule (workflows/claims.smk)
# judges every study with workflows/scripts/<study>_claims.py.
CLAIMS = {}


def register_claims(study, settings=None, **inputs):
    CLAIMS[study] = {"input": inputs, "settings": settings or {}}


# Each study's figures, registered by its .smk; one rule (workflows/figures.smk)
# draws every one with its script in figures/.
FIGURES = {}
# The figures this run leaves out because its config does not produce their
# data: study -> name -> {"why": ..., "drawn_by": the profiles that draw it}.
# Neither drawn nor captioned; the report's summary names them (summary.smk).
FIGURES_LEFT_OUT = {}
PROFILES = ("smoke", "quick", "full")  # config/<profile>.yaml


@functools.cache
def profile_config(name):
    """config/<name>.yaml as written (no defaults filled in)."""
    import yaml

    with open(repo_file("config", f"{name}.yaml"), encoding="utf-8") as file:
        return yaml.safe_load(file)


def register_figure(study, name, *tables, script=None, args=(), drawn_when=None):
    """Figure `name` of `study`: figures/<script> (default <study>_<name>.py)
    called with `args` (words such as a transaction type), then `tables` (the
    files it plots, the original's numbers among them), then the PNG and PDF
    it writes to results/figures/<study>/<name>. Returns those two paths.

    drawn_when: (test, why) for a figure that not every config has data for:
    test(config) says whether a config produces it (this run's config, and
    each profile's, to say which draw it), `why` what a config without it
    lacks. Where this run's does not, the figure is left out (no paths
    returned, no rule instance, no caption) and FIGURES_LEFT_OUT records it."""
    if drawn_when is not None:
        test, why = drawn_when
        if not test(config):
            FIGURES_LEFT_OUT.setdefault(study, {})[name] = {
                "why": why, "drawn_by": [profile for profile in PROFILES if test(profile_config(profile))]}
            return []
    FIGURES.setdefault(study, {})[name] = {
        "script": script or f"{study}_{name}.py",
        "tables": list(tables),
        "args": [str(arg) for arg in args],
    }
    return list(figure_paths(study, name).values())


def figures_left_out_text():
    """One line per figure this run leaves out: why, and which profiles draw it."""
    lines = []
    for study, figures in FIGURES_LEFT_OUT.items():
        for name, left in figures.items():
            drawn = ", ".join(left["drawn_by"]) or "no profile"
            lines.append(f"{study}/{name}: not drawn: {left['why']}; drawn by {drawn}")
    return lines


def expand_repeats(pattern, grid, repeats=None):
    """Every path of `pattern` over the repeats and a grid of wildcard lists."""
    return expand(pattern, rep=REPEATS if repeats is None else repeats, **grid)


# Each grid of timed runs whose repeats wait on a barrier (after_previous_repeat):
# "<study>/<its axes>" -> {"runs": a function of the repeat listing its runs}.
REPEAT_GRIDS = {}


def after_previous_repeat(pattern, grid):
    """Input function ordering timed runs as A B C, A B C, ... (interleaved).

    Every run of `pattern` in repeat r waits for all runs of the grid in
    repeat r-1, so slow drift of the machine (thermal, other tenants) spreads
    over all configurations instead of biasing whichever ran last. Where a
    repeat holds more than one run, the wait goes through one barrier per
    repeat (rule repeat_done: its inputs are the repeat's runs), so that the
    workflow's graph grows with the runs, not with their square (the full
    profile's 144 E4 runs a repeat). The dependency is for ordering only:
    ancient() keeps a re-run of repeat r-1 from forcing repeat r to re-run.
    """
    study = pattern[len(RESULTS) + 1:].split("/")[1]  # <results>/raw/<study>/...
    name = "-".join(grid)  # the grid's axes, e.g. policy-percent-terminals
    return after_previous_repeat_of(study, name, lambda rep: expand_repeats(pattern, grid, repeats=[rep]))


# The machine's fingerprint at the run's start (workflows/machine.smk): every timed grid's first
# repeat waits for it, so the primitive costs are measured before the first timed cell.
MACHINE_START = f"{RESULTS}/machine/start.json"


def after_previous_repeat_of(study, name, runs_of):
    """after_previous_repeat for a repeat whose runs are not one pattern over a grid
    (duets: each pair's two records): runs_of(rep) lists repeat rep's records; `name`
    names the grid's barrier (results/tmp/<study>/repeats/<name>/rep<r>.done)."""
    runs_per_repeat = len(runs_of(1))
    if runs_per_repeat > 1:
        REPEAT_GRIDS[f"{study}/{name}"] = {"runs": runs_of}
        barrier = f"{RESULTS}/tmp/{study}/repeats/{name}/rep{{rep}}.done"

    def inputs(wildcards):
        rep = int(wildcards.rep)
        if rep <= 1:
            return [ancient(MACHINE_START)]
        if runs_per_repeat > 1:
            return [ancient(barrier.format(rep=rep - 1))]
        return [ancient(path) for path in runs_of(rep - 1)]

    return inputs


def repeat_seed(base):
    """Params function: repeat r of a timed grid runs on seed `base` + r - 1.

    Every configuration of one repeat shares its seed, so a timed effect (paired
    within the repeat) compares like with like; the counts a timed grid also
    yields (E3's bytes and lookups, E5's single-terminal hits) are then counted
    on as many inputs as there are repeats, and a count claim holds only if it
    holds on every one (workflows/claims/ fixes how many it needs)."""
    return lambda wildcards: int(base) + int(wildcards.rep) - 1


# Foreign load (issue 29): the criteria file fixes how much CPU outside a
# run's own process tree a timed cell may see, and how often a disturbed cell
# is run again; every timed command gets both (dbrepro.host_load reads them
# from these environment variables: `dbrepro run tpcc` has no options for them).
FOREIGN_LOAD_CRITERIA = repo_file("workflows", "claims", "foreign_load.yaml")


def foreign_load_settings(path=FOREIGN_LOAD_CRITERIA):
    """max_foreign_cores, max_reruns and (optional, else None) persistent_after from the
    criteria file, checked."""
    import yaml

    with open(path, encoding="utf-8") as file:
        criteria = yaml.safe_load(file)
    cores, reruns = criteria["max_foreign_cores"], criteria["max_reruns"]
    after = criteria.get("persistent_after")
    if isinstance(cores, bool) or not isinstance(cores, (int, float)) or cores < 0:
        raise ValueError(f"{path}: max_foreign_cores must be a number >= 0, got {cores!r}")
    if isinstance(reruns, bool) or not isinstance(reruns, int) or reruns < 0:
        raise ValueError(f"{path}: max_reruns must be an integer >= 0, got {reruns!r}")
    if after is not None and (isinstance(after, bool) or not isinstance(after, int) or after < 1):
        raise ValueError(f"{path}: persistent_after must be an integer >= 1, got {after!r}")
    return {"max_foreign_cores": float(cores), "max_reruns": reruns, "persistent_after": after}


FOREIGN_LOAD = foreign_load_settings()
# The prefix of every timed command: `{FOREIGN_LOAD_ENV} {DBREPRO} run tpcc ...`.
# A profile whose timed runs share the machine with its other jobs by design
# (smoke: timed_runs_alone false, it times nothing) only measures: there the
# foreign load is the workflow's own, and rerunning would not make it go away.
FOREIGN_LOAD_ENV = (
    f"DBREPRO_MAX_FOREIGN_CORES={FOREIGN_LOAD['max_foreign_cores']:g}"
    f" DBREPRO_MAX_RERUNS={FOREIGN_LOAD['max_reruns']}"
    f" DBREPRO_PERSISTENT_AFTER={FOREIGN_LOAD['persistent_after'] or ''}"
    if config["timed_runs_alone"]
    else "DBREPRO_MAX_FOREIGN_CORES= DBREPRO_MAX_RERUNS=0 DBREPRO_PERSISTENT_AFTER="
)
# The run's streak of cells still disturbed after their reruns (dbrepro.host_load,
# PersistentLoad): one file per run, started afresh by each invocation.
FOREIGN_LOAD_STREAK = os.path.abspath(f"{RESULTS}/tmp/foreign_load_streak")
if os.path.exists(FOREIGN_LOAD_STREAK):
    os.remove(FOREIGN_LOAD_STREAK)
os.environ["DBREPRO_FOREIGN_LOAD_STATE"] = FOREIGN_LOAD_STREAK
# The workflow's own process (this one: Snakemake's main process, which starts every
# job) is the root of the run's own tree: its scheduler polls the jobs (0.11 of a core
# measured on a 2-core VM during the quick profile's timed runs), and that is not
# another tenant's load. An environment variable every job inherits, not a word of the
# command, so that a resumed run sees the same commands.
os.environ["DBREPRO_RUN_ROOT_PID"] = str(os.getpid())


# A timed run claims every core, so that no other job (a callgrind count, a
# plot) runs beside it and disturbs its clock; a profile that times nothing
# (smoke: timed_runs_alone false) lets one other job run beside it.
TIMED_THREADS = workflow.cores if config["timed_runs_alone"] else 1

# Timed rules declare `resources: timed=1` so that no two of them ever run at
# the same time. If the command line did not limit `timed`, limit it here:
# an unlimited resource would let timed runs overlap under --cores > 1.
if "timed" not in workflow.global_resources:
    workflow.register_resource("timed", 1)


# Jobs whose memory grows with the data (E5's scale cells and traces: the
# whole TPC-C database in memory) declare `resources: memory_mb=...`. If the
# command line did not give `memory_mb`, the limit is this machine's memory
# less 2 GB for everything else, so that the scheduler never starts two such
# jobs that would not fit together (the full profile's 100-warehouse jobs:
# 10-15 GB each on a 23 GiB machine).
def machine_memory_mb():
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20


if "memory_mb" not in workflow.global_resources:
    workflow.register_resource("memory_mb", max(machine_memory_mb() - 2048, 1024))


# Settings as data: each cell's settings, named as its study's engine settings
# table names them (the names of the profile, the command line, Python, the
# record and the table alike), go to one JSON file that the cell's run command
# reads (`--settings FILE`), instead of a flag per setting in the rule's shell
# line. Each study registers every cell's settings when the workflow is read
# (a job run in a process of its own reads the workflow again, so the table
# is the same there) and a run takes the cell's file as an input; a changed
# setting rewrites the file, and the cell runs again.
CELL_SETTINGS = {}
from types import SimpleNamespace  # a repeat's number where a rule's wildcards would give it


@functools.cache
def _settings_table(study):
    """A study's engine settings table, read once per workflow (every cell asks for it)."""
    from dbrepro import settings

    return tuple(settings.table(study))


def profile_settings(study, section, leave_out=()):
    """The profile section's values of `study`'s engine settings (those of its
    table's names the section has, but `leave_out`); a list where the setting
    is one text (E2's distributions) is joined as the engine reads it."""
    out = {}
    for row in _settings_table(study):
        name = row["name"]
        if name in section and name not in leave_out:
            value = section[name]
            out[name] = ",".join(map(str, value)) if row["type"] == "str" and isinstance(value, list) else value
    return out


def cell_settings(study, cell, values):
    """Registers one cell's settings (by setting name); the path of its file."""
    CELL_SETTINGS[(study, cell)] = dict(values)
    return settings_path(study, cell)


def settings_path(study, cell):
    """The file of a registered cell's settings (a KeyError names an unregistered one)."""
    CELL_SETTINGS[(study, cell)]
    return f"{RESULTS}/settings/{study}/{cell}.json"


def _settings_text(wildcards):
    import json

    return json.dumps(CELL_SETTINGS[(wildcards.study, wildcards.cell)], indent=1, sort_keys=True) + "\n"


rule cell_settings:
    """One cell's settings file (cell_settings above), what its run reads with
    --settings. A shell job, not a run: block: Snakemake spawns a run: job as a
    new Snakemake process that parses the whole workflow again (about 4 s
    each, 154 of them in the quick profile); printf takes milliseconds."""
    output:
        f"{RESULTS}/settings/{{study}}/{{cell}}.json",
    params:
        text=_settings_text,
    localrule: True
    shell:
        "printf '%s' {params.text:q} > {output:q}"
