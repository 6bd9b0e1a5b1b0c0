"""How long a workflow run should take on this machine's kind (issues 52 and 54),
per study and in all, from what committed runs of the same profile took.

The committed runs are reference/runs/<name>/ (logs/times.csv: each study's
jobs, busy and job seconds; the profile and machine from summary.md, the kind
from machine.json where the run has one: dbrepro.machine.kind_of_run) and the
complete workflow logs in reference/workflow-logs/ (logs.csv names each one's
profile, kind and loop; <name>.times.csv is its times.csv).

- Runs of this machine's kind and the profile: the median of their times.
- A new kind: the nearest kind that ran the profile (the same CPU name, else
  model, else vendor), its times scaled by a fixed loop's ratio, this machine's
  over that run's, where a run of it recorded one: dbrepro-machine's fixed loop
  (machine.json's `fixed_loop_s`) or the Python loop benchmarks/make_times.py
  times (reference/make-times.csv's `ref_loop_s`), measured here the same way.
  Where none recorded a loop, unscaled, and the line says so.

`python -m dbrepro.run_times --profile quick` prints the line `make repro`
starts with; `--preflight` (the full profile's) adds each study's time, disk and
memory, and refuses in one line (exit 1) where this machine cannot hold them.
"""
from __future__ import annotations

import argparse
import ast
import csv
import re
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import machine, studies
from .source import repo_root

REPO = repo_root()
FIXED, PYTHON = "fixed", "python"
LOOP_WORDS = {FIXED: "dbrepro-machine's fixed loop", PYTHON: "the Python loop of benchmarks/make_times.py"}
RECENT = 5  # the most recent runs of a kind speak for it: the workflow changes over time
DISTURBED = re.compile(r"-hog\b")  # runs made beside a CPU hog on purpose (their names say so)
MEMORY_HEADROOM_GB = 2.0  # what the workflow leaves the rest of the machine (workflows/common.smk, memory_mb)


@dataclass
class Reference:
    """One committed run's times."""
    name: str
    profile: str
    kind: str
    busy_s: dict[str, float]  # study -> seconds some job of it ran
    job_s: dict[str, float]  # study -> its jobs' seconds summed
    total_s: float  # the run's wall time
    loops: dict[str, float] = field(default_factory=dict)  # FIXED/PYTHON -> seconds
    written: str = ""  # when (ISO date), for the most recent runs of a kind


def _times(path: Path) -> tuple[dict, dict, float]:
    busy, job, total = {}, {}, 0.0
    with path.open(encoding="utf-8") as file:
        for row in csv.DictReader(file):
            if row["study"] == "total":
                total = float(row["busy_s"])
            else:
                busy[row["study"]], job[row["study"]] = float(row["busy_s"]), float(row["job_s"])
    return busy, job, total


def _summary_field(summary: Path, name: str) -> str:
    for line in summary.read_text(encoding="utf-8").splitlines():
        if line.startswith(f"- {name}:"):
            return line.split(":", 1)[1].strip().strip("`")
    return ""


def _python_loops(root: Path) -> dict[str, float]:
    """reference/make-times.csv's ref_loop_s per `make repro` run: by the run named in its
    note (reference/runs/<name>), else by its commit."""
    path = root / "reference" / "make-times.csv"
    found: dict[str, float] = {}
    if not path.is_file():
        return found
    with path.open(encoding="utf-8") as file:
        for row in csv.DictReader(file):
            if row.get("command") == "make repro" and row.get("ref_loop_s"):
                named = re.search(r"reference/runs/([\w.-]+)", row.get("note", ""))
                found[named.group(1) if named else f"commit:{row['commit']}"] = float(row["ref_loop_s"])
    return found


