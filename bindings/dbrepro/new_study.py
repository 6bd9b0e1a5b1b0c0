"""`dbrepro new-study NAME`: a new study's registry entry and a skeleton that
runs in the smoke profile as it is.

It writes, beside the five studies and in their layout:

    bindings/dbrepro/studies.py             the registry entry (appended to STUDIES)
    bindings/dbrepro/NAME.py                its run: a small TPC-C run of the engine, its record
    workflows/NAME.smk                      its rules: runs per repeat, a table, a figure, its claims
    workflows/scripts/NAME_table.py         the table, from the raw records
    workflows/scripts/NAME_claims.py        its claims: compute, judge_all, write
    workflows/claims/NAME.yaml              its criteria: one check
    workflows/data/NAME_paper.yaml          the original's numbers
    figures/NAME_throughput.py              its figure
    workflows/report/NAME/throughput.rst    the figure's caption
    docs/NAME.md                            its page

and refuses, before the first write, a name that is not a lower-case Python
identifier, one a study already has, or any of these files already there.
The skeleton measures the engine's TPC-C throughput and judges one check on
it; what to put in its place is listed on its docs page (and in
DEVELOPERS.md, "Adding a study").
"""
from __future__ import annotations

import keyword
import re
from pathlib import Path

NAME = re.compile(r"^[a-z][a-z0-9_]{1,30}$")
REGISTRY_END = "\n)\n\n_BY_NAME"


def files(name: str) -> dict[str, str]:
    """Every file of the skeleton (its template), by its path relative to the repository."""
    return {
        f"bindings/dbrepro/{name}.py": _MODULE,
        f"workflows/{name}.smk": _RULES,
        f"workflows/scripts/{name}_table.py": _TABLE,
        f"workflows/scripts/{name}_claims.py": _CLAIMS,
        f"workflows/claims/{name}.yaml": _CRITERIA,
        f"workflows/data/{name}_paper.yaml": _PAPER,
        f"figures/{name}_throughput.py": _FIGURE,
        f"workflows/report/{name}/throughput.rst": _CAPTION,
        f"docs/{name}.md": _DOCS,
    }


def registry_entry(name: str, label: str, title: str) -> str:
    return (f'    Study("{name}", "{label}", "{title}", "dbrepro.{name}", "run_config",\n'
            f'          "{label} {title}: a small TPC-C run of the engine (the skeleton of dbrepro new-study)",\n'
            f'          record_kinds={{"{name}": "dbrepro.{name}"}}),')


def check(root: Path, name: str, label: str, title: str) -> list[Path]:
    """The paths it would write; ValueError (one line) where it must refuse."""
    from . import studies

    if not NAME.match(name) or keyword.iskeyword(name):
        raise ValueError(f"NAME: {name!r} is not a lower-case identifier of 2-31 letters, digits and _")
    if name in studies.names() or any(name in s.aliases for s in studies.STUDIES):
        raise ValueError(f"NAME: {name!r} is a study already (dbrepro list)")
    if not re.match(r"^[A-Z]?[0-9A-Za-z]{0,7}$", label) or '"' in title or "\n" in title or not title.strip():
        raise ValueError("--label: a short word (E6) and --title: one line without double quotes")
    registry = root / "bindings" / "dbrepro" / "studies.py"
    if REGISTRY_END not in registry.read_text(encoding="utf-8"):
        raise ValueError(f"{registry}: the end of STUDIES is not where new-study expects it")
    paths = [root / relative for relative in files(name)]
    there = [p for p in paths if p.exists()]
    if there:
        raise ValueError(f"{there[0]} exists already: nothing written")
    return paths


def write(root: Path, name: str, label: str = "", title: str = "") -> list[Path]:
    """Writes the skeleton and the registry entry; the paths written."""
    root = Path(root)
    from . import studies

    label = label or f"E{len(studies.judged()) + 1}"
    title = title or f"a new study ({name})"
    check(root, name, label, title)
    words = {"name": name, "name_upper": name.upper(), "label": label, "title": title}
    written = []
    for relative, template in files(name).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(**words), encoding="utf-8")
        written.append(path)
    registry = root / "bindings" / "dbrepro" / "studies.py"
    text = registry.read_text(encoding="utf-8")
    registry.write_text(text.replace(REGISTRY_END, "\n" + registry_entry(name, label, title) + REGISTRY_END, 1),
                        encoding="utf-8")
    return [registry, *written]


# ---------------------------------------------------------------------------
# The skeleton's files ({name}, {label}, {title} filled in; doubled braces stay braces)

