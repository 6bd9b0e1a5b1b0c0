"""How long the README's commands take a new user: a fresh clone of this
repository, then each step of `make test` (or `make repro`) timed on its own,
with the load average before and after each and the commit and machine.

    python benchmarks/make_times.py [--target test|repro] [--profile quick] [--keep] [--out reference/make-times.csv]

The clone is made next to this checkout (so that ../shared is beside it, as
in CI) and removed afterwards unless --keep. Steps: `make setup` (Debian and
Python packages, the virtual environment), `make build` (the engine and the
extension), then `make test-cpp` and `make test-python` (what `make test`
runs) or `make repro PROFILE=...`. What the machine already had (Debian
packages, pip's and ccache's caches) is said in the `note` column: a fresh
clone on a machine that has built before is what a returning contributor
sees; a new machine costs more (the packages downloaded).

The VMs of this kind differ several-fold in speed, so each row also carries
`ref_loop_s`: the best of five runs of one fixed single-threaded Python loop
(10 million iterations), timed just before the steps. Two rows' times compare
only as far as their `ref_loop_s` do. `kind` is the machine's kind as a run's
fingerprint names it (CPU identity and caches; empty in rows written before).
"""
from __future__ import annotations

import argparse
import csv
import datetime
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COLUMNS = ["command", "step", "seconds", "exit", "load_before", "load_after", "commit", "machine", "date", "note",
           "ref_loop_s", "kind"]
REFERENCE_LOOP = """
import time
t = time.perf_counter()
x = 0
for i in range(10_000_000):
    x += i * i % 7
print(time.perf_counter() - t)
"""


def load_average() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def cpu_model() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def reference_loop_seconds(runs: int = 5) -> float:
    """The machine's speed at one fixed piece of single-threaded work: the best of `runs` timings."""
    times = [float(subprocess.run([sys.executable, "-c", REFERENCE_LOOP], capture_output=True, text=True,
                                  check=True).stdout) for _ in range(runs)]
    return round(min(times), 3)


def machine_kind() -> str:
    """The machine's kind as a run's fingerprint names it (dbrepro.machine.kind_of): the CPU's
    identity and caches. Read from the source tree, so that no build is needed."""
    sys.path.insert(0, str(REPO / "bindings"))
    try:
        from dbrepro import machine
    finally:
        sys.path.pop(0)
    return machine.kind_of(machine.identity())


def caches() -> str:
    def state(name: str) -> str:
        folder = Path.home() / ".cache" / name
        return "present" if folder.is_dir() and any(folder.iterdir()) else "empty"

    return (f"ccache {state('ccache')}, pip cache {state('pip')}, uv cache {state('uv')}, "
            f"Debian packages {'installed' if shutil.which('valgrind') and shutil.which('ccache') else 'missing'}")


def run_step(clone: Path, command: list[str], log) -> tuple[float, int, float, float]:
    before = load_average()
    start = time.monotonic()
    done = subprocess.run(command, cwd=clone, stdout=log, stderr=subprocess.STDOUT)
    return time.monotonic() - start, done.returncode, before, load_average()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=["test", "repro"], default="test")
    parser.add_argument("--profile", default="quick", help="make repro's PROFILE (default quick)")
    parser.add_argument("--keep", action="store_true", help="keep the clone")
    parser.add_argument("--out", type=Path, default=None, help="add the rows to this CSV")
    args = parser.parse_args(argv)
    clone = REPO.parent / f"{REPO.name}-make-times-{os.getpid()}"
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                            text=True).stdout.strip()
    note = caches()
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    steps = [("setup", ["make", "setup"]), ("build", ["make", "build"])]
    if args.target == "test":
        steps += [("test-cpp", ["make", "test-cpp"]), ("test-python", ["make", "test-python"])]
    else:
        steps += [("workflow", ["make", "repro", f"PROFILE={args.profile}"])]
    rows, total, code = [], 0.0, 0
    stamp = {"commit": commit, "machine": f"{cpu_model()}, {os.cpu_count()} CPUs",
             "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "note": note,
             "ref_loop_s": reference_loop_seconds(), "kind": machine_kind()}
    print(f"reference loop {stamp['ref_loop_s']:.3f} s (best of 5)", flush=True)
    log_path = clone / "make-times.log"
    try:
        with log_path.open("w") as log:
            for name, command in steps:
                seconds, code, before, after = run_step(clone, command, log)
                total += seconds
                rows.append({"command": f"make {args.target}", "step": name, "seconds": round(seconds),
                             "exit": code, "load_before": before, "load_after": after, **stamp})
                print(f"{name:<12} {seconds:7.0f} s  exit {code}  load {before:.1f} -> {after:.1f}", flush=True)
                if code != 0:
                    break
        rows.append({"command": f"make {args.target}", "step": "total", "seconds": round(total), "exit": code,
                     "load_before": rows[0]["load_before"], "load_after": rows[-1]["load_after"], **stamp})
        print(f"{'total':<12} {total:7.0f} s  exit {code}  ({note})")
        if code != 0:
            print(log_path.read_text()[-4000:], file=sys.stderr)
        if args.out:
            old = list(csv.DictReader(args.out.open(encoding="utf-8"))) if args.out.is_file() else []
            with args.out.open("w", newline="", encoding="utf-8") as file:
                writer = csv.DictWriter(file, fieldnames=COLUMNS)
                writer.writeheader()
                writer.writerows(old + rows)
            print(f"table: {args.out}")
    finally:
        if not args.keep:
            shutil.rmtree(clone, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
