"""Instruction counts from callgrind, for machines without CPU counters.

Runs the native driver (`dbrepro-native`) under valgrind's callgrind, with
instrumentation switched on only once the database is loaded (the driver marks
that moment) and cost collection only inside the functions named by
`collect`, then reads each function's inclusive cost from callgrind's output
file.

With `cache_sim=True`, callgrind also simulates caches and branch prediction,
from which `estimated_cycles()` derives a cycle estimate (callgrind's own
formula, CEst = Ir + 10 Bm + 10 L1m + 100 LLm: an estimate, not a measurement).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

LAMBDA_CALL = re.compile(r"::operator\(\)\(.*\)( const)?( \[clone [^\]]*\])*$")


class CallgrindError(RuntimeError):
    """valgrind is missing or failed."""


@dataclass
class Profile:
    """Inclusive costs per function of one callgrind run."""

    events: list[str]
    totals: dict[str, int]
    functions: dict[str, dict[str, int]] = field(default_factory=dict)
    # (caller, callee) -> inclusive cost of those calls
    calls: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)
    stdout: str = ""  # what the profiled program printed
    # callgrind's `desc:` lines: with cache simulation, the caches it simulated
    # ("I1 cache" -> "32768 B, 64 B, 8-way associative"), read from the host's CPUID
    descriptions: dict[str, str] = field(default_factory=dict)

    def simulated_caches(self) -> dict[str, str]:
        """The cache geometry a cache-simulated run used (I1, D1, LL), {} without simulation."""
        return {name.removesuffix(" cache"): value for name, value in self.descriptions.items()
                if name.endswith(" cache")}

    def inclusive_costs(self, pattern: str) -> dict[str, int]:
        """Summed inclusive costs of the functions whose names match `pattern` (a regex).

        Nothing is counted twice: lambdas defined inside a matching function
        (their call operators) are left out, and so are calls from one
        matching function to another (a compiler's clone or split part called
        from its original, say), whose cost the caller already includes.
        """
        regex = re.compile(pattern)
        matching = {name for name in self.functions if regex.search(name) and not LAMBDA_CALL.search(name)}
        summed = dict.fromkeys(self.events, 0)
        for name in matching:
            for event, value in self.functions[name].items():
                summed[event] += value
        for (caller, callee), costs in self.calls.items():
            if caller in matching and callee in matching:
                for event, value in costs.items():
                    summed[event] -= value
        return summed

    def inclusive(self, pattern: str, event: str = "Ir") -> int:
        return self.inclusive_costs(pattern).get(event, 0)


def available() -> str:
    """'' if callgrind can run here, else why not."""
    if shutil.which("valgrind") is None:
        return "valgrind not found on PATH (install Debian's valgrind package)"
    return ""


def valgrind_version() -> str:
    try:
        return subprocess.run(["valgrind", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def profile(command: Sequence[str], collect: Sequence[str], *, cache_sim: bool = False) -> Profile:
    """Runs `command` under callgrind, collecting only inside functions matching `collect` globs."""
    why = available()
    if why:
        raise CallgrindError(why)
    with tempfile.TemporaryDirectory(prefix="dbrepro-callgrind-") as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
               "--instr-atstart=no", "--collect-atstart=no"]
        cmd += [f"--toggle-collect={pattern}" for pattern in collect]
        if cache_sim:
            cmd += ["--cache-sim=yes", "--branch-sim=yes"]
        cmd += list(command)
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            tail = done.stderr.strip().splitlines()[-3:]
            raise CallgrindError(f"callgrind run failed (exit {done.returncode}): {' | '.join(tail)}")
        parsed = parse_output(Path(out).read_text())
    parsed.stdout = done.stdout
    return parsed


def parse_output(text: str) -> Profile:
    """Parses a callgrind output file into inclusive costs per function.

    A function's inclusive cost is its own cost lines plus the cost of every
    call it makes (the line after `calls=`), whatever source file the lines
    came from (inlined code switches files with fi=/fe=). Grouping by function
    only, not by (file, function) as callgrind_annotate does, keeps inlined
    callbacks from being counted twice.
    """
    events: list[str] = []
    names: dict[str, str] = {}  # compressed "(id)" -> function name
    functions: dict[str, dict[str, int]] = {}
    totals: dict[str, int] = {}
    descriptions: dict[str, str] = {}
    current: dict[str, int] | None = None
    current_name = ""
    callee = ""
    calls: dict[tuple[str, str], dict[str, int]] = {}
    call_cost_next = False

    def function_name(spec: str) -> str:
        spec = spec.strip()
        if spec.startswith("("):
            ident, _, name = spec.partition(")")
            ident += ")"
            name = name.strip()
            if name:
                names[ident] = name
            return names.get(ident, ident)
        return spec

    for line in text.splitlines():
        if not line:
            continue
        head = line[0]
        if head.isdigit() or head in "+-*":
            if current is None:
                continue
            values = line.split()[1:]
            for event, value in zip(events, values):
                current[event] += int(value)
            if call_cost_next:  # this line is the cost of the calls= above it
                edge = calls.setdefault((current_name, callee), dict.fromkeys(events, 0))
                for event, value in zip(events, values):
                    edge[event] += int(value)
                call_cost_next = False
            continue
        key, _, value = line.partition("=")
        if key == "fn":
            current_name = function_name(value)
            current = functions.setdefault(current_name, dict.fromkeys(events, 0))
        elif key == "cfn":
            callee = function_name(value)
        elif key == "calls":
            call_cost_next = True
        elif line.startswith("desc:"):
            name, _, value = line[len("desc:"):].partition(":")
            descriptions[name.strip()] = value.strip()
        elif line.startswith("events:"):
            events = line.split(":", 1)[1].split()
        elif line.startswith("summary:") or line.startswith("totals:"):
            totals = dict(zip(events, (int(v) for v in line.split(":", 1)[1].split())))
    return Profile(events=events, totals=totals, functions=functions, calls=calls, descriptions=descriptions)


def estimated_cycles(costs: dict[str, int]) -> int | None:
    """callgrind's cycle estimate from one function's (or the totals') costs; None without cache simulation."""
    if "I1mr" not in costs:
        return None
    l1_misses = costs.get("I1mr", 0) + costs.get("D1mr", 0) + costs.get("D1mw", 0)
    ll_misses = costs.get("ILmr", 0) + costs.get("DLmr", 0) + costs.get("DLmw", 0)
    branch_misses = costs.get("Bcm", 0) + costs.get("Bim", 0)
    return costs.get("Ir", 0) + 10 * branch_misses + 10 * l1_misses + 100 * ll_misses


def native_json(profile_: Profile) -> dict:
    """The JSON result the native driver printed during the profiled run."""
    try:
        return json.loads(profile_.stdout)
    except json.JSONDecodeError as error:
        raise CallgrindError(f"the native driver printed no JSON result ({error})") from None


def native_path() -> Path:
    from . import native_executable

    path = native_executable()
    if path is None:
        raise CallgrindError("dbrepro-native is not built (pip install --no-build-isolation -e .)")
    return path
