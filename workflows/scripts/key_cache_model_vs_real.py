"""E2's model against the real MariaDB, cell by cell, on the one workload
definition both ran (dbrepro.key_cache_workload):

- model_vs_real.csv: per (distribution, P, threads, segments) run by both, each
  engine's gain of the segments value over off, (median q/s with N / off - 1)
  x 100, with its 95% bootstrap interval paired by repeat within the engine
  (the engines' repeat r ran at different times: nothing pairs across them),
  and whether the model's gain lies inside the real gain's interval;
- mutex_account.csv: per source (model, mariadb) and cell, where a query's time
  goes: key cache mutex acquisitions and the time spent acquiring them (the
  model's own counters; performance_schema's KEY_CACHE::cache_lock for the
  real server, which counts every acquisition as a wait event), the real
  server's data-file reads (wait/io/file/myisam/dfile: the rows), and the
  server's CPU time, all per query. The real server's rows come from its
  accounting runs (performance_schema on, `--account`), never from the timed
  runs, which run without it; `timed` says which rows were timed runs.

Run by Snakemake (rule key_cache_model_vs_real), or by hand:
    python workflows/scripts/key_cache_model_vs_real.py OUT_DIR --model RUN.json... --mariadb RUN.json... \
        --account ACCOUNT.json...
"""

import argparse
import math
from pathlib import Path

import pandas as pd

from dbrepro import verdicts as vd
import key_cache_common as common
from dbrepro.records import load_runs

CELL = ["distribution", "points", "threads"]
VS_COLUMNS = [*CELL, "segments", "model_gain_pct", "model_ci_low", "model_ci_high", "model_repeats",
              "real_gain_pct", "real_ci_low", "real_ci_high", "real_repeats", "model_within_real_interval"]


def gains(runs: pd.DataFrame) -> pd.DataFrame:
    """Per cell and segments value: the gain over off with its interval paired by repeat."""
    rows = []
    for key, cell in common.with_fraction(runs).groupby(CELL):
        off = vd.by_repeat(cell[cell["segments"] == common.OFF], "queries_per_second")
        for segments in sorted(s for s in cell["segments"].unique() if s != common.OFF):
            on = vd.by_repeat(cell[cell["segments"] == segments], "queries_per_second")
            repeats, low, high = common.paired_gain_interval(on, off)
            samples = vd.align([on, off])
            gain = float(vd.median_effect("pct_change")(samples[0], samples[1])) if repeats else math.nan
            rows.append({**dict(zip(CELL, key)), "segments": int(segments), "gain_pct": gain, "ci_low": low,
                         "ci_high": high, "repeats": repeats})
    return pd.DataFrame(rows, columns=[*CELL, "segments", "gain_pct", "ci_low", "ci_high", "repeats"])


def model_vs_real(model: pd.DataFrame, real: pd.DataFrame) -> pd.DataFrame:
    keys = [*CELL, "segments"]
    m = gains(model).rename(columns={"gain_pct": "model_gain_pct", "ci_low": "model_ci_low",
                                     "ci_high": "model_ci_high", "repeats": "model_repeats"})
    r = gains(real).rename(columns={"gain_pct": "real_gain_pct", "ci_low": "real_ci_low",
                                    "ci_high": "real_ci_high", "repeats": "real_repeats"})
    table = m.merge(r, on=keys, how="inner")
    inside = (table["model_gain_pct"] >= table["real_ci_low"]) & (table["model_gain_pct"] <= table["real_ci_high"])
    table["model_within_real_interval"] = inside.where(table["real_ci_low"].notna())
    return table.sort_values(keys).reset_index(drop=True)[VS_COLUMNS]


def _per_query(frame: pd.DataFrame, column: str, scale: float = 1.0) -> pd.Series:
    queries = frame["queries"].where(frame["queries"] > 0)
    return scale * frame[column] / queries if column in frame.columns else pd.Series(math.nan, index=frame.index)


def _timed(frame: pd.DataFrame, default: bool) -> pd.Series:
    """Each row's `timed` (a record without the column: `default`)."""
    if "timed" not in frame.columns:
        return pd.Series(default, index=frame.index)
    return frame["timed"].astype(str).str.lower().isin(["true", "1"])


