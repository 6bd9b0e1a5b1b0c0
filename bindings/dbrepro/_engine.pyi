"""Type stubs for dbrepro._engine, the compiled C++ engine (bindings/src/engine_module.cpp)."""
from collections.abc import Callable, Mapping
from typing import Any

def run_tpcc(
    *,
    warehouses: int = 1,
    transactions: int = 40000,
    seconds: float = 0.0,
    mix: Mapping[str, float] = {"new_order": 0.5, "payment": 0.5},
    variant: str = "paper",
    seed: int = 1,
    page_size: int = 8192,
    key_compare: str = "integer",
    progress_every: int = 1000,
    check_consistency: bool = True,
    progress: Callable[[int, int], bool] | None = None,
) -> dict[str, Any]:
    """Load a TPC-C database, run the transaction mix, check consistency.

    Raises ValueError naming the parameter for a bad configuration (before
    loading anything). Releases the GIL while running; `progress(done, total)`
    is called every `progress_every` transactions (total 0 for a timed run)
    and returning False stops the run. Ctrl-C stops the run at the next tick
    and raises KeyboardInterrupt.
    """

def build_info() -> dict[str, Any]:
    """How the engine was built: compiler, cxx_flags, build_type, cxx_standard, version."""
