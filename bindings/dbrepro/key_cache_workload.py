"""E2's one workload definition, written for the real MariaDB as a sysbench
Lua script: the table (k = id, as the article's sysbench 0.5 script prepared
it) and each client thread's points (its slice of the keys, sysbench's
"special" or "uniform" draw, our 32-bit xorshift), step for step as the
model's clients draw them in engine/src/sysbench/point_stream.hpp, whose
header says what each step mirrors in sysbench 0.5's and 1.0.20's
select_random_points.lua. For one seed, thread and settings the script and
the model draw the same points (tests/test_key_cache_workload.py runs both).

    >>> from dbrepro import key_cache_workload as w
    >>> w.write_script("select_points.lua")       # what the workflow runs with sysbench
    >>> w.model_points(seed=1, thread=0, threads=4, rows=2_000_000, distribution="special", points=10, queries=3)

The script's options (besides sysbench's own and the driver's):
    --table-size N        rows of sbtest1 (k = id = 1..N)
    --random-points P     points per query (the IN list)
    --distribution D      special (sysbench's default --rand-type) or uniform
    --points-seed S       the seed of every thread's points
    --dump-points on      print each query's points instead of querying (no database)
Commands: prepare (create and load sbtest1 as MyISAM, then its k index) and run.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

DISTRIBUTIONS = ("special", "uniform")
TABLE = "sbtest1"
# The article's sysbench 0.5 prepare: c and pad the same in every row (CHAR
# columns: MyISAM's fixed-length rows, 188 bytes of columns as in the model).
C_VALUE = " "
PAD_VALUE = "qqqqqqqqqqwwwwwwwwwweeeeeeeeeerrrrrrrrrrtttttttttt"

# Every constant and step below is point_stream.hpp's: PointRng, thread_slice,
# draw_point with kSpecIter 12, kSpecPct 1, kSpecRes 75.
_SCRIPT = r"""-- Written by dbrepro.key_cache_workload (do not edit): E2's workload definition
-- for sysbench 1.0, the same steps as engine/src/sysbench/point_stream.hpp.
-- Mirrors select_random_points.lua (sysbench 0.5, the article's; 1.0.20's
-- keeps its per-thread slices): SELECT id, k, c, pad FROM sbtest1 WHERE k IN (P points).
local bit = require("bit")

sysbench.cmdline.options = {
   table_size = {"rows of sbtest1 (k = id)", 10000},
   random_points = {"points per query", 10},
   distribution = {"special or uniform: how each thread draws its points in its slice", "special"},
   points_seed = {"seed of every thread's points", 1},
   dump_points = {"print each query's points, touch no database", false},
}

local TWO32 = 4294967296
local SPEC_ITER, SPEC_PCT, SPEC_RES = 12, 1, 75

-- PointRng: a 32-bit xorshift (13, 17, 5) from the seed's low 32 bits and the thread.
local function rng_new(seed, thread)
   local s = bit.bxor(bit.tobit(seed % TWO32), bit.tobit((thread + 1) * 65537))
   if s == 0 then s = bit.tobit(0x9E3779B9) end
   return {s = s}
end

local function rng_below(r, n)
   local s = r.s
   s = bit.bxor(s, bit.lshift(s, 13))
   s = bit.bxor(s, bit.rshift(s, 17))
   s = bit.bxor(s, bit.lshift(s, 5))
   r.s = s
   return (s % TWO32) % n
end

-- draw_point: one key of [lo, hi] as sysbench's sb_rand draws it.
local function draw_point(r, uniform, lo, hi)
   local t = hi - lo
   if uniform then return lo + rng_below(r, t + 1) end
   if t == 0 then return lo end
   if rng_below(r, 100) >= SPEC_RES then
      local sum = 0
      for _ = 1, SPEC_ITER do sum = sum + rng_below(r, t) end
      return lo + math.floor(sum / SPEC_ITER)
   end
   local band = math.max(1, math.floor(t * SPEC_PCT / 100))
   return lo + math.floor(t / 2) - math.floor(t * SPEC_PCT / 200) + rng_below(r, band)
end

local function check_options()
   local d = sysbench.opt.distribution
   assert(d == "special" or d == "uniform", "--distribution must be special or uniform, got " .. tostring(d))
   assert(sysbench.opt.table_size >= 1, "--table-size must be >= 1")
   assert(sysbench.opt.random_points >= 1, "--random-points must be >= 1")
