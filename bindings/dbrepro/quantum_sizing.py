"""E4's session length: every profile runs at the article's ratio of quantum
to session length. Our longest quantum stands for the article's longest
(400 ms), so a session is

    T = our longest Q x (the article's session / its longest Q)

where the article's session is the CPU time one session needed: workload 1,
the mean of its sessions at its shortest quantum over the sessions per CPU
(processor sharing: S sessions finish together at S T); workload 2, its one
session per CPU. A calibration run alone on this machine (dbrepro.quantum.
size_sessions) turns T into iterations or passes; nothing is tuned to a
result. Writes the sizing record that `dbrepro run quantum --sizing`
reads.

Sessions under the emulated TS class (os_ts) have their own entries,
`ts_cpu` and `ts_memory`: the article's session times ts_time_scale, the one
factor on every time of the TS dispatcher, so a session spans as many
one-second updates and quanta as the article's. Where that is our round-robin
session length (the profiles choose ts_time_scale = our longest Q / 400 ms),
the entry is the same units, not a second calibration.

The workflow's rule quantum_sizing writes the record
(workflows/scripts/quantum_sizing.py); benchmarks/quantum.py reads the same
lengths.
"""
from __future__ import annotations


def article_session_seconds(paper: dict, workload: str) -> float:
    """CPU seconds of one of the article's sessions (see the module's docstring)."""
    if workload == "cpu":
        w1 = paper["workload1"]
        shortest = min(w1["quanta_ms"])
        return w1["mean_seconds"][shortest] / w1["sessions_per_cpu"]
    w2 = paper["workload2"]
    return w2["mean_seconds"][min(w2["quanta_ms"])][1]


def article_longest_quantum_s(paper: dict, workload: str) -> float:
    key = "workload1" if workload == "cpu" else "workload2"
    return max(paper[key]["quanta_ms"]) / 1000


def session_seconds(paper: dict, workload: str, longest_quantum_ms: float) -> float:
    """Our session length at the article's ratio of quantum to session."""
    ratio = article_longest_quantum_s(paper, workload) / article_session_seconds(paper, workload)
    return longest_quantum_ms / 1000 / ratio


def ts_sizing(paper: dict, sizing: dict, workloads, ts_time_scale: float, table_mb: float) -> dict:
    """The os_ts entries (see the module's docstring)."""
    from dbrepro import quantum

    out, wanted = {}, {}
    for workload in workloads:
        seconds = article_session_seconds(paper, workload) * ts_time_scale
        same = sizing.get(workload)
        if same and abs(same["session_seconds"] - seconds) <= 0.01 * seconds:
            out[f"ts_{workload}"] = {**same, "session_seconds": seconds, "same_as": workload}
        else:
            wanted[workload] = seconds
    for workload, record in quantum.size_sessions(wanted, table_mb=table_mb).items():
        out[f"ts_{workload}"] = record
    for record in out.values():
        record["ts_time_scale"] = ts_time_scale
    return out


def sizing(paper: dict, longest_quantum_ms: float, table_mb: float, workloads, ts_time_scale=None) -> dict:
    """The sizing record: per workload (and per TS workload), its session length and the units
    that take it on this machine, beside the article's numbers it was derived from."""
    from dbrepro import quantum

    seconds = {w: session_seconds(paper, w, float(longest_quantum_ms)) for w in workloads}
    found = quantum.size_sessions(seconds, table_mb=float(table_mb))
    for workload, record in found.items():
        record["article_session_seconds"] = article_session_seconds(paper, workload)
        record["article_longest_quantum_ms"] = 1000 * article_longest_quantum_s(paper, workload)
        record["longest_quantum_ms"] = float(longest_quantum_ms)
    if ts_time_scale:
        found.update(ts_sizing(paper, found, workloads, float(ts_time_scale), float(table_mb)))
    return found
