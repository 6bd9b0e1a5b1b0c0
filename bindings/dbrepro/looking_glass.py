"""E1, "OLTP through the looking glass": instructions per phase along the
removal ladder, and throughput per step.

    >>> from dbrepro import looking_glass
    >>> count = looking_glass.count_instructions(step=0, txn_type="payment", transactions=500)
    >>> count.to_frame()          # one row per phase: instructions (and cycles) per transaction

The ladder's steps come from the engine (`ladder()`): step 0 is the full stack
(logging with a flush at commit, locking, latching, a buffer pool, catalog
lookups, per-transaction sessions, generic key comparison); each later step
removes one more component; step 11 is the hand-built in-memory kernel.

Instruction counts come from the CPU's counters where the kernel offers them
(backend "perf": the engine brackets every phase with counter reads, whose own
cost is calibrated and subtracted) and from callgrind on the native driver
where it does not (backend "callgrind": inclusive instructions of the engine's
phase functions; cycles are then callgrind's cache/branch-simulation estimate).
Both give the same record shape; the record says which ran and why.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from . import callgrind, duet, provenance, registry, tpcc
from .result import RunResult

KIND = "looking_glass_instructions"
PHASES = ("begin", "lookup", "pin_unpin", "update", "create", "insert", "commit", "other")
OPTIMAL_STEP = 11
STRIPPED_STEP = 10  # every component removed
IN_MEMORY_STEP = 2  # the first step without a log flush at commit
FIRST_STEP = 0  # the full stack, flushing its log at commit
# The ladder's timed ratios (workflows/claims/looking_glass.yaml): each faster step
# over the slower one it is judged against. The ladder runs each pair as a duet
# (dbrepro.duet: both at once), so that its ratio is formed within it.
DUET_PAIRS = ((OPTIMAL_STEP, STRIPPED_STEP), (STRIPPED_STEP, IN_MEMORY_STEP), (STRIPPED_STEP, FIRST_STEP))
# The pairs judged per CPU-second run both arms on one CPU, taking turns (layout shared: on a
# loaded 2-vCPU machine their ratio varied by about 2% there against 10-20% with one arm on each
# CPU, reference/cell_spread-duet.csv); the pair judged on wall time gets a CPU each (split:
# on a shared CPU step 0 waits for step 10 after every flush). A step in a shared duet only
# runs again in a split one, so that the ladder's wall-clock throughput has it.
CPU_TIME_PAIRS = ((OPTIMAL_STEP, STRIPPED_STEP), (STRIPPED_STEP, IN_MEMORY_STEP))

# The engine's phase functions (stack/engine.hpp), by phase.
PHASE_FUNCTIONS = {
    "begin": r"dbrepro::Engine<.*>::begin\(\)",
    "lookup": r"dbrepro::Engine<.*>::phase_(lookup|open_scan)<",
    "pin_unpin": r"dbrepro::Engine<.*>::phase_(pin|unpin)<",
    "update": r"dbrepro::Engine<.*>::phase_update<",
    "create": r"dbrepro::Engine<.*>::phase_create<",
    "insert": r"dbrepro::Engine<.*>::phase_(insert|erase)<",
    "commit": r"dbrepro::Engine<.*>::(commit|abort)\(\)",
}
TRANSACTION_FUNCTIONS = {"new_order": "execute_new_order", "payment": "execute_payment"}


def ladder() -> list[dict[str, Any]]:
    """The removal ladder as the engine defines it: step, label, component, page_size."""
    from . import _engine

    return _engine.ladder()


def stack_name(step: int) -> str:
    """The engine's stack for a ladder step (its registry: step 11 is "optimal")."""
    return registry.ladder_stack(step)


def ladder_duets(steps) -> list[tuple[tuple[int, ...], str]]:
    """A repeat of the timed ladder over `steps` as (steps, layout) duets: each of
    DUET_PAIRS whose two steps both run, shared where it is one of CPU_TIME_PAIRS, else
    split (step 10 runs once per pair it is in); then every step not yet in a split duet,
    two by two in order, split; one left over runs alone (a one-step tuple, layout "")."""
    steps = [int(step) for step in steps]
    claimed = [(pair, "shared" if pair in CPU_TIME_PAIRS else "split")
               for pair in DUET_PAIRS if all(step in steps for step in pair)]
    split = {step for pair, layout in claimed if layout == "split" for step in pair}
    rest = duet.pairs(step for step in dict.fromkeys(steps) if step not in split)
    return claimed + [(pair, "split" if len(pair) == 2 else "") for pair in rest]