def committed(root: Path = REPO) -> list[Reference]:
    """Every committed run with times: reference/runs/* and reference/workflow-logs/."""
    refs = []
    python_loops = _python_loops(root)
    for folder in sorted((root / "reference" / "runs").glob("*")):
        times, summary = folder / "logs" / "times.csv", folder / "summary.md"
        if not (times.is_file() and summary.is_file()) or DISTURBED.search(folder.name):
            continue
        busy, job, total = _times(times)
        loops = {}
        fixed = _fixed_loop(folder)
        if fixed:
            loops[FIXED] = fixed
        commit = _summary_field(summary, "commit")[:7]
        python = python_loops.get(folder.name) or python_loops.get(f"commit:{commit}")
        if python:
            loops[PYTHON] = python
        refs.append(Reference(folder.name, _summary_field(summary, "profile"), machine.kind_of_run(folder),
                              busy, job, total, loops, _summary_field(summary, "written").split(" ")[0]))
    index = root / "reference" / "workflow-logs" / "logs.csv"
    listed = {ref.name for ref in refs}
    if index.is_file():
        with index.open(encoding="utf-8") as file:
            for row in csv.DictReader(file):
                times = index.parent / f"{row['name']}.times.csv"
                # A log whose run is committed under reference/runs/ (same name) is that run, counted once.
                if row.get("reference") != "yes" or not times.is_file() or row["name"] in listed:
                    continue
                busy, job, total = _times(times)
                loops = {measure: float(row[f"{measure}_loop_s"]) for measure in (FIXED, PYTHON)
                         if row.get(f"{measure}_loop_s")}
                refs.append(Reference(f"workflow-logs/{row['name']}", row["profile"], row["kind"],
                                      busy, job, total, loops, row.get("date", "")))
    return refs


def _fixed_loop(folder: Path) -> float | None:
    import json

    path = folder / "machine.json"
    if not path.is_file():
        return None
    value = json.loads(path.read_text(encoding="utf-8")).get("start", {}).get("fixed_loop_s")
    return float(value) if value else None


# ---- this machine ----------------------------------------------------------------------

def reference_loop(root: Path = REPO):
    """The loop benchmarks/make_times.py times (its REFERENCE_LOOP, read from that file so that
    there is one), compiled without its own timing; None outside a source tree."""
    source = root / "benchmarks" / "make_times.py"
    if not source.is_file():
        return None
    tree = ast.parse(source.read_text(encoding="utf-8"))
    code = next((node.value.value for node in tree.body if isinstance(node, ast.Assign)
                 and any(getattr(t, "id", "") == "REFERENCE_LOOP" for t in node.targets)), None)
    if not code:
        return None
    body = "\n".join(line for line in code.splitlines() if "perf_counter" not in line and "print(" not in line)
    return compile(body, "REFERENCE_LOOP", "exec")


def python_loop_seconds(root: Path = REPO, attempts: int = 3) -> float | None:
    """The reference loop's best time of `attempts` (about 2 s each)."""
    compiled = reference_loop(root)
    if compiled is None:
        return None
    best = None
    for _ in range(attempts):
        start = time.perf_counter()
        exec(compiled, {})  # noqa: S102 - the committed benchmark's own loop
        took = time.perf_counter() - start
        best = took if best is None else min(best, took)
    return best


def fixed_loop_seconds(folder: Path) -> float | None:
    """dbrepro-machine's fixed loop (with its brief set of the other primitives), where it is built."""
    measured = machine.primitives(folder, brief=True)
    return measured.get("fixed_loop_s")


def measure_loop(measure: str, folder: Path = REPO) -> float | None:
    return fixed_loop_seconds(folder) if measure == FIXED else python_loop_seconds()


def here() -> tuple[str, str]:
    """This machine's kind and CPU name."""
    ident = machine.identity()
    return machine.kind_of(ident), ident.get("model_name", "")


# ---- the expectation -------------------------------------------------------------------

@dataclass
class Expectation:
    profile: str
    kind: str
    cpu: str  # this machine's CPU name (a kind from before fingerprints matches by it)
    basis: str  # where the numbers come from, in words
    runs: list[str]
    busy_s: dict[str, float]
    job_s: dict[str, float]
    total_s: float | None

    def line(self) -> str:
        if self.total_s is None:
            return f"expected time: unknown for the {self.profile} profile on this kind ({self.kind}): {self.basis}"
        return (f"expected time: ~{minutes(self.total_s)} for the {self.profile} profile on this kind "
                f"({self.kind}): {self.basis}")

    def study_line(self) -> str:
        parts = [f"{name} ~{minutes(seconds)}" for name, seconds in self.busy_s.items() if name in studies.names()]
        return "  each study busy (they overlap): " + ", ".join(parts) if parts else ""


