"""E3's claims: each of the article's findings, our number, theirs, and
whether ours reproduces it by the criterion written in
workflows/claims/openedge.yaml (the only place the criteria live).

Times and per-user spreads are timed claims: each step's repeats (runs.csv,
one row per step and repeat) are the bootstrap's samples. Traffic, lookups and
records are counts. Writes claims.csv (dbrepro.verdicts.CLAIM_COLUMNS) and claims.md.

Run by Snakemake (rule openedge_claims), or by hand:
    python workflows/scripts/openedge_claims.py runs.csv traffic.csv scan.csv latency.csv paper.yaml claims.csv claims.md
"""
import argparse
import math

import numpy as np
import pandas as pd

from dbrepro import verdicts as vd
import openedge_common as common
from dbrepro.verdicts import ClaimResult


def pct(value) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:+.1f}%"


class Tables:
    def __init__(self, runs, traffic, paper, scan=None, latency=None, context: vd.Context = vd.DEFAULT):
        self.context = context  # what this run can judge
        self.runs = runs.assign(user_cv=runs["user_stddev_seconds"] / runs["user_mean_seconds"])
        self.traffic = traffic.set_index("name")
        self.scan = None if scan is None else scan.set_index("name")
        self.latency = latency
        self.paper = paper

    def has(self, *names) -> bool:
        return all(n in set(self.runs["name"]) for n in names)

    def samples(self, name, column="wall_seconds") -> pd.Series:
        """One step's runs by repeat (disturbed runs left out): the paired bootstrap's sample."""
        return vd.by_repeat(self.runs[self.runs["name"] == name], column)

    @property
    def cpus(self) -> int:
        return int(self.runs["cpu_count"].iloc[0]) if "cpu_count" in self.runs else 0

    def spread_note(self, *names) -> str:
        """The repeats' min-max per step: on a shared machine it can exceed a step's change."""
        return "repeats ranged " + ", ".join(
            f"{n} {self.samples(n).min():.3f}-{self.samples(n).max():.3f} s" for n in names)


def time_claim(t: Tables, c: vd.Criterion, name: str, previous: str) -> ClaimResult:
    if not t.has(name, previous):
        return ClaimResult(c, "not run", vd.inconclusive(f"the profile's openedge.steps lack {name} or {previous}"))
    outcome = vd.evaluate_medians(t.samples(name), t.samples(previous), c, t.context)
    result = ClaimResult(c, f"{pct(outcome.value)} time vs {previous}{vd.interval(outcome, 1, '%')}", outcome)
    if outcome.reproduced != "yes":
        result.why = t.spread_note(name, previous)
        if name == "mtdbs" and outcome.value > 0:
            result.why += (f". On {t.cpus} CPU(s) a thread per client adds a wake-up per request and no "
                           "parallelism that one event-loop thread per server lacks")
    return result


def user_spread_claim(t: Tables, c: vd.Criterion) -> ClaimResult:
    pairs = [("mtdbs", "bht"), ("ssj", "mtdbs")]
    if not t.has("bht", "mtdbs", "ssj"):
        return ClaimResult(c, "not run", vd.inconclusive("the profile's openedge.steps lack bht, mtdbs or ssj"))
    outcome = vd.evaluate_cells([(t.samples(a, "user_cv"), t.samples(b, "user_cv")) for a, b in pairs], c, t.context)
    cvs = ", ".join(f"{n} {t.samples(n, 'user_cv').median():.3f}" for n in ("bht", "mtdbs", "ssj"))
    steps = "; ".join(f"{a}/{b} {t.samples(a, 'user_cv').median() / t.samples(b, 'user_cv').median():.2f}x"
                      for a, b in pairs)
    return ClaimResult(c, f"median of the two steps' CV ratios {outcome.value:.2f}x{vd.interval(outcome, 2, 'x')} "
                          f"(median per-user CV: {cvs}; {steps})", outcome)


def traffic_claim(t: Tables, c: vd.Criterion) -> ClaimResult:
    if not all(n in t.traffic.index for n in ("mtdbs", "ssj")):
        return ClaimResult(c, "not run", vd.inconclusive("the profile's openedge.steps lack mtdbs or ssj"))
    before, after = float(t.traffic.at["mtdbs", "bytes_on_wire"]), float(t.traffic.at["ssj", "bytes_on_wire"])
    m_before, m_after = float(t.traffic.at["mtdbs", "messages_on_wire"]), float(t.traffic.at["ssj", "messages_on_wire"])
    return ClaimResult(c, f"bytes {before:,.0f} -> {after:,.0f} ({after / before:.3f}x), "
                          f"messages {m_before:,.0f} -> {m_after:,.0f}", vd.evaluate_count(after / before, c.band))