def settings_rows() -> list[dict[str, Any]]:
    """The count's settings table, as the engine has it (driver/looking_glass/fields.hpp):
    the step and transaction type (required), how to count, and the TPC-C
    settings passed on to the counted run."""
    from . import settings

    return settings.table("looking_glass")


@dataclass
class InstructionCount:
    """Per-transaction instructions (and cycles) per phase of one step and transaction type."""

    result: RunResult

    def to_dict(self) -> dict[str, Any]:
        return self.result.to_dict()

    def to_frame(self):
        return self.result.to_frame()

    @property
    def per_phase(self) -> dict[str, float]:
        return dict(self.result.metrics["instructions"])

    @property
    def total(self) -> float:
        return float(self.result.metrics["instructions_total"])


def choose_backend(requested: str) -> tuple[str, str]:
    """(backend, why): perf where the CPU's counters can be read, else callgrind."""
    counters = provenance.hardware_counters()
    perf_ok = bool(counters.get("available"))
    perf_why = counters.get("error") or "no error"
    if requested == "perf":
        if not perf_ok:
            raise tpcc.ConfigError("backend", f"perf needs CPU counters, which this machine lacks ({perf_why})")
        return "perf", "requested"
    if requested == "callgrind":
        return "callgrind", "requested"
    if perf_ok:
        return "perf", "hardware counters available"
    return "callgrind", f"hardware counters unavailable: {perf_why}"


def validate_config(**settings: Any) -> dict[str, Any]:
    """Every setting of a count, checked by the engine (the counted TPC-C run's
    too), defaults filled in; ConfigError names the first bad or missing one."""
    from . import _engine

    try:
        return dict(_engine.looking_glass_config(**settings))
    except ValueError as error:
        names = [row["name"] for row in settings_rows()] + list(registry.run_parameters())
        raise tpcc.engine_config_error(error, names) from None


def count_instructions(step: int, txn_type: str, **settings: Any) -> InstructionCount:
    """Instructions per transaction, per phase, of `txn_type` on ladder step `step`.

    Runs `transactions` transactions of that type only (a single-type mix), so
    every phase's count belongs to it. The settings are the count's table
    (`settings_rows()`: backend, cycles, and the TPC-C settings passed on);
    `cycles`: also measure (perf) or estimate (callgrind's cache and branch
    simulation, slower) cycles. A bad setting raises ConfigError naming it,
    before anything runs.
    """
    return _count(validate_config(step=step, txn_type=txn_type, **settings))


def run(**settings: Any) -> RunResult:
    """The study's one entry, as every study module has it: a count
    (`count_instructions`) by its table's settings, as a RunResult."""
    return _count(validate_config(**settings)).result  # a missing step or type: ConfigError


def _count(config: dict[str, Any]) -> InstructionCount:
    """A count of a checked config (validate_config)."""
    chosen, why = choose_backend(config["backend"])
    if chosen == "perf" and config["step"] == OPTIMAL_STEP:
        # The kernel has no phase functions to bracket with counter reads.
        chosen, why = "callgrind", "the optimal kernel has no phases to meter; callgrind counts its total"
    config = {"step": config["step"], "stack": stack_name(config["step"]), **config}  # the record's columns
    started = time.perf_counter()
    if chosen == "callgrind":
        metrics = _count_with_callgrind(config, config["cycles"])
    else:
        metrics = _count_with_perf(config)
    metrics["backend"] = chosen
    metrics["backend_reason"] = why
    metrics["wall_seconds"] = time.perf_counter() - started
    return InstructionCount(RunResult(kind=KIND, config=config, metrics=metrics, provenance=provenance.collect()))


def _native_command(config: dict[str, Any]) -> list[str]:
    return [
        str(callgrind.native_path()), "tpcc", "--stack", config["stack"],
        "--warehouses", str(config["warehouses"]), "--transactions", str(config["transactions"]),
        "--variant", config["variant"], "--seed", str(config["seed"]),
        "--mix", f"{config['txn_type']}=1", "--no-consistency",
    ]


