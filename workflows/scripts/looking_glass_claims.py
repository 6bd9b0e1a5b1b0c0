"""The looking_glass study's claims: each of the paper's findings, our number,
theirs, and whether ours reproduces it by the criterion written in
workflows/claims/looking_glass.yaml (the only place the criteria live).

Writes claims.csv (dbrepro.verdicts.CLAIM_COLUMNS; reproduced is yes, no or
inconclusive) and claims.md (the table, each claim's criterion and source, and
for each claim not reproduced a sentence, computed from our tables, saying how
we differ).

Instruction counts are deterministic (count claims, exact comparisons), and
are counted on several seeds (instructions_seeds.csv): each count claim is
judged on every seed and holds only if it holds on all of them
(dbrepro.verdicts.across_seeds). The ladder's throughput is timed: its
per-repeat runs are the bootstrap's samples. The ladder runs in duets (two
steps at once, dbrepro.duet): each ratio pairs the two steps of one duet per
repeat (looking_glass.DUET_PAIRS).

Run by Snakemake (rule looking_glass_claims), or by hand:
    python workflows/scripts/looking_glass_claims.py TABLES_DIR paper.yaml claims.csv claims.md [--runs RUN.json ...]
(TABLES_DIR holds instructions.csv, switches.csv, components.csv, ladder.csv and,
where the counts ran on several seeds, instructions_seeds.csv)
"""

import argparse
import dataclasses
import math
from pathlib import Path

import pandas as pd

from dbrepro import verdicts as vd
import looking_glass_common as common
from dbrepro.verdicts import ClaimResult

LABEL = common.COMPONENT_LABELS
DUET_WORDS = {"split": "both steps at once, one on each CPU, the CPUs swapped between repeats",
              "shared": "both steps at once on one CPU, taking turns, the CPU swapped between repeats"}
IN_MEMORY_STEP = common.IN_MEMORY_STEP  # first step without a log flush at commit ("disk log" removed)
SMALL_PAGE_STEP = 8


def pct(value: float) -> str:
    return f"{value:.1f}%"


def ratio(value: float) -> str:
    return f"{value:.1f}x"


def count(value: float) -> str:
    return f"{value:,.0f}"


def signed_count(value: float) -> str:
    return f"{value:+,.0f}"


class Tables:
    """Our tables, the ladder's per-repeat runs and the paper's numbers, with the look-ups the claims need."""

    def __init__(self, instructions, switches, components, ladder, paper, runs=None):
        self.instructions = instructions
        self.switches = switches.set_index("step")
        self.components = components.set_index(["txn_type", "component"])
        self.ladder = ladder.set_index("step")
        self.paper = paper
        self.runs = runs if runs is not None else pd.DataFrame(columns=["step", "throughput_tps"])
        self.totals = common.totals(instructions)
        self.estimated = common.cycles_estimated(instructions)
        self.seeds_frame = None  # every seed's counts (instructions_seeds.csv), where several were counted

    def share(self, txn_type, component, measure="instructions") -> float:
        return float(self.components.at[(txn_type, component), f"{measure}_share_pct"])

    def theirs_share(self, txn_type, component, measure="instructions") -> float:
        return common.paper_share(self.paper, txn_type, component, measure)

    def total(self, step, txn_type) -> float:
        return float(self.totals.at[step, txn_type])

    def phase_change(self, txn_type, before_step, after_step) -> pd.Series:
        """Per-phase instructions after minus before (negative: removed)."""
        frame = self.instructions[self.instructions["txn_type"] == txn_type]
        by_step = frame.pivot_table(index="phase", columns="step", values="instructions", aggfunc="sum")
        return (by_step[after_step] - by_step[before_step]).sort_values()

    def tps_samples(self, step, column: str = "throughput_tps", partner=None) -> pd.Series:
        """Per-repeat throughput of a step: wall time (throughput_tps) or CPU time (cpu_tps).
        With `partner`, the step's runs in a duet with that step where the runs are duets
        (dbrepro.duet: a ratio is formed within its duet); every run of the step otherwise."""
        if column not in self.runs.columns:
            return pd.Series(dtype=float)
        rows = self.runs[self.runs["step"] == step]
        if partner is not None and self.in_duets(step, partner):
            rows = rows[rows["partner_step"] == partner]
        return vd.by_repeat(rows, column)

    def duet_layout(self, step, partner) -> str:
        """How the step's duets with `partner` ran (split, shared; '' if the runs do not say)."""
        if "duet_layout" not in self.runs.columns:
            return ""
        rows = self.runs[(self.runs["step"] == step) & (self.runs["partner_step"] == partner)]
        layouts = set(rows["duet_layout"].dropna())
        return layouts.pop() if len(layouts) == 1 else ""

    def in_duets(self, step, partner) -> bool:
        """Whether the step ran in a duet with `partner` (the runs' partner_step says so)."""
        if "partner_step" not in self.runs.columns:
            return False
        return bool(((self.runs["step"] == step) & (self.runs["partner_step"] == partner)).any())

    def theirs_tps(self, step) -> float:
        entry = common.paper_tps(self.paper).get(step)
        return float(entry["tps"]) if entry else math.nan

    def mix_instructions(self, step) -> float:
        """Instructions per transaction of the 50/50 mix the ladder runs."""
        return sum(self.total(step, txn_type) for txn_type in common.TXN_TYPES) / len(common.TXN_TYPES)

    def cycles_note(self) -> str:
        return " (estimated cycles)" if self.estimated else ""


