"""The makeup checkpoint (workflows/sequential.smk): which planned repeats of one timed grid
hold a cell still disturbed after its reruns, and how many repeats of the grid run again
(workflows/claims/sequential.yaml's max_makeups). Writes that record as JSON."""
import json

import sequential as seq

if "snakemake" in globals():
    plan = seq.Plan(**snakemake.params.plan)  # noqa: F821 (defined by Snakemake)
    by_repeat = {int(rep): list(paths) for rep, paths in snakemake.params.by_repeat.items()}  # noqa: F821
    with open(snakemake.output[0], "w", encoding="utf-8") as out:  # noqa: F821
        json.dump(seq.makeups_record(by_repeat, plan), out, indent=1, sort_keys=True)
        out.write("\n")
