# dbrepro: reproduce database performance studies on this machine.
#
#   snakemake --cores 2 --resources timed=1                      # quick profile
#   snakemake --cores 2 --resources timed=1 --configfile config/smoke.yaml
#
# The config (a profile in config/: quick.yaml, smoke.yaml, full.yaml; or your own file) is checked
# against config/schema/config.schema.yaml before anything runs.

import os
import shlex

from snakemake.utils import min_version

from dbrepro.studies import STUDIES
from dbrepro.workflow_config import validate as validate_config

min_version("8.0")


# Snakemake's job-rate limiter (--max-jobs-per-timespan, default 100 jobs a second,
# which a local run never reaches) arms a one-second timer on every scheduler pass
# while a ready job waits for a resource, and each timer starts another pass: every
# job that finishes while timed jobs wait for `timed` adds one more such chain
# (snakemake/snakemake pull request 3744). The scheduler then re-ran its job
# selection about 85 times a second: 21-24 CPU-s of the smoke profile's 264-269, the
# workflow's own process busy beside the timed runs. Without the limiter a pass runs
# when a job finishes or fails, as Snakemake's scheduler is built to.
onstart:
    workflow.scheduler.job_rate_limiter = None


# The default profile, unless the command line gives a whole profile (a config with its
# `profile` name, as every file in config/ has): a profile is the run's whole config, never
# laid over quick.yaml (it would inherit quick's settings where it names none, and the run's
# banner would list quick.yaml). A file of a few settings alone is laid over quick.yaml.
# Relative to this file, so `snakemake -s /path/Snakefile --directory elsewhere` works.
if "profile" not in config:

    configfile: os.path.join(workflow.basedir, "config", "quick.yaml")


# One line naming the bad setting (Snakemake's own check prints the schema).
validate_config(config, os.path.join(workflow.basedir, "config", "schema", "config.schema.yaml"))


# Shared helpers first, then one file per study; each adds its final outputs
# to STUDY_TARGETS.
include: "workflows/common.smk"
# Timed grids that may run more repeats than planned (makeups, sequential looks).
include: "workflows/sequential.smk"
# The machine's fingerprint, at the start and the end of the run.
include: "workflows/machine.smk"
include: "workflows/report.smk"
# Each study's rules, in the registry's order (dbrepro.studies: the one list of studies).
for _study in STUDIES:

    include: _study.rules


# Every study's figures, claims and repeat barriers, from what each registered above.
include: "workflows/figures.smk"
include: "workflows/repeats.smk"
include: "workflows/claims.smk"
# The summary after every study: it reads all their claims.
include: "workflows/summary.smk"
# The paper (`snakemake paper`) last: it reads every study's outputs.
include: "workflows/paper.smk"


rule all:
    """Every study's final tables and figures."""
    input:
        STUDY_TARGETS,
    default_target: True
    localrule: True


# At the end of every run, where its minutes went per study (from this run's
# Snakemake log), printed and kept in results/logs/times.csv; a run with targets
# of its own (`make paper`: times-paper.csv) or a later run writes a file of its
# own beside it, never over it (workflows/scripts/study_times.py).
onsuccess:
    shell(f"{PYTHON} {workflow.basedir}/workflows/scripts/study_times.py {{log:q}} {RESULTS}/logs/times.csv "
          + " ".join(shlex.quote(target) for target in sorted(workflow.dag_settings.targets)))
