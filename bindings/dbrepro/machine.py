"""The machine a run ran on: its fingerprint and its kind (issue 52).

A fingerprint is the CPU's identity (vendor, family, model, stepping, name),
its caches, topology, hypervisor, kernel and memory, and the primitive costs a
finding here can depend on (measured by dbrepro-machine, engine/src/measure/
primitives.hpp, in about 15 seconds outside the timed cells): a fixed
single-thread loop, a cache line moved between two CPUs, a blocking wake-up
across CPUs, a context switch on one CPU, contended hand-offs of an adaptive
mutex at 4 and 64 threads, memory latency, and the results disk's fdatasync and
O_DIRECT 4 KiB read latencies. The workflow takes one at the start of a run and
one at the end (results/<run>/machine.json).

A run's kind is a stated function of the fingerprint, its CPU identity and
caches, never its timings:

    <vendor> family <f> model <m> stepping <s>, L2 <size>, L3 <size>

so two VMs of one kind can still differ in speed (the fixed loop says by how
much), and a verdict speaks for its kind. Runs committed before fingerprints
recorded only the CPU's name: their kind is `unrecorded: <name>`.

    dbrepro machine --dir results/quick --out results/quick/machine/start.json
"""
from __future__ import annotations

import json
import os
import platform
import shutil
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

UNRECORDED = "unrecorded"
PRIMITIVES_EXECUTABLE = "dbrepro-machine"
VENDORS = {"GenuineIntel": "Intel", "AuthenticAMD": "AMD"}


def _cpuinfo() -> dict[str, str]:
    """The first processor's fields of /proc/cpuinfo."""
    fields: dict[str, str] = {}
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return fields
    for line in text.split("\n\n")[0].splitlines():
        name, colon, value = line.partition(":")
        if colon:
            fields[name.strip()] = value.strip()
    return fields


def caches(cpu: int = 0) -> list[dict[str, Any]]:
    """The caches the kernel reports for one CPU: level, type, size, ways, line, which CPUs share it."""
    found = []
    for index in sorted(Path(f"/sys/devices/system/cpu/cpu{cpu}/cache").glob("index*")):
        def read(name):
            try:
                return (index / name).read_text().strip()
            except OSError:
                return ""
        found.append({"level": int(read("level") or 0), "type": read("type"), "size": read("size"),
                      "ways": int(read("ways_of_associativity") or 0), "line": int(read("coherency_line_size") or 0),
                      "shared_cpus": read("shared_cpu_list")})
    return found


def _lscpu() -> dict[str, str]:
    if not shutil.which("lscpu"):
        return {}
    try:
        done = subprocess.run(["lscpu", "--json"], capture_output=True, text=True, timeout=20)
        rows = json.loads(done.stdout).get("lscpu", [])
    except (OSError, subprocess.SubprocessError, json.JSONDecodeError):
        return {}
    return {str(row.get("field", "")).rstrip(":"): str(row.get("data", "")) for row in rows}