def _steps_words(steps: list[int]) -> str:
    return f"step{'s' if len(steps) > 1 else ''} {common.steps_text(steps)}"


def _largest_phase_moves(changes: pd.Series, removed: bool, how_many: int = 2) -> str:
    """'update (-4,000) and commit (-3,000)': the phases that moved most."""
    moves = changes if removed else changes.sort_values(ascending=False)
    moves = moves[moves < 0] if removed else moves[moves > 0]
    parts = [f"{phase} ({signed_count(value)})" for phase, value in moves.head(how_many).items()]
    return " and ".join(parts) if parts else "no phase"


def _name(txn_type: str) -> str:
    return "Payment" if txn_type == "payment" else "New Order"


# ---------------------------------------------------------------------------
# The claims: each computes its quantity; the band comes from the criteria.


def every_component_matters(t: Tables, c: vd.Criterion) -> ClaimResult:
    ours = {k: t.share("payment", k) for k in common.COMPONENTS}
    smallest = min(ours, key=ours.get)
    result = ClaimResult(c, f"smallest: {LABEL[smallest]} {pct(ours[smallest])}",
                         vd.evaluate_count(ours[smallest], c.band))
    short = [k for k in common.COMPONENTS if not vd.evaluate_count(ours[k], c.band).reproduced == "yes"]
    result.why = "; ".join(
        f"{LABEL[k]} removes only {pct(ours[k])} of Payment's {count(t.total(0, 'payment'))} step-0 instructions "
        f"(the paper: {pct(t.theirs_share('payment', k))})" for k in short)
    return result


def buffer_manager_largest(t: Tables, c: vd.Criterion, txn_type: str) -> ClaimResult:
    ours = {k: t.share(txn_type, k) for k in common.COMPONENTS}
    bm = "buffer_manager"
    others = {k: v for k, v in ours.items() if k != bm}
    runner_up = max(others, key=others.get)
    margin = ours[bm] - others[runner_up]
    result = ClaimResult(c, f"buffer manager {pct(ours[bm])}, next {LABEL[runner_up]} {pct(ours[runner_up])} "
                            f"({margin:+.1f} points)", vd.evaluate_count(margin, c.band))
    if result.outcome.reproduced != "yes":
        largest = max(ours, key=ours.get)
        result.why = (f"{LABEL[largest]} removes {pct(ours[largest])} of {_name(txn_type)}'s step-0 instructions, "
                      f"the buffer manager ({_steps_words(common.component_steps(t.instructions)[bm])}) only "
                      f"{pct(ours[bm])} ({count(t.components.at[(txn_type, bm), 'instructions'])} of "
                      f"{count(t.total(0, txn_type))} per transaction)")
    return result


