# The barrier between repeats of a timed grid (after_previous_repeat in
# common.smk): done when every run of the grid in one repeat is, so that the
# next repeat's runs wait on one file instead of on every run.


rule repeat_done:
    """Every timed run of one grid in one repeat has finished."""
    input:
        lambda wildcards: [
            ancient(path) for path in REPEAT_GRIDS[f"{wildcards.study}/{wildcards.grid}"]["runs"](int(wildcards.rep))
        ],
    output:
        touch(f"{RESULTS}/tmp/{{study}}/repeats/{{grid}}/rep{{rep}}.done"),
    wildcard_constraints:
        study="|".join(sorted({key.split("/")[0] for key in REPEAT_GRIDS})),
        grid="|".join(sorted({key.split("/")[1] for key in REPEAT_GRIDS})),
    localrule: True
