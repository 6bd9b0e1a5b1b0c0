# The machine a run runs on (dbrepro.machine, issue 52): its fingerprint at the start,
# before the first timed cell (every timed grid's first repeat waits for it: common.smk,
# after_previous_repeat_of), and at the end, after the last; both outside the timed cells
# (resources: timed=1). results/<run>/machine.json holds both, the run's kind and each
# study's method (workflows/claims/methods.yaml); the summary prints the kind first.

MACHINE_END = f"{RESULTS}/machine/end.json"
MACHINE_RECORD = f"{RESULTS}/machine.json"


rule machine_start:
    """The machine's identity, kind and primitive costs before the first timed cell."""
    output:
        MACHINE_START,
    log:
        log_path("machine", "start"),
    threads: TIMED_THREADS
    resources:
        timed=1,
    params:
        # A profile that times nothing (smoke) measures the primitives briefly.
        brief="" if config["timed_runs_alone"] else "--brief",
    shell:
        "{FOREIGN_LOAD_ENV} {DBREPRO} machine --dir {RESULTS:q} --phase start {params.brief} --out {output:q} > {log:q} 2>&1"


rule machine_end:
    """The same after the last timed cell (its inputs: every study's results), and machine.json."""
    input:
        start=MACHINE_START,
        studies=lambda wildcards: MACHINE_END_AFTER,
    output:
        end=MACHINE_END,
        record=MACHINE_RECORD,
    log:
        log_path("machine", "end"),
    params:
        brief=not config["timed_runs_alone"],
    threads: TIMED_THREADS
    resources:
        timed=1,
    script:
        "scripts/machine_record.py"