def payment_share(t: Tables, c: vd.Criterion, component: str) -> ClaimResult:
    ours = t.share("payment", component)
    steps = common.component_steps(t.instructions)[component]
    result = ClaimResult(c, pct(ours), vd.evaluate_count(ours, c.band))
    if result.outcome.reproduced != "yes":
        changes = t.phase_change("payment", steps[0] - 1, steps[-1])
        result.why = (f"{LABEL[component]} ({_steps_words(steps)}) removes "
                      f"{count(t.components.at[('payment', component), 'instructions'])} of "
                      f"{count(t.total(0, 'payment'))} per Payment; most of it in "
                      f"{_largest_phase_moves(changes, removed=True)}")
    return result


def small_pages_cut_new_order(t: Tables, c: vd.Criterion) -> ClaimResult:
    step = SMALL_PAGE_STEP
    change = t.total(step, "new_order") - t.total(step - 1, "new_order")
    change_pct = 100.0 * change / t.total(0, "new_order")
    result = ClaimResult(c, f"{change_pct:+.1f}% of step 0 ({signed_count(change)} per New Order)",
                         vd.evaluate_count(change_pct, c.band))
    if result.outcome.reproduced != "yes":
        changes = t.phase_change("new_order", step - 1, step)
        result.why = (f"with 32 KB pages our New Order runs {count(change)} more instructions per transaction "
                      f"({count(t.total(step - 1, 'new_order'))} -> {count(t.total(step, 'new_order'))}); it grows "
                      f"most in {_largest_phase_moves(changes, removed=False)}")
    return result


def new_order_to_payment(t: Tables, c: vd.Criterion) -> ClaimResult:
    ours = t.total(0, "new_order") / t.total(0, "payment")
    return ClaimResult(c, f"{ratio(ours)} ({count(t.total(0, 'new_order'))} / {count(t.total(0, 'payment'))})",
                       vd.evaluate_count(ours, c.band))


def speedup(t: Tables, c: vd.Criterion, fast: int, slow: int, column: str = "throughput_tps",
            context: vd.Context = vd.DEFAULT) -> ClaimResult:
    """Ratio of median throughputs: wall time (throughput_tps) or per CPU-second (cpu_tps)."""
    fast_runs, slow_runs = t.tps_samples(fast, column, partner=slow), t.tps_samples(slow, column, partner=fast)
    if fast_runs.empty or slow_runs.empty:
        missing = [s for s, r in ((slow, slow_runs), (fast, fast_runs)) if r.empty]
        outcome = vd.inconclusive(f"step(s) {', '.join(map(str, missing))} not run: both must be in the "
                                  "profile's looking_glass.ladder.steps")
        return ClaimResult(c, "not measured", outcome)
    outcome = vd.evaluate_medians(fast_runs, slow_runs, c, context)
    if t.in_duets(fast, slow) and outcome.pairing.startswith("paired by repeat"):
        # Each repeat's pair is one duet: both steps at once (dbrepro.duet's layouts).
        words = DUET_WORDS.get(t.duet_layout(fast, slow), "both at once")
        outcome = dataclasses.replace(outcome, pairing=outcome.pairing.replace(
            "paired by repeat", f"paired within duets ({words})", 1))
    unit = "tps" if column == "throughput_tps" else "txn per CPU-second"
    # The medians the ratio is formed of: each step's runs in this duet (where the ladder ran in duets).
    result = ClaimResult(c, f"{ratio(outcome.value)} ({count(fast_runs.median())} / {count(slow_runs.median())} {unit})"
                            f"{vd.interval(outcome, 2, 'x')}", outcome)
    if outcome.reproduced == "no":
        instructions = t.mix_instructions(slow) / t.mix_instructions(fast)
        result.why = (f"its instructions per transaction of the mix are {ratio(instructions)} fewer "
                      f"({count(t.mix_instructions(slow))} -> {count(t.mix_instructions(fast))})")
        if slow in t.ladder.index and "cpu_seconds_median" in t.ladder.columns:
            cpu = t.ladder.at[slow, "cpu_seconds_median"] / t.ladder.at[slow, "elapsed_seconds_median"]
            if cpu < 0.5:
                result.why += f"; at step {slow} the engine is on the CPU only {pct(100 * cpu)} of the time"
    return result


