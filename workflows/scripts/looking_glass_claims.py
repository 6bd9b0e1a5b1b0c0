"""The looking_glass study's claims: each of the paper's findings, our number,
theirs, and whether ours reproduces it by an explicit criterion.

Writes claims.csv (exactly: claim, ours, theirs, reproduced -- yes or no) and
claims.md (the same table, each claim's criterion, and for each claim not
reproduced a sentence, computed from our tables, saying how we differ).

Every number comes from our tables (instructions, switches, components,
ladder) or from the paper's numbers file; the criteria are written here.

Run by Snakemake (rule looking_glass_claims), or by hand:
    python workflows/scripts/looking_glass_claims.py TABLES_DIR paper.yaml claims.csv claims.md
"""

import argparse
import math
from pathlib import Path

import pandas as pd
from script_common import Claim

import looking_glass_common as common

COLUMNS = ["claim", "ours", "theirs", "reproduced"]
LABEL = common.COMPONENT_LABELS

# Criteria (ours): thresholds and bands around the paper's numbers.
MIN_COMPONENT_SHARE_PCT = 5.0
LOCKING_PAYMENT_BAND_PCT = (15.0, 35.0)
LOGGING_PAYMENT_BAND_PCT = (10.0, 30.0)
NEW_ORDER_TO_PAYMENT_BAND = (5.0, 20.0)
MAX_REMAINING_SHARE_PCT = 15.0
MIN_SPEEDUP_STRIPPED_VS_IN_MEMORY = 3.0
MIN_SPEEDUP_STRIPPED_VS_FLUSHING = 5.0
MIN_SPEEDUP_OPTIMAL_VS_STRIPPED = 2.0
IN_MEMORY_STEP = 2  # first step without a log flush at commit ("disk log" removed)
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
    """Our tables and the paper's numbers, with the look-ups the claims need."""

    def __init__(self, instructions, switches, components, ladder, paper):
        self.instructions = instructions
        self.switches = switches.set_index("step")
        self.components = components.set_index(["txn_type", "component"])
        self.ladder = ladder.set_index("step")
        self.paper = paper
        self.totals = common.totals(instructions)
        self.estimated = common.cycles_estimated(instructions)

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

    def tps(self, step) -> float:
        if step not in self.ladder.index:
            return math.nan
        return float(self.ladder.at[step, "tps_median"])

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


def _band(value, band) -> bool:
    return band[0] <= value <= band[1]


def _side(value, band) -> str:
    return "below" if value < band[0] else "above"


def _largest_phase_moves(changes: pd.Series, removed: bool, how_many: int = 2) -> str:
    """'update (-4,000) and commit (-3,000)': the phases that moved most."""
    moves = changes if removed else changes.sort_values(ascending=False)
    moves = moves[moves < 0] if removed else moves[moves > 0]
    parts = [f"{phase} ({signed_count(value)})" for phase, value in moves.head(how_many).items()]
    return " and ".join(parts) if parts else "no phase"


# ---------------------------------------------------------------------------
# The claims


def every_component_matters(t: Tables) -> Claim:
    ours = {c: t.share("payment", c) for c in common.COMPONENTS}
    theirs = {c: t.theirs_share("payment", c) for c in common.COMPONENTS}
    smallest = min(ours, key=ours.get)
    theirs_smallest = min(theirs, key=theirs.get)
    claim = Claim(
        "Every component (B-tree keys, logging, locking, latching, buffer manager) removes "
        f">= {MIN_COMPONENT_SHARE_PCT:g}% of Payment's step-0 instructions",
        f"smallest: {LABEL[smallest]} {pct(ours[smallest])}",
        f"smallest: {LABEL[theirs_smallest]} {pct(theirs[theirs_smallest])}",
        ours[smallest] >= MIN_COMPONENT_SHARE_PCT,
        f"the smallest of the five components' shares of Payment's step-0 instructions is >= {MIN_COMPONENT_SHARE_PCT:g}%",
    )
    short = [c for c in common.COMPONENTS if ours[c] < MIN_COMPONENT_SHARE_PCT]
    claim.why = "; ".join(
        f"{LABEL[c]} removes only {pct(ours[c])} of Payment's {count(t.total(0, 'payment'))} step-0 instructions "
        f"(the paper: {pct(theirs[c])})"
        for c in short
    )
    return claim


