"""The raw-run record every study writes, and its tidy table form.

A record always has the same five sections, whatever the study:

    {"schema_version": 1, "kind": "<study>", "config": {...}, "metrics": {...},
     "provenance": {...}}

plus optional kind-specific sections (tpcc adds "consistency"). `config` is what
was asked for, `metrics` what was measured, `provenance` where and with what.
Each kind registers how its record becomes table rows (`FRAME_ROWS`, filled by
its study's module, which `rows_of_kind` imports: dbrepro.studies names it); a
kind no study writes gets a single row of its scalar config and metrics.
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any, Callable

from .host_load import row_columns

SCHEMA_VERSION = 1
REQUIRED_SECTIONS = ("schema_version", "kind", "config", "metrics", "provenance")


class RecordError(ValueError):
    """A file or dict is not a dbrepro raw-run record."""


@dataclass
class RunResult:
    kind: str
    config: dict[str, Any]
    metrics: dict[str, Any]
    provenance: dict[str, Any]
    # Kind-specific top-level sections, written between metrics and provenance.
    extra: dict[str, Any] = field(default_factory=dict)

    # -- convenience views -------------------------------------------------
    @property
    def consistent(self) -> bool | None:
        """True/False from the TPC-C consistency checks; None if not checked."""
        return self.metrics.get("consistent")

    @property
    def interrupted(self) -> bool:
        return bool(self.metrics.get("interrupted", False))

    @property
    def consistency(self) -> list[dict[str, Any]]:
        return list(self.extra.get("consistency", []))

    @property
    def throughput_tps(self) -> float:
        return float(self.metrics["throughput_tps"])

    # -- record form -------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The raw-run record: plain JSON types only, safe to json.dump."""
        record: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "kind": self.kind,
            "config": self.config,
            "metrics": self.metrics,
            **self.extra,
            "provenance": self.provenance,
        }
        return copy.deepcopy(record)

    @classmethod
    def from_dict(cls, record: Any) -> RunResult:
        check_record_shape(record)
        extra = {k: v for k, v in record.items() if k not in REQUIRED_SECTIONS}
        return cls(
            kind=record["kind"],
            config=copy.deepcopy(record["config"]),
            metrics=copy.deepcopy(record["metrics"]),
            provenance=copy.deepcopy(record["provenance"]),
            extra=copy.deepcopy(extra),
        )

    # -- table form ----------------------------------------------------------
    def to_rows(self) -> list[dict[str, Any]]:
        rows_for_kind = rows_of_kind(self.kind)
        provenance_columns = _provenance_columns(self.provenance)
        return [{"kind": self.kind, **row, **provenance_columns} for row in rows_for_kind(self)]

    def to_frame(self):
        """A tidy pandas DataFrame (for tpcc: one row per transaction type run)."""
        import pandas as pd  # heavy; only needed here

        return pd.DataFrame(self.to_rows())

    def __repr__(self) -> str:
        return (
            f"RunResult(kind={self.kind!r}, config={_scalars(self.config)!r}, "
            f"throughput_tps={self.metrics.get('throughput_tps')!r}, consistent={self.consistent})"
        )


def check_record_shape(record: Any) -> None:
    """Raise RecordError saying what is wrong if `record` is not a record."""
    if not isinstance(record, dict):
        raise RecordError(f"expected a JSON object, got {type(record).__name__}")
    missing = [key for key in REQUIRED_SECTIONS if key not in record]
    if missing:
        raise RecordError(f"missing section(s): {', '.join(missing)}")
    if record["schema_version"] != SCHEMA_VERSION:
        raise RecordError(
            f"schema_version {record['schema_version']!r} is not supported (expected {SCHEMA_VERSION})"
        )
    if not isinstance(record["kind"], str) or not record["kind"]:
        raise RecordError("kind must be a non-empty string")
    for section in ("config", "metrics", "provenance"):
        if not isinstance(record[section], dict):
            raise RecordError(f"{section} must be an object")


# ---------------------------------------------------------------------------
# Rows per kind


def _scalars(mapping: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if isinstance(v, (str, int, float, bool)) or v is None}


def _provenance_columns(provenance: dict[str, Any]) -> dict[str, Any]:
    git = provenance.get("git", {})
    host = provenance.get("host", {})
    return {
        "git_commit": git.get("commit"),
        "git_dirty": git.get("dirty"),
        "hostname": host.get("hostname"),
        "timestamp_utc": provenance.get("timestamp_utc"),
    }