def remaining_share(t: Tables, c: vd.Criterion, txn_type: str) -> ClaimResult:
    ours = 100.0 * t.total(common.STRIPPED_STEP, txn_type) / t.total(0, txn_type)
    result = ClaimResult(c, f"{pct(ours)} ({count(t.total(common.STRIPPED_STEP, txn_type))} of "
                            f"{count(t.total(0, txn_type))})", vd.evaluate_count(ours, c.band))
    if result.outcome.reproduced != "yes":
        result.why = (f"our stripped engine still runs {count(t.total(common.STRIPPED_STEP, txn_type))} "
                      f"instructions per {_name(txn_type)}; the optimal kernel runs "
                      f"{count(t.total(common.OPTIMAL_STEP, txn_type))}")
    return result


def stripped_over_optimal(t: Tables, c: vd.Criterion, txn_type: str) -> ClaimResult:
    stripped, optimal = t.total(common.STRIPPED_STEP, txn_type), t.total(common.OPTIMAL_STEP, txn_type)
    ours = stripped / optimal if optimal else math.nan
    return ClaimResult(c, f"{ratio(ours)} ({count(stripped)} / {count(optimal)})", vd.evaluate_count(ours, c.band))


def cycles_versus_instructions(t: Tables, c: vd.Criterion, component: str) -> ClaimResult:
    ins, cyc = t.share("new_order", component), t.share("new_order", component, "cycles")
    if math.isnan(cyc):
        return ClaimResult(c, "cycles not counted",
                           vd.inconclusive("cycles were not counted (looking_glass.instructions.cycles: false)"))
    difference = cyc - ins
    result = ClaimResult(c, f"{pct(cyc)} of cycles vs {pct(ins)} of instructions{t.cycles_note()}",
                         vd.evaluate_count(difference, c.band))
    if result.outcome.reproduced != "yes":
        source = ("callgrind's estimate Ir + 10 Bm + 10 L1m + 100 LLm, not a measurement"
                  if t.estimated else "measured")
        result.why = f"cycles {source}"
    return result


def switch_share(t: Tables, c: vd.Criterion, step: int) -> ClaimResult:
    """Figure 7: New Order's instructions switch `step` removes, as % of step 0's."""
    ours = float(t.switches.at[step, "new_order_removed_pct"])
    theirs = float(t.switches.at[step, "theirs_new_order_removed_pct"])
    removed = float(t.switches.at[step, "new_order_removed"])
    result = ClaimResult(c, f"{pct(ours)} ({signed_count(-removed)} of {count(t.total(0, 'new_order'))})",
                         vd.evaluate_count(ours, c.band))
    if result.outcome.reproduced != "yes" and step < common.OPTIMAL_STEP:
        changes = t.phase_change("new_order", step - 1, step)
        moved = _largest_phase_moves(changes, removed=removed > 0)
        factor = ours / theirs if theirs else math.nan
        result.why = (f"{factor:.2f}x the paper's {pct(theirs)}; it {'removes' if removed > 0 else 'adds'} most in "
                      f"{moved} (callgrind function profile: docs/looking_glass_profiles.md)")
    return result


def group_share(t: Tables, c: vd.Criterion, component: str) -> ClaimResult:
    """Figures 5, 6, 8: the group's share of each transaction type, the larger distance to the paper's."""
    parts, distances = [], []
    for txn_type in ("payment", "new_order"):
        ours, theirs = t.share(txn_type, component), t.theirs_share(txn_type, component)
        distances.append(abs(ours - theirs))
        parts.append(f"{_name(txn_type)} {pct(ours)} ({ours - theirs:+.1f})")
    farthest = max(distances)
    result = ClaimResult(c, f"{', '.join(parts)}: {farthest:.1f} points", vd.evaluate_count(farthest, c.band))
    if result.outcome.reproduced != "yes":
        steps = common.component_steps(t.instructions).get(component)
        where = _steps_words(steps) if steps else f"left at step {common.STRIPPED_STEP}"
        result.why = f"{LABEL[component]} ({where}): see the switch claims and docs/looking_glass_profiles.md"
    return result