def buffer_manager_largest(t: Tables, txn_type: str) -> Claim:
    name = "Payment" if txn_type == "payment" else "New Order"
    ours = {c: t.share(txn_type, c) for c in common.COMPONENTS}
    theirs = {c: t.theirs_share(txn_type, c) for c in common.COMPONENTS}
    largest, theirs_largest = max(ours, key=ours.get), max(theirs, key=theirs.get)
    bm = "buffer_manager"
    claim = Claim(
        f"The buffer manager is the largest component of {name}'s instructions",
        f"{'yes' if largest == bm else 'no'}: largest {LABEL[largest]} {pct(ours[largest])}, "
        f"buffer manager {pct(ours[bm])}",
        f"{'yes' if theirs_largest == bm else 'no'}: largest {LABEL[theirs_largest]} {pct(theirs[theirs_largest])}",
        largest == bm,
        f"of the five components, the buffer manager ({_steps_words(common.component_steps(t.instructions)[bm])}) "
        f"removes the largest share of {name}'s step-0 instructions",
    )
    if largest != bm:
        claim.why = (
            f"{LABEL[largest]} removes {pct(ours[largest])} of {name}'s step-0 instructions, "
            f"the buffer manager only {pct(ours[bm])} ({count(t.components.at[(txn_type, bm), 'instructions'])} "
            f"of {count(t.total(0, txn_type))} per transaction)"
        )
    return claim


def payment_share_in_band(t: Tables, component: str, band, about: str) -> Claim:
    ours, theirs = t.share("payment", component), t.theirs_share("payment", component)
    steps = common.component_steps(t.instructions)[component]
    claim = Claim(
        f"{LABEL[component].capitalize()} removes ~{about} of Payment's instructions ({band[0]:g}-{band[1]:g}%)",
        pct(ours),
        pct(theirs),
        _band(ours, band),
        f"{LABEL[component]} ({_steps_words(steps)}) removes {band[0]:g}-{band[1]:g}% "
        "of Payment's step-0 instructions",
    )
    if not claim.reproduced:
        changes = t.phase_change("payment", steps[0] - 1, steps[-1])
        claim.why = (
            f"{LABEL[component]} removes {pct(ours)} of Payment's step-0 instructions, {_side(ours, band)} the "
            f"{band[0]:g}-{band[1]:g}% band ({count(t.components.at[('payment', component), 'instructions'])} of "
            f"{count(t.total(0, 'payment'))} per transaction); most of it in "
            f"{_largest_phase_moves(changes, removed=True)}"
        )
    return claim


def small_pages_cut_new_order(t: Tables) -> Claim:
    step = SMALL_PAGE_STEP
    change = t.total(step, "new_order") - t.total(step - 1, "new_order")
    change_pct = 100.0 * change / t.total(0, "new_order")
    theirs_removed = float(t.switches.at[step, "theirs_new_order_removed"])
    theirs_pct = -float(t.switches.at[step, "theirs_new_order_removed_pct"])
    claim = Claim(
        "Larger pages (8 KB -> 32 KB, step 8) cut New Order's instructions",
        f"{change_pct:+.1f}% of step 0 ({signed_count(change)} per New Order)",
        f"{theirs_pct:+.1f}% of step 0 ({signed_count(-theirs_removed)})",
        change < 0,
        f"New Order's instructions per transaction at step {step} are below step {step - 1}'s",
    )
    if not claim.reproduced:
        changes = t.phase_change("new_order", step - 1, step)
        claim.why = (
            f"with 32 KB pages our New Order runs {count(change)} more instructions per transaction "
            f"({count(t.total(step - 1, 'new_order'))} -> {count(t.total(step, 'new_order'))}); it grows most in "
            f"{_largest_phase_moves(changes, removed=False)}"
        )
    return claim


