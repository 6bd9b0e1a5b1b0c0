"""Tidy table of the looking_glass instruction counts: one row per seed, ladder
step, transaction type and phase (instructions and cycles per transaction).
The workflow writes it twice: instructions.csv from the first seed's records,
instructions_seeds.csv from every seed's.

Run by Snakemake (rule looking_glass_instructions_table), or by hand:
    python workflows/scripts/looking_glass_instructions_table.py OUT.csv COUNT.json [COUNT.json ...]
"""

import argparse

import pandas as pd

import looking_glass_common as common
from dbrepro import looking_glass
from dbrepro.records import load_result

COLUMNS = [
    "step", "label", "component", "txn_type", "phase", "instructions", "cycles", "backend",
    "cycles_source", "simulated_caches", "stack", "page_size", "transactions", "warehouses", "seed",
]


def _cycles_source(metrics) -> str:
    source = metrics.get("cycles_source")
    if not source:
        return "not counted"
    return source.split(":")[0]  # "estimated" or "measured"


def _simulated_caches(metrics) -> str:
    """The caches callgrind simulated for an estimated count ("I1 32768 B, 64 B, 8-way associative; ..."):
    valgrind reads them off the host, so two machines' cycle estimates differ with them. Empty for
    measured or no cycles, and for records written before they were kept."""
    caches = metrics.get("simulated_caches") or {}
    return "; ".join(f"{name} {value}" for name, value in caches.items())


def rows(paths) -> pd.DataFrame:
    ladder = {entry["step"]: entry for entry in looking_glass.ladder()}
    frames = []
    for path in paths:
        result = load_result(path)
        if result.kind != looking_glass.KIND:
            raise ValueError(f"{path}: a {result.kind!r} record, not {looking_glass.KIND!r}")
        frame = pd.DataFrame(looking_glass.instruction_rows(result))
        step = int(result.config["step"])
        frame["label"] = ladder[step]["label"]
        frame["component"] = ladder[step]["component"]
        frame["cycles_source"] = _cycles_source(result.metrics)
        frame["simulated_caches"] = _simulated_caches(result.metrics)
        frame["page_size"] = result.metrics.get("page_size")
        frame["transactions"] = frame.pop("attempted")
        frame["warehouses"] = result.config["warehouses"]
        frame["seed"] = result.config["seed"]
        frames.append(frame)
    table = pd.concat(frames, ignore_index=True)
    phase_order = {phase: index for index, phase in enumerate(looking_glass.PHASES)}
    table = table.sort_values(["seed", "step", "txn_type", "phase"],
                              key=lambda c: c.map(phase_order) if c.name == "phase" else c)
    duplicated = table.duplicated(["seed", "step", "txn_type", "phase"])
    if duplicated.any():
        raise ValueError(f"two counts of the same seed, step and transaction type: "
                         f"{table[duplicated].iloc[0].to_dict()}")
    return table[COLUMNS].reset_index(drop=True)


def main(paths, out_path) -> pd.DataFrame:
    table = rows(paths)
    table.to_csv(out_path, index=False, float_format="%.6g")
    return table


if "snakemake" in globals():
    common.run_logged(snakemake.log[0], main, list(snakemake.input.records), snakemake.output[0])  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="CSV to write")
    parser.add_argument("counts", nargs="+", help="instruction-count records (JSON)")
    args = parser.parse_args()
    print(main(args.counts, args.out).to_string(index=False))
