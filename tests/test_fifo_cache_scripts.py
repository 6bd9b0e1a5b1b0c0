"""E5's workflow scripts on real (tiny) runs: the throughput table's CIs and
lock-wait columns, the scale table's `fraction_of` and fill-corrected hit
ratio, every claim of the criteria file evaluated, and both figures drawn."""
from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

from dbrepro import fifo_cache
from dbrepro.records import write_record

REPO = Path(__file__).resolve().parents[1]

TINY = {"transactions": 150, "seed": 4, "progress": False}


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """Timed-grid records (two repeats of lru and soqol at 1 and 2 terminals) and scale records (1 warehouse)."""
    folder = tmp_path_factory.mktemp("fifo_scripts")
    runs, scale = [], []
    for repeat in (1, 2):
        for policy in ("lru", "soqol"):
            for terminals in (1, 2):
                extra = {"terminals": terminals} if terminals > 1 else {}
                path = folder / f"r{repeat}_{policy}_t{terminals}.json"
                # Repeat r on its own seed, as the workflow runs the grid (repeat_seed).
                seeded = {**TINY, "seed": TINY["seed"] + repeat - 1}
                write_record(fifo_cache.run(policy, 0.1, warehouses=1, **seeded, **extra), path)
                runs.append(path)
    for policy in ("lru", "soqol"):
        path = folder / f"scale_{policy}.json"
        write_record(fifo_cache.run(policy, 0.1, warehouses=1, check_consistency=False, **TINY), path)
        scale.append(path)
    return folder, runs, scale


def test_tables_claims_and_figures(records):
    import fifo_cache_claims
    import fifo_cache_hit_ratio
    import fifo_cache_nopm
    import fifo_cache_table

    folder, runs, scale = records
    table = fifo_cache_table.main(folder / "throughput.csv", runs)
    assert sorted(zip(table["cache_policy"], table["terminals"])) == [("lru", 1), ("lru", 2), ("soqol", 1), ("soqol", 2)]
    assert (table["repeats"] == 2).all()
    assert ((table["nopm_ci_low"] <= table["nopm_median"]) & (table["nopm_median"] <= table["nopm_ci_high"])).all()
    soqol = table[table["cache_policy"] == "soqol"]
    assert (soqol["hit_locks"] == 0).all() and (soqol["hit_lock_waits"] == 0).all()
    assert (soqol["hit_lock_wait_pct"] == 0).all() and (soqol["cold_writes_per_txn"] > 0).all()
    lru = table[table["cache_policy"] == "lru"]
    assert (lru["hit_locks"] == lru["pool_hits"]).all() and (lru["cold_writes_per_txn"] == 0).all()

    scaled = fifo_cache_table.scale_main(folder / "scale.csv", scale)
    assert set(scaled["fraction_of"]) == {"database pages"}
    assert (scaled["hit_ratio_after_fill"] > scaled["hit_ratio"]).all()
    # Neither lru nor soqol keeps a ghost; the scale table shows the counts behind its ratios.
    assert (table["ghost_hits"] == 0).all() and (scaled["ghost_hits"] == 0).all()
    assert (scaled["hit_ratio"] == scaled["hits"] / (scaled["hits"] + scaled["misses"])).all()
    assert (scaled["warmup_misses"] == 0).all()  # TINY runs no warm-up

    claims = fifo_cache_claims.main(REPO / "workflows" / "data" / "fifo_cache_paper.yaml", folder / "claims.csv",
                                    folder / "claims.md", runs, scale_paths=scale)
    assert len(claims) == 7
    by_id = pd.read_csv(folder / "claims.csv")
    assert len(by_id) == 7 and set(by_id["reproduced"]) <= {"yes", "no", "inconclusive"}
    # The counts on every seed that counted them: the grid's two (one per repeat), the scale sweep's one.
    pairing = by_id.set_index("id")["pairing"]
    assert pairing["hits_at_least_lru"].startswith("deterministic count on seeds 4, 5")
    assert pairing["no_lock_on_hits"].startswith("deterministic count on seeds 4, 5")
    assert pairing["hit_ratio_at_scale"] == "deterministic count on seed 4"
    # Fewer than 5 repeats: the timed claims cannot be decided; one warehouse count: no growth to judge.
    assert (claims.set_index("claim").loc[lambda f: f["repeats"] == 2, "reproduced"] == "inconclusive").all()

    paper = REPO / "workflows" / "data" / "fifo_cache_paper.yaml"
    for module, source, name in ((fifo_cache_nopm, "throughput.csv", "nopm"), (fifo_cache_hit_ratio, "scale.csv", "hit")):
        out = folder / f"{name}.png"
        assert module.main([str(folder / source), str(paper), str(out)]) == 0
        assert out.read_bytes()[:4] == b"\x89PNG"


def test_hit_curve_over_warehouses_says_which_fraction(tmp_path):
    """Traces recorded at two warehouse counts, replayed at fractions of the
    database's pages and of the trace's distinct pages; the figure draws the former."""
    import fifo_cache_hit_curve
    import fifo_cache_trace_hit_ratio

    pairs = []
    for warehouses in (1, 2):
        trace, record = tmp_path / f"trace_w{warehouses}.txt", tmp_path / f"trace_w{warehouses}.json"
        write_record(fifo_cache.record_trace(trace, warehouses=warehouses, transactions=100, warmup_transactions=100,
                                             seed=4, progress=False), record)
        pairs.append((trace, record))
    table = fifo_cache_hit_curve.main(tmp_path / "hit_curve.csv", pairs, [0.1, 0.2], ["lru", "soqol"])
    assert set(table["fraction_of"]) == {"database pages", "trace distinct pages"}
    assert sorted(table["warehouses"].unique()) == [1, 2]
    assert len(table) == 2 * 2 * 2 * 2  # warehouses x bases x fractions x policies
    by_db = table[table["fraction_of"] == "database pages"]
    assert (by_db["capacity"] >= (by_db["database_pages"] * by_db["fraction"]).astype(int)).all()
    # The trace touches fewer pages than the database has: its 10% is the smaller cache.
    assert (table["trace_pages"] < table["database_pages"]).all()
    assert (table["warmup_requests"] > 0).all() and (table["requests"] > 0).all()
    # Replayed twice, the same counts.
    again = fifo_cache_hit_curve.main(tmp_path / "again.csv", pairs, [0.1, 0.2], ["lru", "soqol"])
    assert again["hits"].tolist() == table["hits"].tolist()

    out = tmp_path / "trace_hit_ratio.png"
    paper = REPO / "workflows" / "data" / "fifo_cache_paper.yaml"
    assert fifo_cache_trace_hit_ratio.main([str(tmp_path / "hit_curve.csv"), str(paper), str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