def new_order_to_payment(t: Tables) -> Claim:
    band = NEW_ORDER_TO_PAYMENT_BAND
    ours = t.total(0, "new_order") / t.total(0, "payment")
    theirs_totals = {tx: common.paper_totals(t.paper, tx)[0] for tx in common.TXN_TYPES}
    theirs = theirs_totals["new_order"] / theirs_totals["payment"]
    claim = Claim(
        f"New Order runs ~10x Payment's instructions on the full stack ({band[0]:g}-{band[1]:g}x)",
        f"{ratio(ours)} ({count(t.total(0, 'new_order'))} / {count(t.total(0, 'payment'))})",
        f"{ratio(theirs)} ({count(theirs_totals['new_order'])} / {count(theirs_totals['payment'])})",
        _band(ours, band),
        f"step-0 instructions of New Order / Payment in {band[0]:g}-{band[1]:g}",
    )
    if not claim.reproduced:
        claim.why = f"our New Order runs {ratio(ours)} Payment's instructions, {_side(ours, band)} {band[0]:g}-{band[1]:g}x"
    return claim


def speedup(t: Tables, fast: int, slow: int, minimum: float, what: str) -> Claim:
    ours = t.tps(fast) / t.tps(slow)
    theirs = t.theirs_tps(fast) / t.theirs_tps(slow)
    measured = not math.isnan(ours)
    claim = Claim(
        f"{what} (median tps, step {fast} / step {slow}, >= {minimum:g}x)",
        f"{ratio(ours)} ({count(t.tps(fast))} / {count(t.tps(slow))} tps)" if measured else "not measured",
        f"{ratio(theirs)} ({count(t.theirs_tps(fast))} / {count(t.theirs_tps(slow))} tps)",
        measured and ours >= minimum,
        f"median throughput of step {fast} / median of step {slow} >= {minimum:g} (50/50 New Order/Payment mix)",
    )
    if not measured:
        claim.why = f"steps {slow} and {fast} must both be in the profile's looking_glass.ladder.steps"
    elif not claim.reproduced:
        instructions = t.mix_instructions(slow) / t.mix_instructions(fast)
        claim.why = (
            f"step {fast} runs {count(t.tps(fast))} tps against {count(t.tps(slow))} at step {slow}, only "
            f"{ratio(ours)}; its instructions per transaction of the mix are {ratio(instructions)} fewer "
            f"({count(t.mix_instructions(slow))} -> {count(t.mix_instructions(fast))})"
        )
        cpu = t.ladder.at[slow, "cpu_seconds_median"] / t.ladder.at[slow, "elapsed_seconds_median"]
        if slow in t.ladder.index and cpu < 0.5:
            claim.why += f"; at step {slow} the engine is on the CPU only {pct(100 * cpu)} of the time"
    return claim


def remaining_share(t: Tables, txn_type: str) -> Claim:
    name = "Payment" if txn_type == "payment" else "New Order"
    ours, theirs = t.share(txn_type, "remaining"), t.theirs_share(txn_type, "remaining")
    claim = Claim(
        f"What remains after all removals (step {common.STRIPPED_STEP}) is a small share of {name}'s "
        f"step-0 instructions (<= {MAX_REMAINING_SHARE_PCT:g}%)",
        f"{pct(ours)} ({count(t.total(common.STRIPPED_STEP, txn_type))} of {count(t.total(0, txn_type))})",
        pct(theirs),
        ours <= MAX_REMAINING_SHARE_PCT,
        f"step-{common.STRIPPED_STEP} instructions of {name} <= {MAX_REMAINING_SHARE_PCT:g}% of step 0's",
    )
    if not claim.reproduced:
        claim.why = (
            f"our stripped engine still runs {count(t.total(common.STRIPPED_STEP, txn_type))} instructions per {name}, "
            f"{pct(ours)} of the full stack's {count(t.total(0, txn_type))}; the optimal kernel runs "
            f"{count(t.total(common.OPTIMAL_STEP, txn_type))}"
        )
    return claim