def mutex_account(model: pd.DataFrame, real: pd.DataFrame) -> pd.DataFrame:
    """Median over the undisturbed repeats of each per-query cost, one row per source and cell.
    `real`: the real server's accounting runs (performance_schema on; their `timed` is false)."""
    model = common.with_fraction(model) if len(model) else model
    real = common.with_fraction(real) if len(real) else real
    parts = []
    if len(model):
        parts.append(pd.DataFrame({
            "source": "model", **{k: model[k] for k in (*CELL, "segments")},
            "queries_per_second": model["queries_per_second"],
            # Every acquisition of a segment's mutex, as performance_schema counts them.
            "waits_per_query": _per_query(model, "mutex_acquisitions"),
            "contended_per_query": _per_query(model, "mutex_waits"),
            "wait_us_per_query": _per_query(model, "mutex_wait_ns", 1e-3),
            "data_file_reads_per_query": math.nan, "data_file_us_per_query": math.nan,
            "server_cpu_us_per_query": _per_query(model, "cpu_seconds", 1e6),
            # The model's counters are kept in its timed runs.
            "timed": _timed(model, True),
            "disturbed": model.get("disturbed", False),
        }))
    if len(real):
        parts.append(pd.DataFrame({
            "source": "mariadb", **{k: real[k] for k in (*CELL, "segments")},
            "queries_per_second": real["queries_per_second"],
            "waits_per_query": _per_query(real, "cache_lock_waits"),
            "contended_per_query": math.nan,  # performance_schema times every acquisition, contended or not
            "wait_us_per_query": _per_query(real, "cache_lock_wait_us"),
            "data_file_reads_per_query": _per_query(real, "data_file_reads"),
            "data_file_us_per_query": _per_query(real, "data_file_read_us"),
            "server_cpu_us_per_query": _per_query(real, "server_cpu_seconds", 1e6),
            "timed": _timed(real, True),
            "disturbed": real.get("disturbed", False),
        }))
    columns = ["source", *CELL, "segments", "timed", "queries_per_second", "waits_per_query", "contended_per_query",
               "wait_us_per_query", "data_file_reads_per_query", "data_file_us_per_query", "server_cpu_us_per_query"]
    if not parts:
        return pd.DataFrame(columns=[*columns, "repeats"])
    rows = pd.concat(parts, ignore_index=True)
    rows = rows[~rows["disturbed"].astype(str).str.lower().isin(["true", "1"])]
    keys = ["source", *CELL, "segments", "timed"]
    table = rows.groupby(keys)[columns[len(keys):]].median()
    table["repeats"] = rows.groupby(keys).size()
    return table.reset_index()[[*columns, "repeats"]]


def main(model_paths, mariadb_paths, vs_path, account_path, account_paths=(),
         fraction: float = common.ARTICLE_FRACTION):
    # The model at the real server's cache size (the whole index fits).
    model = common.cells_at_fraction(load_runs(model_paths), fraction) if model_paths else pd.DataFrame()
    real = load_runs(mariadb_paths) if mariadb_paths else pd.DataFrame()
    # The real server's mutex account: its accounting runs only (performance_schema on, not timed).
    real_account = load_runs(account_paths) if account_paths else pd.DataFrame()
    # Without the real server's runs (not run in the profile) the table has its header only.
    vs = model_vs_real(model, real) if len(model) and len(real) else pd.DataFrame(columns=VS_COLUMNS)
    account = mutex_account(model, real_account)
    for table, path in ((vs, vs_path), (account, account_path)):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(path, index=False, float_format="%.6g")
    return vs


if "snakemake" in globals():
    i, o = snakemake.input, snakemake.output  # noqa: F821
    common.run_logged(snakemake.log[0], main, list(i.model), list(i.mariadb), o.model_vs_real,  # noqa: F821
                      o.mutex_account, list(i.account))
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", help="folder for model_vs_real.csv and mutex_account.csv")
    parser.add_argument("--model", nargs="+", required=True, help="records of `dbrepro run key_cache run`")
    parser.add_argument("--mariadb", nargs="*", default=[],
                        help="timed records of `dbrepro run key_cache mariadb run`")
    parser.add_argument("--account", nargs="*", default=[],
                        help="accounting records of `dbrepro run key_cache mariadb run --account`")
    a = parser.parse_args()
    out = Path(a.out_dir)
    print(main(a.model, a.mariadb, out / "model_vs_real.csv", out / "mutex_account.csv",
               a.account).to_string(index=False))