end

function prepare()
   check_options()
   local con = sysbench.sql.driver():connect()
   con:query("DROP TABLE IF EXISTS sbtest1")
   con:query([[CREATE TABLE sbtest1 (
        id INTEGER UNSIGNED NOT NULL AUTO_INCREMENT,
        k INTEGER UNSIGNED DEFAULT '0' NOT NULL,
        c CHAR(120) DEFAULT '' NOT NULL,
        pad CHAR(60) DEFAULT '' NOT NULL,
        PRIMARY KEY (id)) ENGINE = MyISAM]])
   con:bulk_insert_init("INSERT INTO sbtest1 (id, k, c, pad) VALUES")
   for i = 1, sysbench.opt.table_size do
      con:bulk_insert_next(string.format("(%d, %d, '@C@', '@PAD@')", i, i))
   end
   con:bulk_insert_done()
   -- After the load, as the model builds it: MyISAM then builds the index by sort.
   con:query("CREATE INDEX k_1 ON sbtest1 (k)")
   con:disconnect()
end

function thread_init()
   check_options()
   local threads = sysbench.opt.threads
   thread_id = sysbench.tid % threads
   -- thread_slice: [rows * tid / T, rows * (tid + 1) / T]
   lo = math.floor(sysbench.opt.table_size * thread_id / threads)
   hi = math.floor(sysbench.opt.table_size * (thread_id + 1) / threads)
   uniform = sysbench.opt.distribution == "uniform"
   rng = rng_new(sysbench.opt.points_seed, thread_id)
   points = {}
   if sysbench.opt.dump_points then return end
   con = sysbench.sql.driver():connect()
   stmt = con:prepare(string.format("SELECT id, k, c, pad FROM sbtest1 WHERE k IN (%s)",
                                    string.rep("?, ", sysbench.opt.random_points - 1) .. "?"))
   params = {}
   for j = 1, sysbench.opt.random_points do params[j] = stmt:bind_create(sysbench.sql.type.INT) end
   stmt:bind_param(unpack(params))
end

function thread_done()
   if sysbench.opt.dump_points then return end
   stmt:close()
   con:disconnect()
end

function event()
   for i = 1, sysbench.opt.random_points do points[i] = draw_point(rng, uniform, lo, hi) end
   if sysbench.opt.dump_points then
      -- One write per line: the threads share stdout (fwrite holds the stream's lock).
      io.stdout:write(string.format("points %d %s\n", thread_id, table.concat(points, " ")))
      return
   end
   for i = 1, sysbench.opt.random_points do params[i]:set(points[i]) end
   stmt:execute()
end
"""


def script_text() -> str:
    return _SCRIPT.replace("@C@", C_VALUE).replace("@PAD@", PAD_VALUE)


def write_script(path: str | os.PathLike) -> Path:
    """Writes the script (what sysbench runs for prepare and run); its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(script_text(), encoding="utf-8")
    return path


def sysbench_options(*, rows: int, points: int, distribution: str, seed: int) -> list[str]:
    """The script's options for one workload (the same settings the model takes)."""
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"distribution: invalid value {distribution!r} (allowed: {', '.join(DISTRIBUTIONS)})")
    return [f"--table-size={int(rows)}", f"--random-points={int(points)}", f"--distribution={distribution}",
            f"--points-seed={int(seed)}"]


def model_points(*, seed: int, thread: int, threads: int, rows: int, distribution: str, points: int,
                 queries: int) -> list[list[int]]:
    """The first `queries` queries' points of one client thread, as the model draws them."""
    from . import _engine

    return [list(q) for q in _engine.key_cache_points(seed=seed, thread=thread, threads=threads, rows=rows,
                                                      distribution=distribution, points=points, queries=queries)]


def parse_dump(text: str) -> dict[int, list[list[int]]]:
    """thread -> its queries' points, from the script's --dump-points output."""
    found: dict[int, list[list[int]]] = {}
    for line in text.splitlines():
        if line.startswith("points "):
            _, thread, *values = line.split()
            found.setdefault(int(thread), []).append([int(v) for v in values])
    return found


def describe() -> dict[str, Any]:
    """What a record says about the workload's definition."""
    return {"table_k": "id", "script": "dbrepro.key_cache_workload", "c": C_VALUE, "pad": PAD_VALUE}