def same_cycles(t: Tables, c: vd.Criterion, components: tuple[str, ...]) -> ClaimResult:
    """Figure 8: the larger |cycles share - instructions share| of the components (points)."""
    gaps = {k: t.share("new_order", k, "cycles") - t.share("new_order", k) for k in components}
    if any(math.isnan(g) for g in gaps.values()):
        return ClaimResult(c, "cycles not counted",
                           vd.inconclusive("cycles were not counted (looking_glass.instructions.cycles: false)"))
    largest = max(abs(g) for g in gaps.values())
    parts = ", ".join(f"{LABEL[k]} {g:+.1f}" for k, g in gaps.items())
    return ClaimResult(c, f"{parts} points{t.cycles_note()}", vd.evaluate_count(largest, c.band))


def all_claims(t: Tables, criteria: vd.Criteria, context: vd.Context = vd.DEFAULT) -> list[ClaimResult]:
    c = criteria.claims
    return [
        every_component_matters(t, c["every_component_matters"]),
        buffer_manager_largest(t, c["buffer_manager_largest_payment"], "payment"),
        buffer_manager_largest(t, c["buffer_manager_largest_new_order"], "new_order"),
        payment_share(t, c["locking_share_payment"], "locking"),
        payment_share(t, c["logging_share_payment"], "logging"),
        small_pages_cut_new_order(t, c["small_pages_cut_new_order"]),
        new_order_to_payment(t, c["new_order_to_payment"]),
        speedup(t, c["speedup_stripped_vs_in_memory"], common.STRIPPED_STEP, IN_MEMORY_STEP, "cpu_tps", context),
        speedup(t, c["speedup_stripped_vs_flushing"], common.STRIPPED_STEP, common.FIRST_STEP, context=context),
        speedup(t, c["speedup_optimal_vs_stripped"], common.OPTIMAL_STEP, common.STRIPPED_STEP, "cpu_tps", context),
        remaining_share(t, c["remaining_share_payment"], "payment"),
        remaining_share(t, c["remaining_share_new_order"], "new_order"),
        stripped_over_optimal(t, c["stripped_over_optimal_payment"], "payment"),
        stripped_over_optimal(t, c["stripped_over_optimal_new_order"], "new_order"),
        cycles_versus_instructions(t, c["btree_keys_fewer_cycles"], "btree_keys"),
        cycles_versus_instructions(t, c["logging_more_cycles"], "logging"),
        switch_share(t, c["switch_btree_keys"], 1),
        switch_share(t, c["switch_disk_log"], 2),
        switch_share(t, c["switch_main_log"], 3),
        switch_share(t, c["switch_lsn"], 4),
        switch_share(t, c["switch_locking"], 5),
        switch_share(t, c["switch_latching"], 6),
        switch_share(t, c["switch_dir_lookup"], 7),
        switch_share(t, c["switch_small_page"], 8),
        switch_share(t, c["switch_page_access"], 9),
        switch_share(t, c["switch_xactions"], 10),
        switch_share(t, c["switch_optimal"], common.OPTIMAL_STEP),
        group_share(t, c["group_btree_keys"], "btree_keys"),
        group_share(t, c["group_logging"], "logging"),
        group_share(t, c["group_locking"], "locking"),
        group_share(t, c["group_latching"], "latching"),
        group_share(t, c["group_buffer_manager"], "buffer_manager"),
        group_share(t, c["group_remaining"], common.REMAINING),
        cycles_versus_instructions(t, c["remaining_more_cycles"], common.REMAINING),
        same_cycles(t, c["locking_buffer_same_cycles"], ("locking", "buffer_manager")),
    ]


# ---------------------------------------------------------------------------
# Output


def load_tables(instructions, switches, components, ladder, paper, runs=(), instructions_seeds=None) -> Tables:
    """The four tables, the paper's numbers, (optional) the ladder's raw-run records and
    (optional) every seed's counts (instructions_seeds.csv)."""
    frame = None
    if runs:
        from looking_glass_ladder_table import runs_frame

        frame = runs_frame(list(runs))
    tables = Tables(pd.read_csv(instructions), pd.read_csv(switches), pd.read_csv(components), pd.read_csv(ladder),
                    common.load_paper(paper), frame)
    if instructions_seeds:
        tables.seeds_frame = pd.read_csv(instructions_seeds)
    return tables


