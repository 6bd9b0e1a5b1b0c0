# Repeats where a verdict is still open (issue 40, item 6; workflows/claims/sequential.yaml,
# docs/verdicts.md). Each study registers its timed grids (timed_grid) and what a look of its
# claims reads (register_look); where the profile plans extra looks or makeups, two
# checkpoints decide, after the planned repeats, how many more repeats each grid runs:
#
#   makeups   results/tmp/<study>/makeups/<grid>.json: the planned repeats with a cell still
#             disturbed after its reruns; that many (at most max_makeups) repeats of the whole grid
#             run after the planned ones
#   looks     results/tmp/<study>/looks/look<j>.json: the claims judged on the repeats run so far
#             (their tables and claims.md beside it, in look<j>/), at the split level; the findings
#             decided, those still open, and the grids that get repeats_per_look more repeats
#
# A profile that plans neither (smoke, or one the file does not name) gets plain lists: its
# graph is the one it had before this file.

import importlib.util
import json


def _script_module(name):
    """A module of workflows/scripts/ (not on the workflow's import path)."""
    spec = importlib.util.spec_from_file_location(f"dbrepro_workflow_{name}", repo_file("workflows", "scripts", f"{name}.py"))
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded  # its dataclasses look their module up there
    spec.loader.exec_module(loaded)
    return loaded


SEQ_MODULE = _script_module("sequential")
SEQ = SEQ_MODULE.load_plan(str(config.get("profile", "")))
SEQ_CRITERIA = repo_file("workflows", "claims", "sequential.yaml")
# study -> grid -> {"planned": [repeats], "runs_of": rep -> records, "findings": ids or None (every timed finding)}
SEQUENTIAL_GRIDS = {}
# study -> name -> what a look of its claims reads (GridRuns at the look, or paths)
SEQUENTIAL_LOOK_INPUTS = {}


def sequential_repeats(planned):
    """Every repeat number a grid may run: the planned ones, then room for the makeups and
    every extra look (settings are registered for each; a repeat runs only where asked)."""
    return list(range(1, len(planned) + SEQ.max_makeups + SEQ.extra_looks * SEQ.repeats_per_look + 1))


class GridRuns:
    """A timed grid's records over the repeats it runs: the planned ones, its makeups and the
    extra looks' repeats, as the checkpoints decide. Called as an input function (the final
    repeats); at(stage) before look `stage` + 1 (0: the planned repeats and the makeups)."""

    def __init__(self, study, grid, runs_of):
        self.study, self.grid, self.runs_of = study, grid, runs_of

    def at(self, stage):
        return [path for rep in grid_repeats(self.study, self.grid, stage) for path in self.runs_of(rep)]

    def by_repeat(self, stage):
        return {rep: self.runs_of(rep) for rep in grid_repeats(self.study, self.grid, stage)}

    def subset(self, runs_of):
        """The same grid's repeats, other records of each (a grid of two kinds of run)."""
        return GridRuns(self.study, self.grid, runs_of)

    def __call__(self, wildcards=None):
        return self.at(SEQ.extra_looks)


def timed_grid(study, grid, planned, runs_of, findings=None):
    """Registers a timed grid of `study` (`runs_of(rep)`: its records in repeat rep, `planned`:
    the repeats its profile plans; `findings`: the timed findings it serves, None for all);
    returns its records: today's list where the profile plans no look and no makeup, else a
    GridRuns (an input function over the repeats the checkpoints decide)."""
    SEQUENTIAL_GRIDS.setdefault(study, {})[grid] = {"planned": list(planned), "runs_of": runs_of,
                                                     "findings": None if findings is None else list(findings)}
    if not SEQ.active:
        return [path for rep in planned for path in runs_of(rep)]
    return GridRuns(study, grid, runs_of)


def register_look(study, **inputs):
    """What a look of `study`'s claims reads (workflows/scripts/sequential_look.py's recipe names)."""
    SEQUENTIAL_LOOK_INPUTS[study] = inputs


def makeups_of(study, grid):
    """The makeup checkpoint's record of a grid ({} where the profile makes none up)."""
    if not SEQ.max_makeups:
        return {}
    path = str(checkpoints.sequential_makeups.get(study=study, grid=grid).output[0])
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def look_record(study, look):
    """Look `look`'s record (a checkpoint's output)."""
    path = str(checkpoints.sequential_look.get(study=study, look=look).output[0])
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def grid_repeats(study, grid, stage):
    """The repeats of a grid before look `stage` + 1: the planned ones and the makeups (stage 0),
    then what looks 1..stage added."""
    n = len(SEQUENTIAL_GRIDS[study][grid]["planned"])
    n += int(makeups_of(study, grid).get("makeups", 0))
    if stage > 0 and SEQ.extra_looks and SEQUENTIAL_LOOK_INPUTS.get(study):
        n += int(look_record(study, min(stage, SEQ.extra_looks))["extended_total"].get(grid, 0))
    return list(range(1, n + 1))