def _cpu_name(kind: str) -> str:
    return kind.split(":", 1)[1].strip() if kind.startswith(machine.UNRECORDED + ":") else ""


def _closeness(kind: str, mine: str, cpu: str) -> int:
    """How near a committed kind is to this machine's: 0 the same CPU name (a kind from before
    fingerprints) or the same vendor, family and model; 1 the same vendor; 2 another."""
    name = _cpu_name(kind).lower()
    cpu = cpu.strip().lower()
    if name:
        if cpu and (cpu.startswith(name) or name.startswith(cpu)):
            return 0
        return 1 if cpu and name.split()[0] == cpu.split()[0] else 2
    if kind.split(" stepping")[0] == mine.split(" stepping")[0]:
        return 0
    return 1 if kind.split()[:1] == mine.split()[:1] else 2


def _median(runs: list[Reference], field_name: str, scale: dict[str, float]) -> dict[str, float]:
    """Each study's median over the runs (the registry's studies first, in its order)."""
    found = {study for run in runs for study in getattr(run, field_name)}
    names = [s for s in studies.names() if s in found] + sorted(found - set(studies.names()))
    return {study: statistics.median(getattr(run, field_name)[study] * scale[run.name] for run in runs
                                     if study in getattr(run, field_name)) for study in names}


def expect(profile: str, kind: str | None = None, cpu: str | None = None,
           loop: Callable[[str], float | None] = measure_loop, refs: list[Reference] | None = None,
           exclude: tuple[str, ...] = ()) -> Expectation:
    """What a run of `profile` should take on `kind` (this machine's by default)."""
    if kind is None:
        kind, cpu = here()
    cpu = cpu or ""
    refs = [r for r in (committed() if refs is None else refs) if r.profile == profile and r.name not in exclude]
    if not refs:
        return Expectation(profile, kind, cpu, f"no committed run of the {profile} profile", [], {}, {}, None)
    same = _recent([r for r in refs if r.kind == kind])
    scale = {r.name: 1.0 for r in refs}
    if same:
        runs, basis = same, f"{_median_of(same)} of this kind ({_names(same)})"
    else:
        by_kind: dict[str, list[Reference]] = {}
        for r in refs:
            by_kind.setdefault(r.kind, []).append(r)
        nearest = min(by_kind, key=lambda k: (_closeness(k, kind, cpu), -any(r.loops for r in by_kind[k]),
                                              -len(by_kind[k]), k))
        scaled = _scaled(by_kind[nearest], loop)
        if scaled:
            runs, scale, words = scaled
            basis = (f"a new kind; the nearest that ran it: {nearest}, {_count(runs)} ({_names(runs)}) "
                     f"scaled by {words}")
        else:
            runs = _recent(by_kind[nearest])
            basis = (f"a new kind; the nearest that ran it: {nearest}, {_median_of(runs)} "
                     f"({_names(runs)}), unscaled: none of them recorded a loop")
    return Expectation(profile, kind, cpu, basis, [r.name for r in runs], _median(runs, "busy_s", scale),
                       _median(runs, "job_s", scale), statistics.median(r.total_s * scale[r.name] for r in runs))


def expect_here(profile: str) -> Expectation:
    """expect() for this machine, never in the way of a run: a committed file it cannot read
    leaves the expectation unknown, saying why."""
    try:
        return expect(profile)
    except (OSError, ValueError, KeyError) as error:
        return Expectation(profile, "this machine's", "", f"the committed runs could not be read ({error})",
                           [], {}, {}, None)


def _recent(runs: list[Reference]) -> list[Reference]:
    return sorted(runs, key=lambda r: r.written)[-RECENT:]