def _count_with_callgrind(config: dict[str, Any], cycles: bool) -> dict[str, Any]:
    function = TRANSACTION_FUNCTIONS[config["txn_type"]]
    prof = callgrind.profile(_native_command(config), collect=[f"*{function}*"], cache_sim=cycles)
    engine_result = callgrind.native_json(prof)
    stats = engine_result["per_type"][config["txn_type"]]
    attempted = stats["commits"] + stats["aborts"]
    total_costs = prof.inclusive_costs(rf"::{function}<")
    phase_costs = {phase: prof.inclusive_costs(pattern) for phase, pattern in PHASE_FUNCTIONS.items()}

    def per_txn(value: float) -> float:
        return value / attempted

    instructions = {phase: per_txn(costs["Ir"]) for phase, costs in phase_costs.items()}
    instructions["other"] = per_txn(total_costs["Ir"]) - sum(instructions.values())
    metrics: dict[str, Any] = {
        "attempted": attempted,
        "commits": stats["commits"],
        "aborts": stats["aborts"],
        "instructions": instructions,
        "instructions_total": per_txn(total_costs["Ir"]),
        "instructions_source": "callgrind (inclusive Ir of the engine's phase functions)",
        "valgrind": callgrind.valgrind_version(),
        "components": engine_result.get("components", {}),
        "page_size": engine_result["config"]["page_size"],
    }
    if cycles:
        phase_cycles = {phase: per_txn(callgrind.estimated_cycles(costs)) for phase, costs in phase_costs.items()}
        total_cycles = per_txn(callgrind.estimated_cycles(total_costs))
        phase_cycles["other"] = total_cycles - sum(phase_cycles.values())
        metrics.update(
            cycles=phase_cycles,
            cycles_total=total_cycles,
            cycles_source="estimated: callgrind cache and branch simulation, Ir + 10 Bm + 10 L1m + 100 LLm",
            # The estimate follows these caches, which valgrind reads off the host (an AMD EPYC VM here
            # reports a 256 MB direct-mapped L3): another machine's cycle shares differ with them.
            simulated_caches=prof.simulated_caches(),
        )
    return metrics


def _count_with_perf(config: dict[str, Any]) -> dict[str, Any]:
    passed_on = {name: config[name] for name in registry.run_parameters() if name in config}
    result = tpcc.run(**passed_on, mix={config["txn_type"]: 1.0}, check_consistency=False, meter="perf",
                      progress=False)
    metrics = result.metrics
    stats = metrics["per_type"][config["txn_type"]]
    attempted = stats["commits"] + stats["aborts"]
    instructions = {phase: metrics["phases"][phase]["instructions"] / attempted for phase in PHASES[:-1]}
    cycles = {phase: metrics["phases"][phase]["cycles"] / attempted for phase in PHASES[:-1]}
    total_instructions = stats["instructions"] / attempted
    total_cycles = stats["cycles"] / attempted
    instructions["other"] = total_instructions - sum(instructions.values())
    cycles["other"] = total_cycles - sum(cycles.values())
    return {
        "attempted": attempted,
        "commits": stats["commits"],
        "aborts": stats["aborts"],
        "instructions": instructions,
        "instructions_total": total_instructions,
        "instructions_source": "perf_event (user-space instructions, counter-read cost subtracted)",
        "cycles": cycles,
        "cycles_total": total_cycles,
        "cycles_source": "measured: perf_event user-space cycles",
        "counter_read_cost": metrics["counters"],
        "components": metrics.get("components", {}),
        "page_size": result.config["page_size"],
    }


def instruction_rows(result: RunResult) -> list[dict[str, Any]]:
    """Table rows of an instruction-count record: one per phase."""
    config, metrics = result.config, result.metrics
    cycles = metrics.get("cycles") or {}
    return [
        {
            "step": config["step"],
            "stack": config["stack"],
            "txn_type": config["txn_type"],
            "phase": phase,
            "instructions": metrics["instructions"][phase],
            "cycles": cycles.get(phase),
            "instructions_total": metrics["instructions_total"],
            "cycles_total": metrics.get("cycles_total"),
            "backend": metrics["backend"],
            "attempted": metrics["attempted"],
        }
        for phase in PHASES
    ]


def _register() -> None:
    from .result import FRAME_ROWS

    FRAME_ROWS[KIND] = instruction_rows


_register()