def sequential_judging(study):
    """The claims rule's sequential params (dbrepro.verdicts.Context.from_judging): the split level, the
    final look's number, the last look's record (its decided findings) and the makeups."""
    if not SEQ.active or study not in SEQUENTIAL_GRIDS:
        return {}
    makeups = {grid: makeups_of(study, grid) for grid in SEQUENTIAL_GRIDS[study]} if SEQ.max_makeups else {}
    previous, look = "", 1
    if SEQ.extra_looks and SEQUENTIAL_LOOK_INPUTS.get(study):
        previous = str(checkpoints.sequential_look.get(study=study, look=SEQ.extra_looks).output[0])
        last = look_record(study, SEQ.extra_looks)
        look = int(last["look"]) + (1 if last["extend"] else 0)
    return SEQ_MODULE.judging_params(SEQ, look, previous, makeups)


def makeup_paths(study):
    """The makeup checkpoints' records of a study's grids (named inputs: params read them)."""
    if not SEQ.max_makeups:
        return {}
    return {f"makeups_{grid}": f"{RESULTS}/tmp/{study}/makeups/{grid}.json" for grid in SEQUENTIAL_GRIDS.get(study, {})}


def sequential_final_inputs(study):
    """What the final claims add: the makeups' records and the last look's (its decided findings)."""
    found = makeup_paths(study)
    if SEQ.extra_looks and SEQUENTIAL_LOOK_INPUTS.get(study):
        found["last_look"] = f"{RESULTS}/tmp/{study}/looks/look{SEQ.extra_looks}.json"
    return found


checkpoint sequential_makeups:
    """Which planned repeats of a timed grid hold a cell still disturbed after its reruns: that
    many (at most the profile's max_makeups) repeats of the whole grid run after the planned ones."""
    input:
        lambda wildcards: [path for rep in SEQUENTIAL_GRIDS[wildcards.study][wildcards.grid]["planned"]
                           for path in SEQUENTIAL_GRIDS[wildcards.study][wildcards.grid]["runs_of"](rep)],
    output:
        f"{RESULTS}/tmp/{{study}}/makeups/{{grid}}.json",
    params:
        plan=lambda wildcards: vars(SEQ),
        by_repeat=lambda wildcards: {rep: SEQUENTIAL_GRIDS[wildcards.study][wildcards.grid]["runs_of"](rep)
                                     for rep in SEQUENTIAL_GRIDS[wildcards.study][wildcards.grid]["planned"]},
    wildcard_constraints:
        study=r"[a-z_]+",
        grid=r"[a-z_-]+",
    localrule: True
    script:
        "scripts/sequential_makeups.py"


def _look_inputs(wildcards):
    study, look = wildcards.study, int(wildcards.look)
    found = {name: value for name, value in SEQUENTIAL_LOOK_INPUTS[study].items() if not isinstance(value, GridRuns)}
    found["criteria"] = claims_criteria(study)
    found["sequential"] = SEQ_CRITERIA
    found.update(makeup_paths(study))
    if look > 1:
        found["previous"] = f"{RESULTS}/tmp/{study}/looks/look{look - 1}.json"
    return found


def _look_params(wildcards):
    study, look = wildcards.study, int(wildcards.look)
    grids = SEQUENTIAL_GRIDS[study]
    makeups = {grid: makeups_of(study, grid) for grid in grids} if SEQ.max_makeups else {}
    return {
        "plan": vars(SEQ),
        "judging": {**judging(study), **SEQ_MODULE.judging_params(SEQ, look, "", makeups)},
        "grids": {grid: spec["findings"] for grid, spec in grids.items()},
        "by_repeat": {grid: {rep: spec["runs_of"](rep) for rep in grid_repeats(study, grid, look - 1)}
                      for grid, spec in grids.items()},
        "settings": CLAIMS[study]["settings"],
    }


checkpoint sequential_look:
    """Look `look` at a study's claims on the repeats run so far, every interval at the split
    level (sequential.yaml): which timed findings are decided, which are still open, and which
    grids get more repeats before the next look."""
    input:
        unpack(_look_inputs),
        # the grids' records apart: they wait on the makeups (and earlier looks)
        unpack(lambda wildcards: {name: value.at(int(wildcards.look) - 1) for name, value
                                  in SEQUENTIAL_LOOK_INPUTS[wildcards.study].items() if isinstance(value, GridRuns)}),
    output:
        f"{RESULTS}/tmp/{{study}}/looks/look{{look}}.json",
    log:
        f"{RESULTS}/logs/{{study}}/look{{look}}.log",
    params:
        study=lambda wildcards: wildcards.study,
        look=lambda wildcards: int(wildcards.look),
        values=_look_params,
    wildcard_constraints:
        study=r"[a-z_]+",
        look=r"[1-9][0-9]*",
    localrule: True
    script:
        "scripts/sequential_look.py"