def identity() -> dict[str, Any]:
    """The CPU's identity and the machine around it (no timing)."""
    info, lscpu = _cpuinfo(), _lscpu()
    flags = set(info.get("flags", "").split())
    try:
        usable = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = os.cpu_count()
    memory = next((line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal:")), "0") if Path("/proc/meminfo").exists() else "0"
    return {
        "vendor": info.get("vendor_id", platform.processor() or "unknown"),
        "family": info.get("cpu family", ""),
        "model": info.get("model", ""),
        "stepping": info.get("stepping", ""),
        "model_name": info.get("model name", ""),
        "microcode": info.get("microcode", ""),
        "caches": caches(),
        "topology": {"logical_cpus": os.cpu_count(), "usable_cpus": usable,
                     "sockets": lscpu.get("Socket(s)", ""), "cores_per_socket": lscpu.get("Core(s) per socket", ""),
                     "threads_per_core": lscpu.get("Thread(s) per core", ""), "numa_nodes": lscpu.get("NUMA node(s)", "")},
        "hypervisor": lscpu.get("Hypervisor vendor", "") or ("unknown" if "hypervisor" in flags else "none"),
        "virtualization": lscpu.get("Virtualization type", ""),
        "kernel": platform.release(),
        "memory_kib": int(memory),
    }


def _cache_size(found: list[dict[str, Any]], level: int) -> str:
    sizes = [c["size"] for c in found if c.get("level") == level and c.get("type") in ("Unified", "Data")]
    return sizes[0] if sizes else "?"


def kind_of(ident: dict[str, Any]) -> str:
    """The kind of machine: its CPU's vendor, family, model and stepping and its L2 and L3 sizes."""
    vendor = VENDORS.get(ident.get("vendor", ""), ident.get("vendor", "unknown"))
    found = ident.get("caches") or []
    return (f"{vendor} family {ident.get('family', '?')} model {ident.get('model', '?')} stepping "
            f"{ident.get('stepping', '?')}, L2 {_cache_size(found, 2)}, L3 {_cache_size(found, 3)}")


def unrecorded_kind(cpu_name: str) -> str:
    """The kind of a run committed before fingerprints: only the CPU's name is known."""
    return f"{UNRECORDED}: {cpu_name.strip() or 'unknown CPU'}"


def primitives_executable() -> Path | None:
    """dbrepro-machine beside the running interpreter, on PATH, or in the source tree's build folders."""
    beside = Path(sys.executable).parent / PRIMITIVES_EXECUTABLE
    if beside.is_file():
        return beside
    on_path = shutil.which(PRIMITIVES_EXECUTABLE)
    if on_path:
        return Path(on_path)
    root = Path(__file__).resolve().parents[2]
    return next((p for p in sorted((root / "build").glob(f"**/{PRIMITIVES_EXECUTABLE}")) if p.is_file()), None)


def primitives(folder: str | Path, brief: bool = False) -> dict[str, Any]:
    """The primitive costs, measured now (`folder`: where the disk's are measured; brief: a tenth of
    the rounds, for a run that times nothing); or why not."""
    executable = primitives_executable()
    if executable is None:
        return {"error": f"{PRIMITIVES_EXECUTABLE} is not built (make build)"}
    try:
        done = subprocess.run([str(executable), "--dir", str(folder), *(["--brief"] if brief else [])],
                              capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as error:
        return {"error": f"{PRIMITIVES_EXECUTABLE}: {error}"}
    if done.returncode != 0:
        return {"error": f"{PRIMITIVES_EXECUTABLE} exited {done.returncode}: {done.stderr.strip()[-200:]}"}
    return json.loads(done.stdout)


def fingerprint(folder: str | Path, phase: str = "start", measure: bool = True, brief: bool = False) -> dict[str, Any]:
    """The run's machine at one moment: identity, kind and (measure=True) primitive costs."""
    ident = identity()
    found = {"phase": phase, "timestamp_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"),
             "kind": kind_of(ident), "identity": ident}
    if measure:
        found["primitives"] = primitives(folder, brief)
    return found


def combined(start: dict[str, Any], end: dict[str, Any] | None, methods: dict[str, str] | None = None) -> dict:
    """results/<run>/machine.json: the kind, the identity, the primitives at the start and the end."""
    out = {"kind": start["kind"], "identity": start["identity"], "start": start.get("primitives", {}),
           "started_utc": start.get("timestamp_utc")}
    if end is not None:
        out["end"] = end.get("primitives", {})
        out["ended_utc"] = end.get("timestamp_utc")
        if end.get("kind") != start["kind"]:
            out["kind_changed"] = f"the run ended on {end.get('kind')} (a VM moved)"
    if methods:
        out["methods"] = dict(methods)
    return out


def kind_of_run(folder: str | Path) -> str:
    """A committed run's kind: from its machine.json, else from its summary's machine line
    (runs from before fingerprints), else unknown."""
    folder = Path(folder)
    machine = folder / "machine.json"
    if machine.is_file():
        return json.loads(machine.read_text(encoding="utf-8"))["kind"]
    summary = folder / "summary.md"
    if summary.is_file():
        for line in summary.read_text(encoding="utf-8").splitlines():
            if line.startswith("- machine:"):
                return unrecorded_kind(line.split(":", 1)[1].split(",")[0])
    return unrecorded_kind("")


def main(argv: list[str] | None = None) -> int:
    """`dbrepro machine --dir DIR --out FILE [--phase start|end] [--no-measure]`."""
    import argparse

    parser = argparse.ArgumentParser(prog="dbrepro machine", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, type=Path, metavar="DIR",
                        help="the run's results folder (the disk's latencies are measured there)")
    parser.add_argument("--out", required=True, type=Path, metavar="FILE.json", help="where to write the fingerprint")
    parser.add_argument("--phase", choices=("start", "end"), default="start", help="when in the run it is taken")
    parser.add_argument("--no-measure", action="store_true", help="identity and kind only (no primitive costs)")
    parser.add_argument("--brief", action="store_true",
                        help="a tenth of the rounds (about 2 s), for a run that times nothing")
    args = parser.parse_args(argv)
    if not args.dir.is_dir():
        parser.error(f"--dir: {args.dir} is not a folder")
    found = fingerprint(args.dir, args.phase, measure=not args.no_measure, brief=args.brief)
    from .records import write_json_atomic

    write_json_atomic(found, args.out)
    print(f"{args.phase}: {found['kind']} -> {args.out}")
    return 0