def seed_tables(tables: Tables) -> dict:
    """{seed: Tables} built from each seed's counts, the tables' own seed first; {} when
    only one seed was counted. Switches and components are rebuilt per seed by the
    scripts that build their tables."""
    frame = tables.seeds_frame
    if frame is None or "seed" not in frame.columns or frame["seed"].nunique() < 2:
        return {}
    from looking_glass_components_table import components
    from looking_glass_switches_table import switches

    shown = int(tables.instructions["seed"].iloc[0])
    seeds = [shown] + sorted(int(s) for s in frame["seed"].unique() if int(s) != shown)
    built = {}
    for seed in seeds:
        counts = frame[frame["seed"] == seed].reset_index(drop=True)
        if counts.empty:
            raise ValueError(f"instructions_seeds.csv lacks seed {seed}, the counts the tables show")
        built[seed] = Tables(counts, switches(counts, tables.paper), components(counts, tables.paper),
                             tables.ladder.reset_index(), tables.paper, tables.runs)
    return built


def on_every_seed(tables: Tables, criteria: vd.Criteria, context: vd.Context = vd.DEFAULT) -> list[ClaimResult]:
    """Every claim: counts on every seed counted, timed claims from the ladder's runs."""
    by_seed = seed_tables(tables)
    if not by_seed:
        seed = int(tables.instructions["seed"].iloc[0]) if "seed" in tables.instructions.columns else None
        results = all_claims(tables, criteria, context)
        return [r if r.criterion.timed or seed is None else vd.across_seeds({seed: r}, criteria.min_seeds)
                for r in results]
    return vd.judge_on_seeds(all_claims(tables, criteria, context),
                             lambda seed: all_claims(by_seed[seed], criteria, context), list(by_seed), criteria.min_seeds)


def main(tables: Tables, csv_path, md_path, profile: str = "", criteria_path=None, run_config=None,
         context: vd.Context = vd.DEFAULT) -> pd.DataFrame:
    criteria = vd.load_criteria(criteria_path or "looking_glass", run_config)
    results = on_every_seed(tables, criteria, context)
    backend = common.backend_of(tables.instructions)
    preamble = (f"Harizopoulos et al., *OLTP through the looking glass*, SIGMOD 2008, against the dbrepro engine "
                f"(profile `{profile}`). Instruction counts: {backend}"
                + (" (cycles are callgrind's estimate, not measured)" if tables.estimated else "") + ". "
                + vd.load_account(context, tables.runs if len(tables.runs) else None))
    return vd.write_claims(vd.judge_all(results, criteria, context), criteria, csv_path, md_path, context, preamble)


if "snakemake" in globals():
    inputs = snakemake.input  # noqa: F821 (defined by Snakemake)
    common.run_logged(
        snakemake.log[0],  # noqa: F821
        lambda: main(
            load_tables(inputs.instructions, inputs.switches, inputs.components, inputs.ladder, inputs.paper,
                        list(inputs.runs), inputs.instructions_seeds),
            snakemake.output.csv,  # noqa: F821
            snakemake.output.md,  # noqa: F821
            snakemake.config.get("profile", ""),  # noqa: F821
            inputs.criteria,
            snakemake.config,  # noqa: F821
            vd.Context.from_params(snakemake.params),  # noqa: F821 (what this profile can judge)
        ),
    )
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", help="folder with instructions.csv, switches.csv, components.csv, ladder.csv")
    parser.add_argument("paper", help="the paper's numbers (workflows/data/looking_glass_paper.yaml)")
    parser.add_argument("csv", help="claims.csv to write")
    parser.add_argument("md", help="claims.md to write")
    parser.add_argument("--profile", default="", help="profile name, for claims.md")
    parser.add_argument("--runs", nargs="*", default=[], help="the ladder's raw-run records (JSON)")
    args = parser.parse_args()
    folder = Path(args.tables)
    seeds_table = folder / "instructions_seeds.csv"
    loaded = load_tables(*(folder / f"{name}.csv" for name in ("instructions", "switches", "components", "ladder")),
                         args.paper, args.runs, seeds_table if seeds_table.exists() else None)
    print(main(loaded, args.csv, args.md, args.profile).to_string(index=False))