def rows_of_kind(kind: str) -> Callable[[RunResult], list[dict[str, Any]]]:
    """How a record of `kind` becomes rows: its study's module registers them in FRAME_ROWS when
    imported, so it is imported here (the registry of studies names it) whatever was imported
    before; a kind no study writes gets one row of its scalars."""
    if kind not in FRAME_ROWS:
        from . import studies

        module = studies.record_module(kind)
        if module is not None:
            import importlib

            importlib.import_module(module)
    return FRAME_ROWS.get(kind, _generic_rows)


def _generic_rows(result: RunResult) -> list[dict[str, Any]]:
    # Metrics that clash with a config name get a prefix rather than overwrite it.
    config = _scalars(result.config)
    metrics = {(f"metric_{k}" if k in config else k): v for k, v in _scalars(result.metrics).items()}
    return [{**config, **metrics}]


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator > 0 else math.nan


def _pool_columns(pool: dict[str, Any] | None) -> dict[str, Any]:
    """E5's disk-backed pool in the measured phase (no columns for other stacks)."""
    if not pool:
        return {}
    return {
        "cache_policy": pool["policy"],
        "pool_fraction": pool["fraction"],
        "pool_frames": pool["frames"],
        "hit_ratio": pool["hit_ratio"],
        "pool_hits": pool["hits"],
        "pool_misses": pool["misses"],
        "pool_reads": pool["reads"],
        "pool_writes": pool["writes"],
        "hit_locks": pool["hit_locks"],
        # Records written before these counters existed have none.
        "hit_lock_waits": pool.get("hit_lock_waits", 0),
        "hit_lock_wait_ns": pool.get("hit_lock_wait_ns", 0),
        "pool_cold_writes": pool.get("cold_writes", 0),
        "pool_ghost_hits": pool.get("ghost_hits", 0),
        "o_direct": pool["o_direct"],
    }


def _tpcc_rows(result: RunResult) -> list[dict[str, Any]]:
    config, metrics = result.config, result.metrics
    host = metrics.get("host", {})
    config_columns = {
        "variant": config["variant"],
        "warehouses": config["warehouses"],
        "transactions": config["transactions"],  # asked for; transactions_done is what ran
        "seconds_limit": config["seconds"],
        "seed": config["seed"],
        "stack": config.get("stack", "bare"),
        "step": metrics.get("step", -1),
        "page_size": config["page_size"],
        "key_compare": config["key_compare"],
        "terminals": config.get("terminals", 1),
    }
    elapsed = float(metrics["elapsed_seconds"])
    per_type = metrics["per_type"]
    run_columns = {
        "throughput_tps": metrics["throughput_tps"],
        # As HammerDB reports them: New Orders committed per minute, and
        # transactions per minute (commits and rollbacks, as a DBMS counts them).
        "nopm": _ratio(per_type["new_order"]["commits"] * 60.0, elapsed),
        "tpm": _ratio(sum(t["commits"] + t["aborts"] for t in per_type.values()) * 60.0, elapsed),
        "transactions_done": metrics["transactions"],
        "elapsed_seconds": elapsed,
        "cpu_seconds": metrics["cpu_seconds"],
        "load_seconds": metrics["load_seconds"],
        "database_bytes": metrics["database_bytes"],
        "consistent": metrics["consistent"],
        "interrupted": metrics["interrupted"],
        "process_cpu_seconds": host.get("process_cpu_seconds"),
        "wall_seconds": host.get("wall_seconds"),
        "loadavg_1m_before": (host.get("loadavg_before") or [None])[0],
        "loadavg_1m_after": (host.get("loadavg_after") or [None])[0],
        # Foreign load over the run (dbrepro.host_load), and its reruns.
        **row_columns(host),
        **_pool_columns(metrics.get("pool")),
    }
    rows = []
    for txn_type, weight in config["mix"].items():
        if weight <= 0:
            continue
        stats = metrics["per_type"][txn_type]
        attempts = stats["commits"] + stats["aborts"]
        rows.append(
            {
                **config_columns,
                "txn_type": txn_type,
                "weight": weight,
                "commits": stats["commits"],
                "aborts": stats["aborts"],
                "retries": stats.get("retries", 0),  # deadlock victims rolled back and rerun
                "seconds": stats["seconds"],
                # Aborted attempts spend time too, so latency is per attempt.
                "mean_latency_us": _ratio(stats["seconds"] * 1e6, attempts),
                "tps": _ratio(stats["commits"], elapsed),
                **run_columns,
            }
        )
    return rows


# kind -> function turning a RunResult into table rows. New studies add theirs.
FRAME_ROWS: dict[str, Callable[[RunResult], list[dict[str, Any]]]] = {
    "tpcc": _tpcc_rows,
}