def _scaled(runs: list[Reference], loop: Callable[[str], float | None]):
    for measure in (FIXED, PYTHON):
        with_loop = _recent([r for r in runs if measure in r.loops])
        if not with_loop:
            continue
        mine = loop(measure)
        if not mine:
            continue
        scale = {r.name: mine / r.loops[measure] for r in with_loop}
        theirs = ", ".join(f"{r.loops[measure]:.3g} s on {r.name}" for r in with_loop)
        ratio = statistics.median(scale.values())
        return with_loop, scale, f"x{ratio:.2f}, {LOOP_WORDS[measure]}: {mine:.3g} s here, {theirs}"
    return None


def _median_of(runs: list[Reference]) -> str:
    return f"the median of {_count(runs)}" if len(runs) > 1 else _count(runs)


def _count(runs: list[Reference]) -> str:
    return f"{len(runs)} committed run{'s' if len(runs) != 1 else ''}"


def _names(runs: list[Reference]) -> str:
    return ", ".join(r.name for r in runs)


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min" if seconds >= 120 else f"{seconds:.0f} s"


# ---- the full profile's preflight ------------------------------------------------------

_HOURS = re.compile(r"(?:~|about )([\d.]+) h\b")
_DISK = (re.compile(r"about ([\d.]+) GB of disk"), re.compile(r"database file \(([\d.]+) GB"))
_RSS = re.compile(r"RSS ([\d.]+) GB")
_POOL = re.compile(r"up to \d+% of the database: ([\d.]+) GB")


def profile_comments(profile: str, root: Path = REPO) -> dict[str, str]:
    """Each top-level section's comments in config/<profile>.yaml: the lines above its key and in it."""
    sections: dict[str, str] = {}
    above: list[str] = []
    current = None
    for line in (root / "config" / f"{profile}.yaml").read_text(encoding="utf-8").splitlines():
        key = re.match(r"^(\w+):", line)
        if key:
            current = key.group(1)
            sections[current] = " ".join(above)
            above = []
        elif line.startswith("#"):
            above.append(line.lstrip("# "))
        elif current and "#" in line:
            sections[current] += " " + line.split("#", 1)[1].strip()
    return sections


def _disk_csv(profile: str, root: Path) -> dict[str, float]:
    """GB per study from reference/disk.csv's rows `<profile>-e<N>-...` (E<N>: the study's label)."""
    labels = {s.label.lower(): s.name for s in studies.STUDIES if s.label}
    found: dict[str, float] = {}
    path = root / "reference" / "disk.csv"
    if not path.is_file():
        return found
    with path.open(encoding="utf-8") as file:
        for row in csv.DictReader(file):
            match = re.match(rf"^{re.escape(profile)}-(e\d+)-", row["label"])
            if match and match.group(1) in labels:
                study = labels[match.group(1)]
                found[study] = found.get(study, 0.0) + float(row["mb"]) / 1024
    return found


@dataclass
class Need:
    study: str
    hours: float | None  # the profile's comments' time
    disk_gb: float
    disk_from: str
    memory_gb: float


def needs(profile: str, root: Path = REPO) -> list[Need]:
    """Each study's time, disk and memory as config/<profile>.yaml's comments state them, the disk
    from reference/disk.csv where the comments say none."""
    comments = profile_comments(profile, root)
    measured = _disk_csv(profile, root)
    out = []
    for name in studies.names():
        text = comments.get(name, "")
        hours = sum(float(h) for h in _HOURS.findall(text)) or None
        disk = [float(g) for pattern in _DISK for g in pattern.findall(text)]
        disk_gb, disk_from = (sum(disk), f"config/{profile}.yaml") if disk else (
            (measured[name], "reference/disk.csv") if name in measured else (0.0, ""))
        rss = [float(g) for g in _RSS.findall(text)]
        pool = [float(g) for g in _POOL.findall(text)]
        memory = (max(rss) if rss else 0.0) + (max(pool) if pool else 0.0)
        out.append(Need(name, hours, disk_gb, disk_from, memory))
    return out


