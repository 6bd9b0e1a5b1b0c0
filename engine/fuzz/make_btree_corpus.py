"""Writes the seed corpus of fuzz_btree (engine/fuzz/corpus/fuzz_btree/):
a few hand-made operation sequences that already reach splits at every
level, emptied leaves, scans across them and both ends of the key range, so
that short CI runs start from deep states. See fuzz_btree.cpp for the format.

    python engine/fuzz/make_btree_corpus.py
"""
from __future__ import annotations

from pathlib import Path

INSERT, ERASE, LOOKUP, UPDATE, SCAN, INSERT_RUN, ERASE_RUN, CHECK = range(8)
LAYOUTS = 5
OUT = Path(__file__).resolve().parent / "corpus" / "fuzz_btree"


def op(kind: int, key: int = 0, arg: int = 0, stride: int = 1) -> bytes:
    return bytes([kind | ((stride - 1) << 3), key >> 8, key & 0xFF, arg])


def grow(start: int, runs: int, stride: int = 1) -> bytes:
    """`runs` runs of 256 keys: thousands of keys, a tree of height 3."""
    return b"".join(op(INSERT_RUN, start + r * 256 * stride, 255, stride) for r in range(runs))


def seeds() -> dict[str, bytes]:
    out = {}
    for layout in range(LAYOUTS):
        out[f"grow_layout{layout}"] = bytes([layout]) + grow(0, 12) + op(CHECK)
    # Grow, empty a stretch of leaves, then scan and point-query across it.
    out["hollow"] = (
        bytes([0]) + grow(1000, 10) + b"".join(op(ERASE_RUN, 1500 + 256 * i, 255) for i in range(4))
        + op(SCAN, 1400, 255) + op(LOOKUP, 1600) + op(INSERT, 1700, 7) + op(CHECK)
    )
    # Both ends of the key range, duplicates, updates and erases of absent keys.
    out["extremes"] = bytes([3]) + b"".join(
        [op(INSERT, 0xFFFF, 1), op(INSERT, 0, 2), op(INSERT, 0xFFFF, 3), op(UPDATE, 0, 4), op(UPDATE, 5, 5),
         op(ERASE, 6), op(LOOKUP, 0xFFFF), op(SCAN, 0, 10), op(INSERT_RUN, 0xFF00, 255, 1), op(SCAN, 0xFFFE, 5),
         op(ERASE, 0xFFFF), op(CHECK)]
    )
    # Strided runs interleave: inserts land inside full leaves, not at the end.
    out["interleaved"] = bytes([4]) + grow(0, 4, stride=8) + grow(4, 4, stride=8) + grow(2, 4, stride=8) + op(CHECK)
    return out


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, data in seeds().items():
        (OUT / name).write_bytes(data)
    print(f"{len(seeds())} seeds in {OUT}")


if __name__ == "__main__":
    main()
