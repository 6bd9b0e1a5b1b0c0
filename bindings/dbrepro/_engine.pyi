"""Type stubs for dbrepro._engine, the compiled C++ engine (bindings/src/*.cpp)."""
from collections.abc import Callable, Mapping, Sequence
from typing import Any

# ---- TPC-C and E1 (engine_module.cpp) ----------------------------------------

# The run functions take their settings as keywords named by their settings
# table (run_config_fields(), looking_glass_config_fields(), key_cache_config_fields(),
# quantum_config_fields(), openedge_config_fields(): name, type, unit, range,
# default, help, required); the table
# is their one description, so the stubs do not restate it
# (tests/test_settings_tables.py keeps it so).
def run_tpcc(*, progress: Callable[[int, int], bool | None] | None = None, **settings: Any) -> dict[str, Any]:
    """Load a TPC-C database, run the transaction mix on an engine stack
    ("bare", "step0".."step10", "optimal"), check consistency.

    Raises ValueError naming the parameter for a bad configuration (before
    loading anything), RuntimeError when meter "perf" finds no counters.
    Releases the GIL while running; `progress(done, total)` is called every
    `progress_every` transactions (total 0 for a timed run) and returning
    False stops the run. Ctrl-C stops the run at the next tick and raises
    KeyboardInterrupt.
    """

def ladder() -> list[dict[str, Any]]:
    """E1's removal ladder: step, label, component, page_size per step."""

def run_config(**settings: Any) -> dict[str, Any]:
    """A TPC-C run's every setting (as run_tpcc takes them), checked as a run checks them, defaults filled in."""

def run_config_fields() -> list[dict[str, Any]]:
    """The settings of a TPC-C run: name, type, unit, range, default, help, required."""

def looking_glass_config(**settings: Any) -> dict[str, Any]:
    """E1's count: every setting checked (the counted TPC-C run's too), defaults filled in;
    ValueError names the first bad or missing one."""

def looking_glass_config_fields() -> list[dict[str, Any]]:
    """The settings of E1's count: name, type, unit, range, default, help, required."""

def stacks() -> list[dict[str, Any]]:
    """The stacks a TPC-C run can pick: name, step, concurrent, disk, metered, study, summary."""

def policies() -> list[str]:
    """The page replacement policies of the page cache, in the engine's order."""

def build_info() -> dict[str, Any]:
    """How the engine was built: compiler, cxx_flags, build_type, cxx_standard, version."""

# ---- E2 key cache (key_cache_module.cpp) ------------------------------------------

def key_cache_build_table(
    *, directory: str, rows: int, seed: int = 1, block_size: int = 1024, distribution: str = "id"
) -> dict[str, Any]:
    """Write sysbench's sbtest (sbtest.MYD rows, sbtest.MYI indexes) into an existing directory."""

def key_cache_points(
    *, seed: int, thread: int, threads: int, rows: int, distribution: str, points: int, queries: int
) -> list[list[int]]:
    """The points of a client thread's first queries, as the model draws them (the workload
    definition shared with the real MariaDB's sysbench script)."""

def key_cache_latches() -> list[str]:
    """The segment mutexes a run can choose, MariaDB's (adaptive) first."""

def key_cache_modes() -> list[str]:
    """How the clients reach the key cache, the default (client_server: MariaDB's shape) first."""

def key_cache_table_info(*, directory: str) -> dict[str, Any]:
    """The metadata of the sbtest table in a directory."""

def key_cache_run(*, table_dir: str, **settings: Any) -> dict[str, Any]:
    """select_random_points per (threads, points) cell, each segments value in turn (rotated per repeat).
    The settings are key_cache_config_fields()'s."""

def key_cache_config(**settings: Any) -> dict[str, Any]:
    """E2: a model run's every setting (as key_cache_run takes them), checked as a run checks them, the table's
    directory aside; defaults filled in."""

def key_cache_config_fields() -> list[dict[str, Any]]:
    """E2: the settings of a model run (engine/src/driver/key_cache/fields.cpp): name, type, unit, range,
    default, help, required."""

# ---- E4 quantum (quantum_module.cpp) -------------------------------------------------

def run_sessions(**settings: Any) -> dict[str, Any]:
    """Run sessions per CPU (pinned, or free on the run's CPUs) under the engine's fiber scheduler or the
    OS scheduler (os_ts: Solaris's TS class emulated, with the dispatcher's own counts); per session: times, switches, effective_quantum_ms, switch_cost_fit sums. The settings
    are E4's table's (engine/src/driver/quantum/fields.hpp; quantum_config_fields() lists them)."""

def quantum_config(**settings: Any) -> dict[str, Any]:
    """E4's session runs, every setting checked as a run checks it, defaults filled in; ValueError names
    the first bad one."""

def quantum_config_fields() -> list[dict[str, Any]]:
    """The settings of E4's session runs: name, type, unit, range, default, help, required."""

def ts_dispatch_table(reading: str = "all", quantum_ms: float = 0.0) -> dict[str, Any]:
    """A reading's dispatch table as os_ts uses it (engine/src/sched/ts_table.hpp; the default
    ts_dptbl for TS, FX or RT at one priority): levels (quantum_ms with Q put where the reading
    puts it, 0: the table's own; tqexp, slpret, maxwait_s, lwait), tick_ms, update_ms,
    entry_level, woken_level, reading (this one) and readings (every one)."""

def available_cpus() -> list[int]:
    """CPUs in this process's affinity mask."""

# ---- E5 FIFO cache (fifo_cache_module.cpp) -------------------------------------

class LoadedDisk:
    """E5: a TPC-C database loaded on the disk stack; each forked copy runs one cell."""

    def run_cell(self, *, pool_fraction: float, progress: Callable[[int, int], bool | None] | None = None) -> dict[str, Any]:
        """Run the mix with the pool at pool_fraction of the database's pages,
        once per copy (RuntimeError on a second call); the result as run_tpcc's."""

def load_disk(**settings: Any) -> LoadedDisk:
    """E5: load the TPC-C database of a disk-stack run (settings as
    run_tpcc's, stack "disk", no trace, meter "none"); pool_fraction is each
    cell's. ValueError names a bad setting before anything loads."""

def cache_simulate(*, policy: str, trace: Sequence[int], capacity: int, warmup: int = 0) -> dict[str, Any]:
    """E5: replay a page-id reference string through a policy of `capacity` pages:
    policy, capacity, requests, hits, misses, hit_locks, hit_ratio (of the
    requests after the first `warmup`, which fill the cache uncounted)."""

def cache_read_trace(*, path: str, format: str = "txt") -> list[int]:
    """E5: the page ids of a trace file (txt or oracle_general, libCacheSim's formats)."""

def cache_write_trace(*, path: str, ids: Sequence[int], format: str = "txt", page_size: int = 8192) -> None:
    """E5: write page ids as a trace file that libCacheSim reads."""

# ---- E3 openedge (openedge_module.cpp) -----------------------------------------------

def openedge_ladder(*, progress: Callable[[int, int], Any] | None = None, **settings: Any) -> dict[str, Any]:
    """Build Table1..Table7, run the 7-table join for every user at each ladder step over loopback TCP.
    Settings are named as openedge_config_fields() lists them."""

def openedge_config(**settings: Any) -> dict[str, Any]:
    """E3: every setting of a ladder, checked, defaults filled in."""

def openedge_config_fields() -> list[dict[str, Any]]:
    """E3: the ladder's settings (engine/src/driver/openedge/fields.cpp): name, type, unit, range, default, help, required."""

def openedge_ladder_steps() -> list[dict[str, Any]]:
    """E3's ladder: each step's name, label and features."""
