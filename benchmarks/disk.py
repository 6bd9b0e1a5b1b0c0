"""The disk a user needs: the size of each folder given, and of each first-level
part of a run folder, in MB (10^6 bytes), with the commit, machine and date.

    python benchmarks/disk.py LABEL=PATH [LABEL=PATH ...] [--out reference/disk.csv]

A PATH that is a run folder (it holds tables/ or raw/) is also taken apart by
its first-level entries (tables, figures, raw, logs, settings, tmp, ...), so
that what a finished run keeps and what only its jobs needed are told apart.
With --out, the rows are added to the file (one measurement per label and
date), so that several runs' sizes sit in one committed table.
"""
from __future__ import annotations

import argparse
import csv
import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COLUMNS = ["label", "part", "mb", "files", "commit", "machine", "date"]


def size(path: Path) -> tuple[int, int]:
    """(bytes, files) under path, symlinks not followed; a file alone counts as itself."""
    if path.is_symlink():
        return 0, 0
    if path.is_file():
        return path.stat().st_size, 1
    total = count = 0
    for root, _, files in os.walk(path):
        for name in files:
            file = Path(root) / name
            if not file.is_symlink():
                total += file.stat().st_size
                count += 1
    return total, count


def commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=REPO)
    return done.stdout.strip() or "unknown"


def rows_for(label: str, path: Path) -> list[dict]:
    stamp = {"commit": commit(), "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
             "date": datetime.date.today().isoformat()}
    total, files = size(path)
    rows = [{"label": label, "part": "(all)", "mb": round(total / 1e6, 1), "files": files, **stamp}]
    if path.is_dir() and ((path / "tables").is_dir() or (path / "raw").is_dir()):
        for entry in sorted(path.iterdir()):
            part_bytes, part_files = size(entry)
            rows.append({"label": label, "part": entry.name, "mb": round(part_bytes / 1e6, 1), "files": part_files,
                         **stamp})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="LABEL=PATH")
    parser.add_argument("--out", type=Path, default=None, help="add the rows to this CSV")
    args = parser.parse_args(argv)
    rows = []
    for item in args.paths:
        label, sep, path = item.partition("=")
        if not sep or not label or not path:
            print(f"disk: {item!r}: give LABEL=PATH", file=sys.stderr)
            return 2
        if not Path(path).exists():
            print(f"disk: {path}: no such file or folder", file=sys.stderr)
            return 2
        rows += rows_for(label, Path(path))
    for row in rows:
        print(f"{row['label']:<24} {row['part']:<16} {row['mb']:>10.1f} MB {row['files']:>8} files")
    if args.out:
        old = list(csv.DictReader(args.out.open(encoding="utf-8"))) if args.out.is_file() else []
        keys = {(r["label"], r["date"]) for r in rows}
        kept = [r for r in old if (r["label"], r["date"]) not in keys]
        with args.out.open("w", newline="", encoding="utf-8") as file:
            writer = csv.DictWriter(file, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows(kept + rows)
        print(f"table: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