def optimal_within_paper(t: Tables, txn_type: str) -> Claim:
    name = "Payment" if txn_type == "payment" else "New Order"
    limit = common.paper_totals(t.paper, txn_type)[common.OPTIMAL_STEP]
    ours = t.total(common.OPTIMAL_STEP, txn_type)
    claim = Claim(
        f"The optimal kernel needs no more instructions per {name} than the paper's (<= {count(limit)})",
        count(ours),
        count(limit),
        ours <= limit,
        f"step-{common.OPTIMAL_STEP} instructions per {name} <= the paper's optimal kernel's",
    )
    if not claim.reproduced:
        claim.why = f"our optimal kernel runs {count(ours)} instructions per {name}, {count(ours - limit)} above the paper's"
    return claim


def cycles_versus_instructions(t: Tables, component: str, cycles_higher: bool) -> Claim:
    ins, cyc = t.share("new_order", component), t.share("new_order", component, "cycles")
    theirs_ins = t.theirs_share("new_order", component)
    theirs_cyc = t.theirs_share("new_order", component, "cycles")
    relation = "more" if cycles_higher else "less"
    counted = not math.isnan(cyc)
    holds = counted and (cyc > ins if cycles_higher else cyc < ins)
    claim = Claim(
        f"{LABEL[component].capitalize()} takes a {'larger' if cycles_higher else 'smaller'} share of New Order's "
        f"cycles than of its instructions",
        (f"{pct(cyc)} of cycles vs {pct(ins)} of instructions{t.cycles_note()}" if counted else "cycles not counted"),
        f"{pct(theirs_cyc)} of cycles vs {pct(theirs_ins)} of instructions",
        holds,
        f"the share of New Order's step-0 cycles that removing {LABEL[component]} takes off is "
        f"{'above' if cycles_higher else 'below'} its share of the instructions",
    )
    if not counted:
        claim.why = "cycles were not counted (looking_glass.instructions.cycles: false)"
    elif not holds:
        source = (
            "callgrind's estimate Ir + 10 Bm + 10 L1m + 100 LLm, not a measurement"
            if t.estimated else "measured"
        )
        claim.why = (
            f"removing {LABEL[component]} takes {pct(cyc)} of New Order's cycles ({source}) and {pct(ins)} of "
            f"its instructions, so it does not cost {relation} cycles per instruction than the rest of the stack"
        )
    return claim


def all_claims(t: Tables) -> list[Claim]:
    return [
        every_component_matters(t),
        buffer_manager_largest(t, "payment"),
        buffer_manager_largest(t, "new_order"),
        payment_share_in_band(t, "locking", LOCKING_PAYMENT_BAND_PCT, "25%"),
        payment_share_in_band(t, "logging", LOGGING_PAYMENT_BAND_PCT, "18%"),
        small_pages_cut_new_order(t),
        new_order_to_payment(t),
        speedup(t, common.STRIPPED_STEP, IN_MEMORY_STEP, MIN_SPEEDUP_STRIPPED_VS_IN_MEMORY,
                "The stripped engine is many times faster than the in-memory full stack without log flush"),
        speedup(t, common.STRIPPED_STEP, 0, MIN_SPEEDUP_STRIPPED_VS_FLUSHING,
                "The stripped engine is many times faster than the full stack flushing its log at commit"),
        speedup(t, common.OPTIMAL_STEP, common.STRIPPED_STEP, MIN_SPEEDUP_OPTIMAL_VS_STRIPPED,
                "The optimal kernel is several times faster than the stripped engine"),
        remaining_share(t, "payment"),
        remaining_share(t, "new_order"),
        optimal_within_paper(t, "payment"),
        optimal_within_paper(t, "new_order"),
        cycles_versus_instructions(t, "btree_keys", cycles_higher=False),
        cycles_versus_instructions(t, "logging", cycles_higher=True),
    ]