_MODULE = '''"""{label} {name}: {title}. The skeleton `dbrepro new-study` wrote: a small
TPC-C run of the engine, written as a raw-run record of kind `{name}`.
Replace the run with the mechanism the original measured (docs/{name}.md).

    dbrepro run {name} --transactions 500 --out run.json
"""
from __future__ import annotations

import argparse
import sys
from typing import Sequence

KIND = "{name}"
PROG = "dbrepro run {name}"


def run(**settings):
    """One run: the engine's TPC-C with these settings (its run_config table), as a record of KIND."""
    from . import tpcc

    result = tpcc.run(**settings)
    result.kind = KIND
    return result


def rows(result) -> list[dict]:
    """A record as table rows: one, its throughput."""
    return [{{"transactions": result.metrics["transactions"], "throughput_tps": result.metrics["throughput_tps"],
             "consistent": bool(result.metrics["consistent"])}}]


def main(argv: Sequence[str] | None = None) -> int:
    from . import settings
    from .command import CliError, DefaultsHelpFormatter, OneLineErrorParser, check_writable, write_record

    parser = OneLineErrorParser(prog=PROG, description=__doc__, formatter_class=DefaultsHelpFormatter)
    table = settings.table(KIND)
    settings.add_options(parser, table)
    parser.add_argument("--out", required=True, metavar="FILE.json", help="where to write the raw-run record")
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        check_writable(args.out)
        path = write_record(run(**settings.given(args, table)), args.out)
    except (CliError, ValueError) as error:
        print(f"{{PROG}}: error: {{error}}", file=sys.stderr)
        return 2
    print(f"record: {{path}}")
    return 0


def _register_rows() -> None:
    from .result import FRAME_ROWS

    FRAME_ROWS[KIND] = rows


_register_rows()

if __name__ == "__main__":
    sys.exit(main())
'''

_RULES = '''# Study `{name}` ({label}: {title}), the skeleton `dbrepro new-study` wrote.
#
#   raw runs  results/raw/{name}/rep{{rep}}/run.json
#   table     results/tables/{name}/throughput.csv
#   figure    results/figures/{name}/throughput.{{png,pdf}}
#   claims    results/tables/{name}/claims.csv (workflows/claims/{name}.yaml)

# Its settings: move them into config/<profile>.yaml and the schema once they differ by profile.
{name_upper}_SETTINGS = {{"warehouses": 1, "transactions": 500, "seed": 7}}
{name_upper}_RUN = raw_path("{name}", "run")
{name_upper}_TABLE = table_path("{name}", "throughput")
{name_upper}_TARGETS = [{name_upper}_TABLE, *register_figure("{name}", "throughput", {name_upper}_TABLE),
                table_path("{name}", "claims")]
STUDY_TARGETS.extend({name_upper}_TARGETS)
register_claims("{name}", throughput={name_upper}_TABLE,
                paper=repo_file("workflows", "data", "{name}_paper.yaml"))


rule {name}:
    """This study's tables and figures only: `snakemake {name}`."""
    input:
        {name_upper}_TARGETS,
    localrule: True


rule {name}_run:
    """One run per repeat, through `dbrepro run {name}`."""
    output:
        record={name_upper}_RUN,
    log:
        log_path("{name}", "rep{{rep}}/run"),
    params:
        options=" ".join(f"--{{key.replace('_', '-')}} {{value}}" for key, value in {name_upper}_SETTINGS.items()),
    shell:
        "{{DBREPRO}} run {name} {{params.options}} --out {{output.record:q}} > {{log:q}} 2>&1"


rule {name}_table:
    """Throughput per repeat."""
    input:
        expand({name_upper}_RUN, rep=REPEATS),
    output:
        {name_upper}_TABLE,
    log:
        log_path("{name}", "throughput_table"),
    localrule: True
    script:
        "scripts/{name}_table.py"
'''

_TABLE = '''"""{name}'s table: one row per raw record (dbrepro.records reads them).

Run by Snakemake (rule {name}_table), or by hand:
    python workflows/scripts/{name}_table.py OUT.csv RECORD.json [...]
"""
import sys

from dbrepro.records import load_runs


def main(out_path, record_paths) -> None:
    frame = load_runs(list(record_paths))
    frame.assign(source=[str(p) for p in record_paths]).to_csv(out_path, index=False)


if "snakemake" in globals():
    main(snakemake.output[0], list(snakemake.input))  # noqa: F821
elif __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
'''

