"""The fifo_cache study's claims: each of SoQoL's findings (and the design
point the study rests on), our number, theirs, and whether ours reproduces
it by an explicit criterion.

Writes claims.csv (exactly: claim, ours, theirs, reproduced -- yes or no) and
claims.md (the same table, each claim's criterion, and for each claim not
reproduced a sentence saying how we differ).

    python workflows/scripts/fifo_cache_claims.py throughput.csv paper.yaml claims.csv claims.md
"""

import argparse
import math

import pandas as pd
from script_common import Claim, write_claims

import fifo_cache_common as common


# Criteria (ours).
SPEEDUP_SHARE = 0.5      # our FIFO/LRU NOPM ratio at least half the article's 8.7x
HIT_RATIO_BAND = 0.02    # ours within 2 points of the article's 97%


class Runs:
    def __init__(self, table: pd.DataFrame):
        self.table = table
        self.fraction = min(table["fraction"].unique(), key=lambda f: abs(f - common.ARTICLE_FRACTION))
        self.terminals = int(table["terminals"].max())

    def at(self, policy, terminals=None) -> pd.Series | None:
        t = self.table
        rows = t[(t["cache_policy"] == policy) & (t["fraction"] == self.fraction)
                 & (t["terminals"] == (terminals or self.terminals))]
        return None if rows.empty else rows.iloc[0]


def nopm_speedup(r: Runs, paper) -> Claim:
    theirs = paper["after"]["nopm"] / paper["before"]["nopm"]
    fifo, lru = r.at(common.LOCK_FREE_POLICY), r.at(common.LOCKED_POLICY)
    ours = fifo["nopm_median"] / lru["nopm_median"] if fifo is not None and lru is not None else math.nan
    ok = not math.isnan(ours) and ours >= SPEEDUP_SHARE * theirs
    claim = Claim(
        f"A FIFO-based cache multiplies NOPM over the old cache at {r.fraction:.0%} memory",
        f"soqol / lru: {ours:.2f}x ({fifo['nopm_median']:,.0f} vs {lru['nopm_median']:,.0f} NOPM, "
        f"{r.terminals} terminal(s))" if not math.isnan(ours) else "n/a",
        f"{theirs:.1f}x ({paper['after']['nopm']:,} vs {paper['before']['nopm']:,} NOPM, "
        f"{paper['setup']['clients']} clients)",
        ok, f"our soqol/lru NOPM ratio at least {SPEEDUP_SHARE:.0%} of the article's",
    )
    if not ok:
        claim.why = (f"with {r.terminals} terminal(s) on this 2-core machine the LRU lock is rarely contended, "
                     "and the article's gain came from fixing an inefficiency in its memory and cache "
                     "management with 1024 clients, not from the policy alone; both policies read about "
                     "as many pages, so NOPM follows the I/O")
    return claim


def hit_ratio(r: Runs, paper) -> Claim:
    theirs = paper["after"]["hit_ratio"]
    fifo = r.at(common.LOCK_FREE_POLICY)
    ours = float(fifo["hit_ratio"]) if fifo is not None else math.nan
    ok = not math.isnan(ours) and abs(ours - theirs) <= HIT_RATIO_BAND
    claim = Claim(
        f"Cache hit ratio at {r.fraction:.0%} memory",
        f"{ours:.1%} (soqol, {int(fifo['warehouses'])} warehouse(s))" if fifo is not None else "n/a",
        f"{theirs:.0%} ({paper['setup']['warehouses']} warehouses)",
        ok, f"ours within {HIT_RATIO_BAND * 100:.0f} points of the article's",
    )
    if not ok:
        claim.why = ("our database is a few warehouses: the hot part (items, districts, B-tree inner nodes) is a "
                     "larger share of it, so the hit ratio at a given fraction differs from 250 warehouses'")
    return claim


def at_least_lru(r: Runs, paper) -> Claim:
    fifo, lru = r.at(common.LOCK_FREE_POLICY, 1), r.at(common.LOCKED_POLICY, 1)
    ok = fifo is not None and lru is not None and fifo["hit_ratio"] >= lru["hit_ratio"]
    claim = Claim(
        f"The FIFO-based cache hits at least as often as LRU ({r.fraction:.0%} memory)",
        f"soqol {fifo['hit_ratio']:.2%}, lru {lru['hit_ratio']:.2%}" if fifo is not None and lru is not None else "n/a",
        "implied: FIFO replaced LRU without losing hits (97%)", ok,
        "soqol's hit ratio >= lru's in the single-terminal runs",
    )
    if not ok:
        claim.why = "our SoQoL design keeps fewer re-referenced pages than LRU on this trace"
    return claim


def no_lock_on_hits(r: Runs, paper) -> Claim:
    fifo, lru = r.at(common.LOCK_FREE_POLICY), r.at(common.LOCKED_POLICY)
    ok = fifo is not None and lru is not None and fifo["hit_locks"] == 0 and lru["hit_locks"] == lru["pool_hits"]
    claim = Claim(
        "Hits in the FIFO cache take no lock; LRU locks on every hit",
        f"locks on hits: soqol {fifo['hit_locks']:,.0f}, lru {lru['hit_locks']:,.0f} of {lru['pool_hits']:,.0f} hits"
        if fifo is not None and lru is not None else "n/a",
        "LRU cannot be used in a non-blocking design (a lock on every hit)", ok,
        "soqol's hits take 0 locks and lru's exactly one each",
    )
    if not ok:
        claim.why = "a hit took a lock where it should not have"
    return claim


def claims(table, paper) -> list[Claim]:
    r = Runs(table)
    return [nopm_speedup(r, paper), hit_ratio(r, paper), at_least_lru(r, paper), no_lock_on_hits(r, paper)]


def main(table_path, paper_path, csv_path, md_path) -> pd.DataFrame:
    found = claims(pd.read_csv(table_path), common.load_paper(paper_path))
    return write_claims(
        found, csv_path, md_path, "fifo_cache (E5): SoQoL's claims and ours",
        "NOPM and TPM as HammerDB reports them: New Orders committed per minute; committed and rolled-back "
        "transactions per minute.",
    )


if "snakemake" in globals():
    i = snakemake.input  # noqa: F821
    common.run_logged(snakemake.log[0], main, i.throughput, i.paper, snakemake.output.csv, snakemake.output.md)  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("throughput", "paper", "csv", "md"):
        parser.add_argument(name)
    a = parser.parse_args()
    print(main(a.throughput, a.paper, a.csv, a.md).to_string(index=False))
