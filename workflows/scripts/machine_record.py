"""results/<run>/machine.json: the fingerprint taken now (the run's end) beside the one
taken at its start, the run's kind, and each study's method (workflows/claims/methods.yaml)
(dbrepro.machine).

Run by Snakemake (rule machine_end), or by hand:
    python workflows/scripts/machine_record.py START.json END.json MACHINE.json
"""
import json
import sys
from pathlib import Path

from dbrepro import machine
from dbrepro.records import write_json_atomic
from dbrepro.verdicts.criteria import load_methods


def main(start_path, end_path, out_path, brief: bool = False) -> dict:
    end = machine.fingerprint(Path(out_path).parent, phase="end", brief=brief)
    write_json_atomic(end, end_path)
    start = json.loads(Path(start_path).read_text(encoding="utf-8"))
    methods = {study: listed[-1].id for study, listed in load_methods().items() if listed}
    record = machine.combined(start, end, methods)
    write_json_atomic(record, out_path)
    print(f"{record['kind']} -> {out_path}", file=sys.stderr)
    return record


if "snakemake" in globals():
    with open(snakemake.log[0], "w", encoding="utf-8") as log:  # noqa: F821
        sys.stderr = log
        main(snakemake.input.start, snakemake.output.end, snakemake.output.record,  # noqa: F821
             snakemake.params.brief)  # noqa: F821
elif __name__ == "__main__":
    main(*sys.argv[1:4])