_CLAIMS = '''"""{name}'s claims, the verdict package's three steps: compute each quantity
(evaluated on the run's repeats), judge_all, write (dbrepro.verdicts).

Run by Snakemake (rule claims), or by hand:
    python workflows/scripts/{name}_claims.py throughput.csv claims.csv claims.md
"""
import sys

import pandas as pd

from dbrepro import verdicts as vd


def claims(table: pd.DataFrame, criteria: vd.Criteria, context: vd.Context) -> list[vd.ClaimResult]:
    c = criteria["every_run_consistent"]
    share = 100.0 * float(table["consistent"].astype(bool).mean()) if len(table) else float("nan")
    return [vd.count_result(c, f"{{share:.0f}}% of {{len(table)}} runs", share,
                            "a run failed TPC-C's consistency conditions (its record says which)")]


def main(table_path, csv_path, md_path, run_config=None, context: vd.Context = vd.DEFAULT) -> pd.DataFrame:
    criteria = vd.load_criteria("{name}", run_config)
    results = claims(pd.read_csv(table_path), criteria, context)
    return vd.write_claims(vd.judge_all(results, criteria, context), criteria, csv_path, md_path, context)


if "snakemake" in globals():
    main(snakemake.input.throughput, snakemake.output.csv, snakemake.output.md, snakemake.config,  # noqa: F821
         vd.Context.from_params(snakemake.params))  # noqa: F821
elif __name__ == "__main__":
    print(main(*sys.argv[1:4]).to_string(index=False))
'''

_CRITERIA = '''# {label} {name}: {title}. The skeleton's one check; write the original's findings
# here before the data (docs/verdicts.md), each change later a commit of its own.
study: {name}
title: "{label} {name}: {title}"
paper_values: workflows/data/{name}_paper.yaml
claims:
  - id: every_run_consistent
    text: Every run passes TPC-C's consistency conditions
    role: check
    setting: original
    theirs: "{{note}}"
    source: the engine's design (docs/{name}.md)
    quantity: share of the runs whose consistency conditions all held (%)
    direction: at least
    band: {{min: 100}}
    why_band: a run that fails a consistency condition measured a broken engine
    kind: count
    mechanism: TPC-C's consistency conditions, checked by the engine after each run
'''

_PAPER = '''# The original's numbers for {name}, the one place they are written (the criteria's
# `theirs` reads them by their dotted path).
note: the skeleton's check is our own; no number of the original yet
'''

_FIGURE = '''"""Figure: {name}'s throughput per repeat.

    python figures/{name}_throughput.py results/tables/{name}/throughput.csv out.png out.pdf
"""
from __future__ import annotations

import sys

import pandas as pd

import style


def plot(table: pd.DataFrame):
    fig, ax = style.figure()
    ax.bar(range(1, len(table) + 1), table["throughput_tps"])
    ax.set_xlabel("repeat")
    ax.set_ylabel(style.LABELS["throughput"])
    ax.set_ylim(bottom=0)
    ax.set_title("{name}: TPC-C throughput per repeat")
    return fig


def main(argv=None) -> int:
    return style.table_figure_main(plot, __doc__, "throughput CSV (results/tables/{name}/throughput.csv)", argv)


if __name__ == "__main__":
    sys.exit(main())
'''

_CAPTION = '''{name}'s throughput per repeat (transactions per second of the engine's TPC-C),
from results/<run>/tables/{name}/throughput.csv.
'''

_DOCS = '''# {label} {name}: {title}

The skeleton `dbrepro new-study {name}` wrote. It runs in every profile as it
is: a small TPC-C run of the engine per repeat, a table, a figure and one
check. To make it the study:

1. Cite the original in full here and in `CITATION.cff`, and write its numbers
   in `workflows/data/{name}_paper.yaml`.
2. Build the mechanism the original measured: its model in `engine/src/`, its
   settings table in `engine/src/driver/{name}/fields.cpp` (then set the
   registry entry's settings table in `bindings/dbrepro/studies.py`), its run in
   `bindings/dbrepro/{name}.py`.
3. Write the original's findings in `workflows/claims/{name}.yaml` before the
   data, and compute each one in `workflows/scripts/{name}_claims.py`.
4. Move the settings in `workflows/{name}.smk` into `config/<profile>.yaml`
   and `config/schema/config.schema.yaml`; timed runs take `resources: timed=1`
   and interleave their arms by repeat (`docs/verdicts.md`).
5. Replace the figure (`figures/{name}_throughput.py`) and its caption
   (`workflows/report/{name}/throughput.rst`), and add the study to the README's
   table.

One study alone: `.venv/bin/snakemake --cores all --resources timed=1 --configfile config/smoke.yaml {name}`.
'''