def _existing(path: Path) -> Path:
    path = path.resolve()
    while not path.exists():
        path = path.parent
    return path


def memory_gb() -> float:
    identity = machine.identity()
    return identity.get("memory_kib", 0) / 2**20


def preflight(profile: str, results: Path, expectation: Expectation, out=sys.stdout,
              free_gb: float | None = None, memory: float | None = None, root: Path = REPO) -> int:
    """The expected time, then each study's estimated time and disk for this machine; 1 with one
    line saying why where the results folder's disk or the memory cannot hold the profile, else 0."""
    found = needs(profile, root)
    free_gb = shutil.disk_usage(_existing(results)).free / 2**30 if free_gb is None else free_gb
    memory = memory_gb() if memory is None else memory
    quick = expectation if profile == "quick" else expect(
        "quick", expectation.kind, expectation.cpu, loop=lambda _: None, refs=committed(root))
    rows, at_least = [], 0.0
    for need in found:
        if need.hours:
            took, seconds = f"~{need.hours:g} h (config/{profile}.yaml's comments)", need.hours * 3600
        elif need.study in expectation.busy_s:
            seconds = expectation.busy_s[need.study]
            took = f"~{minutes(seconds)} (committed runs: {', '.join(expectation.runs)})"
        else:
            seconds = quick.busy_s.get(need.study, 0.0)
            took = f"unknown (no committed {profile} run, no time in config/{profile}.yaml's comments)"
            took += f", more than the quick profile's ~{minutes(seconds)}" if seconds else ""
        at_least += seconds
        disk = f"{need.disk_gb:.1f} GB ({need.disk_from})" if need.disk_from else "no large files recorded"
        mem = f", memory {need.memory_gb:g} GB (config/{profile}.yaml)" if need.memory_gb else ""
        rows.append(f"  {need.study:<14} time {took}; disk {disk}{mem}")
    if expectation.total_s is not None:
        print(expectation.line(), file=out)
    else:
        print(f"expected time: more than ~{at_least / 3600:.0f} h for the {profile} profile on this kind "
              f"({expectation.kind}): no committed {profile} run; the studies' times below, added", file=out)
    print(f"preflight of the {profile} profile ({free_gb:.0f} GB free under {results}, {memory:.1f} GB of memory):",
          *rows, sep="\n", file=out)
    disk_needed = sum(n.disk_gb for n in found)
    biggest = max(found, key=lambda n: n.memory_gb)
    if disk_needed > free_gb:
        print(f"refused: the {profile} profile needs {disk_needed:.1f} GB of disk under {results} "
              f"({', '.join(f'{n.study} {n.disk_gb:.1f}' for n in found if n.disk_gb)}), {free_gb:.1f} GB are free",
              file=out)
        return 1
    if biggest.memory_gb and biggest.memory_gb + MEMORY_HEADROOM_GB > memory:
        print(f"refused: {biggest.study}'s largest job needs {biggest.memory_gb:g} GB of memory "
              f"(config/{profile}.yaml) and the workflow leaves {MEMORY_HEADROOM_GB:g} GB to the rest; "
              f"this machine has {memory:.1f} GB", file=out)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dbrepro.run_times", description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", required=True, help="the workflow profile (config/<profile>.yaml)")
    parser.add_argument("--results", type=Path, default=Path("results"), help="the run's results folder")
    parser.add_argument("--target", default="", help="one study run alone (make repro TARGET=...)")
    parser.add_argument("--preflight", action="store_true",
                        help="each study's time, disk and memory; refuse where this machine cannot hold them")
    args = parser.parse_args(argv)
    expectation = expect_here(args.profile)
    if args.preflight:
        return preflight(args.profile, args.results, expectation)
    line = expectation.line()
    if args.target in expectation.busy_s:
        line = (f"expected time: ~{minutes(expectation.busy_s[args.target])} for {args.target} alone "
                f"({args.profile} profile) on this kind ({expectation.kind}): {expectation.basis}")
    print(line, flush=True)
    if not args.target and expectation.study_line():
        print(expectation.study_line(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