# ---------------------------------------------------------------------------
# Output


def claims_frame(claims: list[Claim]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"claim": c.claim, "ours": c.ours, "theirs": c.theirs, "reproduced": "yes" if c.reproduced else "no"}
         for c in claims],
        columns=COLUMNS,
    )


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|")


def markdown(claims: list[Claim], t: Tables, profile: str) -> str:
    frame = claims_frame(claims)
    done = (frame["reproduced"] == "yes").sum()
    backend = common.backend_of(t.instructions)
    lines = [
        "# looking_glass (E1): claims",
        "",
        f"Harizopoulos et al., *OLTP through the looking glass*, SIGMOD 2008, against the dbrepro engine "
        f"(profile `{profile}`). {done} of {len(claims)} claims reproduced.",
        "",
        f"Instruction counts: {backend}"
        + (" (cycles are callgrind's estimate, not measured)" if t.estimated else "")
        + f"; the paper's numbers: `{t.paper.get('source', 'workflows/data/looking_glass_paper.yaml')}`.",
        "",
        "| " + " | ".join(COLUMNS) + " |",
        "|" + "---|" * len(COLUMNS),
    ]
    lines += ["| " + " | ".join(_cell(row[c]) for c in COLUMNS) + " |" for row in frame.to_dict("records")]
    lines += ["", "## Criteria", ""]
    lines += [f"{n}. {c.claim}: reproduced if {c.criterion}." for n, c in enumerate(claims, 1)]
    differ = [(n, c) for n, c in enumerate(claims, 1) if not c.reproduced]
    lines += ["", "## Why we differ", ""]
    if differ:
        lines += [f"{n}. {c.claim}: {c.why}." for n, c in differ]
    else:
        lines.append("Every claim reproduced.")
    return "\n".join(lines) + "\n"


def load_tables(instructions, switches, components, ladder, paper) -> Tables:
    return Tables(
        pd.read_csv(instructions), pd.read_csv(switches), pd.read_csv(components), pd.read_csv(ladder),
        common.load_paper(paper),
    )


def main(tables: Tables, csv_path, md_path, profile: str = "") -> pd.DataFrame:
    claims = all_claims(tables)
    frame = claims_frame(claims)
    frame.to_csv(csv_path, index=False)
    Path(md_path).write_text(markdown(claims, tables, profile), encoding="utf-8")
    return frame


if "snakemake" in globals():
    inputs = snakemake.input  # noqa: F821 (defined by Snakemake)
    common.run_logged(
        snakemake.log[0],  # noqa: F821
        lambda: main(
            load_tables(inputs.instructions, inputs.switches, inputs.components, inputs.ladder, inputs.paper),
            snakemake.output.csv,  # noqa: F821
            snakemake.output.md,  # noqa: F821
            snakemake.config.get("profile", ""),  # noqa: F821
        ),
    )
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", help="folder with instructions.csv, switches.csv, components.csv, ladder.csv")
    parser.add_argument("paper", help="the paper's numbers (workflows/data/looking_glass_paper.yaml)")
    parser.add_argument("csv", help="claims.csv to write")
    parser.add_argument("md", help="claims.md to write")
    parser.add_argument("--profile", default="", help="profile name, for claims.md")
    args = parser.parse_args()
    folder = Path(args.tables)
    loaded = load_tables(*(folder / f"{name}.csv" for name in ("instructions", "switches", "components", "ladder")),
                         args.paper)
    print(main(loaded, args.csv, args.md, args.profile).to_string(index=False))
