"""A look at one study's claims on the repeats run so far (the sequential_look checkpoint,
workflows/sequential.smk): the study's tables that hold its repeats are built again from the
look's records by their own scripts, its claims judged by its own script at the split level
(dbrepro.verdicts.Context), all in results/tmp/<study>/looks/look<j>/; the look's record
(sequential.decide_look: decided, open, the grids to extend) goes beside that folder.

One recipe per study names which of its tables a look builds (the ones its repeats feed)."""

import json
import sys
from pathlib import Path

from dbrepro import studies
from dbrepro import verdicts as vd
import sequential as seq


def looking_glass(i, out: Path, config: dict, settings: dict, context: vd.Context) -> None:
    import looking_glass_claims as claims
    import looking_glass_ladder_table as ladder

    table = out / "ladder.csv"
    ladder.main(i.paper, str(table), list(i.runs))
    claims.main(claims.load_tables(i.instructions, i.switches, i.components, str(table), i.paper, list(i.runs),
                                   i.instructions_seeds),
                out / "claims.csv", out / "claims.md", config.get("profile", ""), i.criteria, config, context)


def key_cache(i, out: Path, config: dict, settings: dict, context: vd.Context) -> None:
    import key_cache_claims as claims

    # model_vs_real (a check's table) is not built at a look: no finding reads it.
    claims.main(i.paper, out / "claims.csv", out / "claims.md", list(i.runs), i.criteria, list(i.mariadb_runs),
                settings.get("mariadb_skipped", ""), None, run_config=config, context=context)


def openedge(i, out: Path, config: dict, settings: dict, context: vd.Context) -> None:
    import openedge_claims as claims
    import openedge_tables as tables

    paths = {name: str(out / f"{name}.csv") for name in tables.TABLES}
    tables.main(i.paper, paths, list(i.runs), i.scan, list(i.latency))
    claims.main(paths["runs"], paths["traffic"], paths["scan"], paths["latency"], i.paper, out / "claims.csv",
                out / "claims.md", i.criteria, config, context)


def quantum(i, out: Path, config: dict, settings: dict, context: vd.Context) -> None:
    import quantum_claims as claims
    import quantum_tables as tables

    paths = {name: str(out / f"{name}.csv") for name in ("runs", "workload1", "workload2", "ts")}
    tables.main(list(i.records), i.paper, paths)
    claims.main(paths["runs"], i.paper, out / "claims.csv", out / "claims.md", list(i.records), i.criteria, config,
                context)


def fifo_cache(i, out: Path, config: dict, settings: dict, context: vd.Context) -> None:
    import fifo_cache_claims as claims

    claims.main(i.paper, out / "claims.csv", out / "claims.md", list(i.runs), i.criteria, list(i.scale),
                run_config=config, context=context)


# One recipe per judged study, by its name (dbrepro.studies).
RECIPES = {name: globals()[name] for name in studies.names(judged=True) if name in globals()}


def look(study: str, number: int, inputs, output: str, values: dict, config: dict) -> dict:
    """Runs the look and writes its record; returns it."""
    plan = seq.Plan(**values["plan"])
    previous = json.loads(Path(inputs.previous).read_text(encoding="utf-8")) if number > 1 else None
    if previous is not None and not previous["extend"]:
        # Nothing was added since the last look: the same repeats, the same verdicts.
        record = {**previous, "extend": {}, "skipped": {}, "same_as_look": previous["look"]}
    else:
        data_look = int(previous["look"]) + 1 if previous else 1
        folder = Path(output).with_suffix("")
        folder.mkdir(parents=True, exist_ok=True)
        judging = {**values["judging"], "look": data_look, "outcomes_out": str(folder / "outcomes.json"),
                   "previous_look": inputs.previous if previous else ""}
        RECIPES[study](inputs, folder, config, values.get("settings") or {}, vd.Context.from_judging(judging))
        outcomes = json.loads((folder / "outcomes.json").read_text(encoding="utf-8"))
        by_repeat = values["by_repeat"]
        seconds = {grid: seq.seconds_per_repeat({int(r): p for r, p in reps.items()})
                   for grid, reps in by_repeat.items()}
        record = seq.decide_look(data_look, plan, outcomes, previous, values["grids"], seconds,
                                 {grid: len(reps) for grid, reps in by_repeat.items()})
        record["seconds_per_repeat"] = seconds
    Path(output).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{study} look {record['look']}: decided {sorted(record['decided'])}, open {record['open']}, "
          f"extend {record['extend']}, skipped {record['skipped']}", file=sys.stderr)
    return record


if "snakemake" in globals():
    sm = snakemake  # noqa: F821 (defined by Snakemake)
    with open(sm.log[0], "w", encoding="utf-8") as log:
        sys.stderr = log
        look(sm.params.study, int(sm.params.look), sm.input, sm.output[0], sm.params.values, sm.config)