def optimistic_join_claim(t: Tables, c: vd.Criterion) -> ClaimResult:
    """The finding, on the article's workload: the join's lookups of index blocks (bht step)."""
    if "bht" not in t.traffic.index or "lookups_avoided_per_index_block" not in t.traffic.columns:
        return ClaimResult(c, "not run", vd.inconclusive("no join run with the bht step"))
    join = t.traffic.loc["bht"]
    per_block = float(join["lookups_avoided_per_index_block"])
    scan = (f"; on a scan (the check): {float(t.scan.at['bht', 'lookups_avoided_per_index_block']):,.1f} per block"
            if t.scan is not None and "bht" in t.scan.index else "")
    return vd.count_result(
        c, f"join: {per_block:,.2f} lookups avoided per index-block lookup{scan}", per_block,
        "the join's nested lookups enter a new index block for about every record, so the remembered block is "
        "rarely the one needed; the cursor saves its lookups on a scan, which stays in one block for many records")


def optimistic_claim(t: Tables, c: vd.Criterion) -> ClaimResult:
    if t.scan is None or "bht" not in t.scan.index:
        return ClaimResult(c, "not run", vd.inconclusive("no scan-workload run with the bht step"))
    scan = t.scan.loc["bht"]
    per_block = float(scan["lookups_avoided_per_index_block"])
    join = (f"; the join's nested lookups: {float(t.traffic.at['bht', 'lookups_avoided_per_index_block']):.2f} "
            f"per block" if "bht" in t.traffic.index else "")
    return vd.count_result(
        c, f"scan: {per_block:,.1f} lookups avoided per index block entered ({float(scan['lookups_avoided']):,.0f} "
           f"avoided over {float(scan['index_blocks']):,.0f} blocks, {float(scan['revalidation_failures']):,.0f} "
           f"re-validations failed){join}", per_block,
        f"the scan's cursor re-validated its block {per_block:,.1f} times per block entered; the most it can is the "
        f"entries of one index block")


def qualifying_claim(t: Tables, c: vd.Criterion) -> ClaimResult:
    if not all(n in t.traffic.index for n in ("mtdbs", "ssj")):
        return ClaimResult(c, "not run", vd.inconclusive("the profile's openedge.steps lack mtdbs or ssj"))
    share = 100.0 * float(t.traffic.at["ssj", "records_received"]) / float(t.traffic.at["mtdbs", "records_received"])
    return vd.count_result(
        c, f"{share:.1f}% (records sent by the server-side join / fetched by the client-side join)", share,
        "our tables match the Percent_100/75/50 columns' names (100%, 75%, 50% of the parents find a partner), "
        "which with the OF relationships' fanout leaves a different share qualifying")


def latency_gain_growth(mtdbs_0, ssj_0, mtdbs_d, ssj_d, axis=-1):
    """Percentage points by which SSJ's time reduction over MTDBS grows with the added latency."""
    def reduction(mtdbs, ssj):
        return 100.0 * (1.0 - np.median(ssj, axis=axis) / np.median(mtdbs, axis=axis))

    return reduction(mtdbs_d, ssj_d) - reduction(mtdbs_0, ssj_0)


def latency_claim(t: Tables, c: vd.Criterion) -> ClaimResult:
    if t.latency is None or t.latency.empty:
        return ClaimResult(c, "not run", vd.inconclusive("no latency runs (the profile's openedge.latency_us is 0)"))
    delays = sorted(set(t.latency["message_delay_us"]))
    if len(delays) != 2 or delays[0] != 0:
        return ClaimResult(c, "not run", vd.inconclusive(f"expected runs without and with one added latency, "
                                                         f"got delays {delays} us"))

    def times(name, delay):
        return vd.by_repeat(t.latency[(t.latency["name"] == name) & (t.latency["message_delay_us"] == delay)],
                            "wall_seconds")

    delay = delays[1]
    samples = [times("mtdbs", 0), times("ssj", 0), times("mtdbs", delay), times("ssj", delay)]
    outcome = vd.evaluate_statistic(samples, latency_gain_growth, c.band, int(c.min_repeats), t.context)

    def reduction(mtdbs, ssj):
        return 100.0 * (1.0 - np.median(ssj) / np.median(mtdbs)) if len(mtdbs) and len(ssj) else math.nan

    medians = ", ".join(f"{name} {np.median(x):.3f} s" if len(x) else f"{name} -"
                        for name, x in zip(("mtdbs", "ssj", f"mtdbs+{delay}us", f"ssj+{delay}us"), samples))
    return ClaimResult(c, f"SSJ's reduction {reduction(*samples[:2]):.1f}% without added latency, "
                          f"{reduction(*samples[2:]):.1f}% with {delay} us per request: "
                          f"{outcome.value:+.1f} points{vd.interval(outcome, 1, ' points')} ({medians})", outcome)


