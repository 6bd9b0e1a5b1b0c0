"""E4's session length (dbrepro.quantum_sizing says how it is derived): a
calibration run alone on this machine, written as the sizing record that
`dbrepro run quantum --sizing` reads.

Run by Snakemake (rule quantum_sizing), or by hand:
    python workflows/scripts/quantum_sizing.py paper.yaml sizing.json LONGEST_Q_MS TABLE_MB cpu memory
"""
import sys

from script_common import load_paper

from dbrepro import quantum, quantum_sizing, records


def main(paper_path, out_path, longest_quantum_ms, table_mb, workloads, ts_time_scale=None) -> None:
    sizing = quantum_sizing.sizing(load_paper(paper_path), longest_quantum_ms, table_mb, workloads, ts_time_scale)
    records.write_json_atomic(sizing, out_path)  # a calibration run: written whole or not at all
    for name, record in sizing.items():
        unit = quantum.UNIT_NAMES[name.removeprefix("ts_")]
        print(f"{name}: {record['session_seconds']:.3f} s -> {record[unit]} {unit}", file=sys.stderr)


if "snakemake" in globals():
    with open(snakemake.log[0], "w") as log:  # noqa: F821 (defined by Snakemake)
        sys.stderr = log
        main(snakemake.input.paper, snakemake.output.sizing, snakemake.params.longest_quantum_ms,  # noqa: F821
             snakemake.params.table_mb, snakemake.params.workloads, snakemake.params.ts_time_scale)  # noqa: F821
elif __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