def claims(runs, traffic, paper, criteria: vd.Criteria, scan=None, latency=None,
           context: vd.Context = vd.DEFAULT) -> list[ClaimResult]:
    t = Tables(runs, traffic, paper, scan, latency, context)
    k = criteria.claims
    first, last = common.STEPS[0], common.STEPS[-1]
    return [
        time_claim(t, k["bht_step"], "bht", "baseline"),
        time_claim(t, k["mtdbs_step"], "mtdbs", "bht"),
        time_claim(t, k["ssj_step"], "ssj", "mtdbs"),
        time_claim(t, k["all_features"], last, first),
        user_spread_claim(t, k["user_spread_shrinks"]),
        traffic_claim(t, k["traffic_drops"]),
        optimistic_join_claim(t, k["optimistic_saves_lookups"]),
        optimistic_claim(t, k["optimistic_saves_lookups_scan"]),
        qualifying_claim(t, k["quarter_qualifies"]),
        latency_claim(t, k["ssj_gain_grows_with_latency"]),
    ]


# The claims counted on the scan workload's one run (the others on the ladder's runs, a seed per repeat).
SCAN_CLAIMS = {"optimistic_saves_lookups_scan"}


def on_every_seed(runs, traffic, paper, criteria: vd.Criteria, scan=None, latency=None,
                  context: vd.Context = vd.DEFAULT) -> list[ClaimResult]:
    """Every claim; the counts (bytes, lookups) on every seed the ladder ran: repeat r runs
    on its own seed (workflows/common.smk, repeat_seed), so each seed's counts come from its
    repeat's run, and a count claim holds only if it holds on every seed."""
    found = claims(runs, traffic, paper, criteria, scan, latency, context)
    if "seed" not in runs.columns:
        return found
    from openedge_tables import traffic_table

    scan_seeds = ({int(s) for text in scan["seeds"].dropna() for s in str(text).split()}
                  if scan is not None and "seeds" in scan.columns else set())

    def on_seed(seed):
        subset = runs[runs["seed"] == seed]
        found = claims(subset, traffic_table(subset), paper, criteria, scan, latency, context)
        # The scan ran once, on its own seed: its check counts on that seed alone.
        return [None if r.claim_id in SCAN_CLAIMS and seed not in scan_seeds else r for r in found]

    return vd.judge_on_seeds(found, on_seed, sorted(vd.seeds_of(runs)), criteria.min_seeds)


def main(runs_path, traffic_path, scan_path, latency_path, paper_path, csv_path, md_path,
         criteria_path=None, run_config=None, context: vd.Context = vd.DEFAULT) -> pd.DataFrame:
    criteria = vd.load_criteria(criteria_path or "openedge", run_config)
    runs, latency = pd.read_csv(runs_path), pd.read_csv(latency_path)
    found = on_every_seed(runs, pd.read_csv(traffic_path), common.load_paper(paper_path), criteria,
                          pd.read_csv(scan_path), latency, context)
    return vd.write_claims(vd.judge_all(found, criteria, context), criteria, csv_path, md_path, context,
                           preamble=vd.load_account(context, runs, latency))


if "snakemake" in globals():
    i = snakemake.input  # noqa: F821
    common.run_logged(snakemake.log[0], main, i.runs, i.traffic, i.scan, i.latency, i.paper,  # noqa: F821
                      snakemake.output.csv, snakemake.output.md, i.criteria, snakemake.config,  # noqa: F821
                      vd.Context.from_params(snakemake.params))  # noqa: F821 (what this profile can judge)
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("runs", "traffic", "scan", "latency", "paper", "csv", "md"):
        parser.add_argument(name)
    a = parser.parse_args()
    print(main(a.runs, a.traffic, a.scan, a.latency, a.paper, a.csv, a.md).to_string(index=False))
