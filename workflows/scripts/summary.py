"""results/summary.md (and .html, the report's first page): per study, how
many of the original's findings reproduced (at its setting and at a scaled
one), our checks beside them, when the criteria were written, and the headline numbers, with the
kind of machine, the foreign CPU its timed cells saw, the profile and the commit. Every number is read
from the run's tables; none is typed here. The README points at a committed
copy of this file (reference/summary-<profile>.md) instead of quoting numbers.

Run by Snakemake (rule summary), or by hand:
    python workflows/scripts/summary.py RESULTS_DIR PROFILE OUT.md OUT.html
"""

import json
import math
import sys
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

import run_spread  # the within-repeat spread of a run's paired cells: one implementation
from dbrepro import studies, verdicts as vd

# The judged studies by name, each with its heading (dbrepro.studies: the one list).
STUDIES = {study.name: study.heading for study in studies.judged()}


def _read(results: Path, study: str, name: str) -> pd.DataFrame | None:
    path = results / "tables" / study / f"{name}.csv"
    return pd.read_csv(path) if path.is_file() else None


def _fmt(value, digits=0, suffix="") -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    return f"{value:,.{digits}f}{suffix}"


def headline_looking_glass(results: Path) -> list[str]:
    lines = []
    instructions = _read(results, "looking_glass", "instructions")
    if instructions is not None:
        totals = instructions.groupby(["step", "txn_type"])["instructions"].sum()
        for txn in ("payment", "new_order"):
            if (0, txn) in totals and (11, txn) in totals:
                lines.append(f"{txn}: {_fmt(totals[(0, txn)])} instructions per transaction on the full stack "
                             f"(step 0), {_fmt(totals[(11, txn)])} on the optimal kernel (step 11); backend "
                             f"{instructions['backend'].iloc[0]}")
    ladder = _read(results, "looking_glass", "ladder")
    if ladder is not None:
        tps = ladder.set_index("step")["tps_median"]
        lines.append("ladder median tps: " + ", ".join(f"step {s} {_fmt(v)}" for s, v in tps.items()
                                                        if s in (0, 2, 10, 11)))
    return lines


def headline_key_cache(results: Path) -> list[str]:
    return headline_key_cache_model(results) + headline_key_cache_mariadb(results)


def headline_key_cache_model(results: Path) -> list[str]:
    relative = _read(results, "key_cache", "relative")
    if relative is None:
        return []
    ours = relative[relative["source"] == "ours"]
    if "index_fraction" in ours.columns:  # the article's cache size: the whole index fits
        ours = ours[ours["index_fraction"] == 1.0]
    threads = [c for c in ours.columns if c.isdigit()]
    if ours.empty or not threads:
        return []
    values = ours[threads].apply(pd.to_numeric, errors="coerce")
    best = values.max(axis=1).idxmax()
    column = values.loc[best].idxmax()
    throughput = _read(results, "key_cache", "throughput")
    mode = ""  # how the model's clients reached the cache (client_server: over a socket from a second process)
    if throughput is not None and "mode" in throughput.columns and not throughput.empty:
        mode = f", mode {throughput['mode'].iloc[0]}"
    drawn = f", {ours.at[best, 'distribution']} points" if "distribution" in ours.columns else ""
    return [f"model's largest gain over segments off: {_fmt(values.at[best, column], 1, '%')} "
            f"({int(ours.at[best, 'segments'])} segments, {column} threads, P={int(ours.at[best, 'points'])}"
            f"{drawn}{mode})"]


def headline_key_cache_mariadb(results: Path) -> list[str]:
    """The real MariaDB's gain at its most threads, with its interval."""
    gains = _read(results, "key_cache", "mariadb_gains")
    if gains is None or gains.empty:
        return []
    points = 10 if 10 in set(gains["points"]) else int(gains["points"].min())
    lines = []
    drawn = gains.groupby("distribution") if "distribution" in gains.columns else [("special", gains)]
    for distribution, rows in drawn:
        top = rows[(rows["threads"] == rows["threads"].max()) & (rows["points"] == points)]
        cells = ", ".join(f"{int(row.segments)} segments {_fmt(row.mariadb_gain, 1, '%')} "
                          f"(95% CI {_fmt(row.ci_low, 1)}..{_fmt(row.ci_high, 1)})" for row in top.itertuples())
        lines.append(f"real MariaDB at {int(top['threads'].iloc[0])} threads, P={int(top['points'].iloc[0])}, "
                     f"{distribution} points: {cells}")
    return lines


def headline_openedge(results: Path) -> list[str]:
    ladder = _read(results, "openedge", "ladder")
    if ladder is None:
        return []
    return ["median time vs baseline: " + ", ".join(
        f"{row.name} {_fmt(row.change_vs_baseline_pct, 1, '%')}" for row in ladder.itertuples() if row.step > 0)]


def headline_quantum(results: Path) -> list[str]:
    runs = _read(results, "quantum", "runs")
    if runs is None:
        return []
    return [f"{len(runs)} configurations (scheduler x workload x Q x sessions per CPU), "
            f"{int(runs['repeats'].max()) if 'repeats' in runs else 1} repeat(s) each; mean session times in "
            f"{results.as_posix()}/tables/quantum/workload1.csv and workload2.csv"]


def headline_fifo_cache(results: Path) -> list[str]:
    lines = []
    table = _read(results, "fifo_cache", "throughput")
    if table is not None:
        rows = table[(table["fraction"] - 0.1).abs() < 1e-9]
        for terminals, group in rows.groupby("terminals"):
            by = group.set_index("cache_policy")
            lines.append(f"10% memory, {terminals} terminal(s): " + ", ".join(
                f"{p} {_fmt(by.at[p, 'nopm_median'])} NOPM, hit ratio {_fmt(100 * by.at[p, 'hit_ratio'], 1, '%')}"
                for p in by.index))
    scale = _read(results, "fifo_cache", "scale")
    if scale is not None:
        rows = scale[((scale["fraction"] - 0.1).abs() < 1e-9) & (scale["cache_policy"] == "soqol")]
        if not rows.empty:
            lines.append("soqol hit ratio at 10% of the database's pages: " + ", ".join(
                f"{w} warehouse(s) {_fmt(100 * r, 1, '%')}" for w, r in zip(rows["warehouses"], rows["hit_ratio"])))
    return lines


def no_headline(results: Path) -> list[str]:
    return []


# One function per study, by its name (a study without one: its counts alone).
HEADLINES = {name: globals().get(f"headline_{name}", no_headline) for name in STUDIES}


def foreign_cpu(results: Path) -> list[float]:
    """The CPU other processes used during the timed cells (cores, steal included), as the
    foreign-load gate measured it (dbrepro.host_load): each cell's where a table keeps cells, each
    group's most where it keeps groups. Not the load average, which counts the run's own threads."""
    found = []
    for path in (results / "tables").glob("*/*.csv"):
        try:
            frame = pd.read_csv(path, nrows=5000)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
            continue
        for column in ("foreign_cores", "foreign_cores_max"):
            if column in frame:
                found += [float(v) for v in pd.to_numeric(frame[column], errors="coerce").dropna()]
                break
    return found


def machine(results: Path | None = None) -> dict:
    """The run's machine: its kind and fingerprint (results/<run>/machine.json, dbrepro.machine)
    where the run took one, this machine's identity otherwise; and the commit."""
    from dbrepro import machine as fingerprints, provenance

    host, git = provenance.host_info(), provenance.git_info()
    record = results / "machine.json" if results is not None else None
    if record is not None and record.is_file():
        found = json.loads(record.read_text(encoding="utf-8"))
    else:
        ident = fingerprints.identity()
        found = {"kind": fingerprints.kind_of(ident), "identity": ident}
    return {"cpu": host["cpu_model"], "cpus": host["usable_cpus"], "kernel": host["kernel"],
            "hostname": host["hostname"], "commit": git["commit"], "dirty": git.get("dirty"),
            "kind": found["kind"], "fingerprint": found, "record": str(record) if record is not None and
            record.is_file() else ""}


def kind_lines(about: dict) -> list[str]:
    """The summary's first lines: the run's kind of machine, what it measured, what a verdict speaks for."""
    found = about.get("fingerprint") or {}
    ident = found.get("identity") or {}
    start, end = found.get("start") or {}, found.get("end") or {}

    def loop(prims):
        return f"{prims['fixed_loop_s']:.3f} s" if isinstance(prims.get("fixed_loop_s"), (int, float)) else "n/a"

    measured = (f"; the fixed loop {loop(start)} at the start, {loop(end)} at the end "
                f"(`{about['record']}`)" if about.get("record") else "; no fingerprint recorded by this run")
    hypervisor = ident.get("hypervisor") or "n/a"
    return [f"- kind of machine: **{about['kind']}** ({about['cpu']}, {about['cpus']} usable CPU(s), hypervisor "
            f"{hypervisor}, Linux {about['kernel']}){measured}",
            "- Each verdict speaks for this kind of machine: a timed interval is widened by the spread between "
            "committed runs of this kind and the study's current method, or, where fewer than two exist, by the "
            "largest such same-kind spread (each row's `between_run_source` says which), never by the spread "
            "across kinds."]


CRITERIA_FIRST = ("b25818b", "2026-11-25")  # the criteria files' first commit (workflows/claims/HISTORY.md)
FIRST_RESULTS = ("fd25966", "2026-11-21")  # the first claims computed, thresholds then in the scripts


def criteria_changes(repo: Path | None = None) -> list[str]:
    """Every commit that changed workflows/claims/ since the criteria were first written, newest
    first, from git where the run's tree is a checkout (else one line saying it is not)."""
    import subprocess

    repo = repo or vd.REPO
    try:
        done = subprocess.run(["git", "-C", str(repo), "log", "--no-merges", "--format=%h %ad %s", "--date=short",
                               f"{CRITERIA_FIRST[0]}..HEAD", "--", "workflows/claims/"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as error:
        return [f"(the criteria's history could not be read from git: {error})"]
    if done.returncode != 0:
        return [f"(the criteria's history could not be read from git: {done.stderr.strip()[:120]})"]
    return [shortened(line) for line in done.stdout.splitlines()]


def shortened(line: str, width: int = 160) -> str:
    """`line` cut to at most `width` characters at a word's end, '...' saying it was cut."""
    if len(line) <= width:
        return line
    cut = line[:width - 4]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + " ..."


def _foreign_load_line(results: Path, study: str) -> str:
    path = results / "tables" / study / "claims.md"
    if not path.is_file():
        return ""
    for line in path.read_text(encoding="utf-8").splitlines():
        for start in ("Foreign load", "The runs record no foreign load"):
            if start in line:
                return line[line.index(start):].split(". ")[0].rstrip(".") + "."
    return ""


def spread_lines(results: Path) -> dict[str, str]:
    """Per study, how many of its paired timed cells meet the spread target
    (within-repeat ratio CV under run_spread.TARGET_CV_PCT) and the worst one;
    cells are measured only where a run has two repeats or more."""
    try:
        table = run_spread.spread(results)
    except (OSError, KeyError, ValueError) as error:  # a study's records unreadable: say so, never guess
        return {study: f"cell spread not measured ({error})" for study in STUDIES}
    lines = {}
    for study, cells in (table.groupby("study") if len(table) else ()):
        worst = cells.loc[cells["ratio_cv_pct"].idxmax()]
        lines[study] = (f"cell spread: {int(cells['under_target'].sum())} of {len(cells)} paired cells have a "
                        f"within-repeat ratio CV under {run_spread.TARGET_CV_PCT:g}% (the largest "
                        f"{worst['ratio_cv_pct']:.1f}%: {worst['cell']}, {worst['arm']} / {worst['reference']}, "
                        f"{worst['cell_length']}); `.venv/bin/python workflows/scripts/run_spread.py {results.as_posix()}` lists every cell")
    return lines


# What each study's own counters say of a finding that depends on the machine (this run's tables).
def _most_threads_p10_special(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of E2's headline cell: the most threads, P=10 (or the least P), special points."""
    rows = rows[rows["threads"] == rows["threads"].max()]
    if "points" in rows:
        rows = rows[rows["points"] == (10 if 10 in set(rows["points"]) else rows["points"].min())]
    if "distribution" in rows and "special" in set(rows["distribution"]):
        rows = rows[rows["distribution"] == "special"]
    return rows


def _key_cache_timed_costs(results: Path, context_switch_ns: float | None) -> str:
    """E2: what the real server spent per query in this run's timed arms at its most threads
    (mariadb_throughput.csv: server CPU and context switches read from /proc around each timed
    window, performance_schema off), and what the switches the segments saved are worth at this
    machine's measured context switch (machine.json)."""
    table = _read(results, "key_cache", "mariadb_throughput")
    if table is None or table.empty or "server_cpu_us_per_query" not in table:
        return ""
    rows = _most_threads_p10_special(table).sort_values("segments")
    if rows.empty:
        return ""
    cells = "; ".join(f"{int(r.segments)} segments: {_fmt(r.qps_median)} q/s, server CPU "
                      f"{_fmt(r.server_cpu_us_per_query, 1)} us, {_fmt(r.voluntary_switches_per_query, 2)} voluntary "
                      f"and {_fmt(r.involuntary_switches_per_query, 2)} involuntary switches per query"
                      for r in rows.itertuples())
    text = (f"this run's timed arms at {int(rows['threads'].iloc[0])} threads (`{results.as_posix()}/tables/"
            f"key_cache/mariadb_throughput.csv`, medians over the repeats, performance_schema off): {cells}")
    off, most = rows.iloc[0], rows.iloc[-1]
    if context_switch_ns and int(off["segments"]) == 0 and len(rows) > 1:
        switches = float(most["voluntary_switches_per_query"] - off["voluntary_switches_per_query"])
        cpu = float(most["server_cpu_us_per_query"] - off["server_cpu_us_per_query"])
        text += (f"; {int(most['segments'])} segments against off: voluntary switches {switches:+.2f} per query, "
                 f"{switches * context_switch_ns / 1000:+.1f} us at this machine's context switch "
                 f"({context_switch_ns:,.0f} ns), server CPU {cpu:+.1f} us per query")
    return text


def _key_cache_account(results: Path, about: dict | None = None) -> str:
    """E2: this run's mutex account per query at its most threads (the untimed instrumented run),
    then its timed arms' costs per query (_key_cache_timed_costs)."""
    timed = _key_cache_timed_costs(results, _primitive(about or {}, "context_switch_ns"))
    account = _read(results, "key_cache", "mutex_account")
    if account is None or account.empty:
        return timed
    rows = _most_threads_p10_special(account[account["source"] == "mariadb"])
    if rows.empty:
        return timed
    cells = "; ".join(f"{int(r.segments)} segments: {_fmt(r.queries_per_second)} q/s, {_fmt(r.waits_per_query, 1)} "
                      f"timed mutex waits (performance_schema's, one per acquisition) and "
                      f"{_fmt(r.wait_us_per_query, 1)} us in them per query, server CPU "
                      f"{_fmt(r.server_cpu_us_per_query, 1)} us per query" for r in rows.sort_values("segments").itertuples())
    account_text = (f"this run's account of the real MariaDB's key cache mutex at {int(rows['threads'].iloc[0])} "
                    f"threads (`{results.as_posix()}/tables/key_cache/mutex_account.csv`, the untimed run with the "
                    f"instruments on): {cells}")
    return f"{account_text}.\n  - {timed}" if timed else account_text


def _openedge_switches(results: Path, about: dict | None = None) -> str:
    """E3: each ladder step's voluntary context switches (the servers' process and the users'
    processes, getrusage around each run) per message on the wire, and what the multi-threaded
    servers' extra wake-ups cost at this machine's measured wake-up across CPUs."""
    ladder = _read(results, "openedge", "ladder")
    if ladder is None or ladder.empty or "voluntary_switches_per_message" not in ladder:
        return ""
    steps = ladder.set_index("name")
    cells = "; ".join(f"{name} {_fmt(row.voluntary_switches_per_message, 2)} ({_fmt(row.process_voluntary_switches)} "
                      f"servers', {_fmt(row.client_processes_voluntary_switches)} users')"
                      for name, row in steps.iterrows())
    text = (f"this run's voluntary context switches per message on the wire by step (`{results.as_posix()}/tables/"
            f"openedge/ladder.csv`, medians over the repeats; the servers' and the users' processes' switches per "
            f"run in brackets): {cells}")
    # A switch costs a CPU its context switch; a wake-up across CPUs is latency the waker waits.
    switch, wakeup = _primitive(about or {}, "context_switch_ns"), _primitive(about or {}, "cross_cpu_wakeup_ns")
    if switch and wakeup and {"bht", "mtdbs"} <= set(steps.index):
        extra = float(steps.at["mtdbs", "process_voluntary_switches"] - steps.at["bht", "process_voluntary_switches"])
        saved = float(steps.at["bht", "seconds_median"] - steps.at["mtdbs", "seconds_median"])
        text += (f"; mtdbs against bht: the servers' switches {extra:+,.0f} per run, "
                 f"{extra * switch / 1e6:+.1f} ms of CPU at this machine's context switch ({switch:,.0f} ns) "
                 f"and {extra * wakeup / 1e6:+.1f} ms of latency at its wake-up across CPUs "
                 f"({wakeup / 1000:,.1f} us), beside the step's {saved * 1000:,.1f} ms less per run")
    return text


STUDY_COUNTERS = {"key_cache": _key_cache_account, "openedge": _openedge_switches}


def _primitive(about: dict, name: str) -> float | None:
    """One primitive cost of this run's machine: the median of its fingerprint's start and end
    measurements, as reference/machines.csv takes a kind's (dbrepro.verdicts.kinds.primitive)."""
    from dbrepro.verdicts import kinds as kinds_of

    value = kinds_of.primitive(kinds_of.measurements(about.get("fingerprint") or {}), name)
    return None if math.isnan(value) else value


PRIMITIVE_WORDS = (("fixed_loop_s", "fixed loop", "{:.3f} s"), ("cross_cpu_wakeup_ns", "wake-up across CPUs", "{:,.0f} ns"),
                   ("context_switch_ns", "context switch", "{:,.0f} ns"),
                   ("mutex_4_threads_ns_per_acquisition", "adaptive mutex at 4 threads", "{:,.0f} ns per acquisition"),
                   ("mutex_64_threads_ns_per_acquisition", "at 64 threads", "{:,.0f} ns per acquisition"),
                   ("mutex_64_threads_contended_share", "contended at 64", "{:.2%}"),
                   ("memory_latency_ns", "memory latency", "{:,.0f} ns"), ("fdatasync_us_median", "fdatasync", "{:,.0f} us"))


def _primitives_text(machine: pd.Series | None) -> str:
    if machine is None or not int(machine.get("fingerprints", 0) or 0):
        return "no fingerprint recorded (runs before issue 52)"
    parts = [f"{words} {fmt.format(float(machine[column]))}" for column, words, fmt in PRIMITIVE_WORDS
             if column in machine and pd.notna(machine[column])]
    return ", ".join(parts) + f" (median of {int(machine['fingerprints'])} measurements)"


def machine_dependent_lines(results: Path, about: dict, repo: Path | None = None) -> list[str]:
    """The section on findings that depend on the machine: for each finding whose kinds' estimates
    from the committed runs are apart (reference/machine_dependent.csv, `dbrepro verdicts kinds`),
    each kind's effect and verdicts, what differs between the kinds (their fingerprints' primitive
    costs, reference/machines.csv) and the study's own counters in this run."""
    repo = repo or vd.REPO
    table_path, machines_path = repo / "reference" / "machine_dependent.csv", repo / "reference" / "machines.csv"
    lines = ["", "## Findings that depend on the machine", ""]
    if not table_path.is_file():
        return lines + ["No per-kind estimates are committed yet (`dbrepro verdicts kinds --out "
                        "reference/machine_dependent.csv`)."]
    from dbrepro.verdicts import kinds as kinds_of

    table = pd.read_csv(table_path, keep_default_na=False)
    machines = pd.read_csv(machines_path).set_index("kind") if machines_path.is_file() else pd.DataFrame()
    apart = kinds_of.dependent(table)
    seen = sorted(set(table["kind"]))
    lines.append(f"From the committed runs (`reference/machine_dependent.csv`, `reference/machines.csv`): "
                 f"{len(seen)} kind(s) with two runs or more of a finding's current method "
                 f"({'; '.join(seen) or 'none'}); this run's kind is {about['kind']}"
                 + (", not yet among them." if about["kind"] not in seen else "."))
    if apart.empty:
        return lines + ["", "No finding's estimates are apart between two kinds."]
    # Each kind's primitives once, then each finding's estimates by kind, then each study's counters
    # once after its findings.
    kinds_apart = list(dict.fromkeys(apart["kind"]))
    lines.append("")
    lines.append("What each kind's fingerprint measured (`reference/machines.csv`):")
    for kind in kinds_apart:
        machine_row = machines.loc[kind] if kind in machines.index else None
        lines.append(f"- {kind}: {_primitives_text(machine_row)}.")
    lines.append("")
    for study, findings in apart.groupby("study", sort=False):
        label = studies.get(study).label
        for claim, rows in findings.groupby("id", sort=False):
            per_kind = "; ".join(
                f"{r.kind}: {r.effect:g} [{r.low:g}, {r.high:g}] over {r.runs} runs ({r.yes} yes, {r.no} no, "
                f"{r.inconclusive} inconclusive as run)" for r in rows.itertuples())
            lines.append(f"- {label} `{claim}`: {per_kind}.")
        counters = STUDY_COUNTERS.get(study, lambda *_: "")(results, about)
        if counters:
            lines.append(f"  - {counters}.")
    unmeasured = [kind for kind in kinds_apart if machines.empty or kind not in machines.index
                  or not int(machines.loc[kind].get("fingerprints", 0) or 0)]
    if unmeasured:
        lines += ["", f"Not yet explained by a measured difference: {', '.join(unmeasured)} recorded no "
                  "fingerprint. A run of each such kind must commit its `machine.json` (the primitives) and "
                  "the study's counters (E2: `tables/key_cache/mutex_account.csv` and "
                  "`mariadb_throughput.csv`) so the kinds' costs can be set side by side."]
    return lines


def _at(findings: pd.DataFrame, setting: str) -> str:
    """'yes/judged' at one setting: vd.tally's count, the one every place prints."""
    return vd.share_text(vd.tally(findings), setting)


def summary_markdown(results: Path, profile: str, claims_paths: dict[str, Path], about: dict | None = None,
                     variation: str = "") -> str:
    """The summary: the headline, the kind of machine and the per-study table first; what produced
    the run; each study's numbers; the findings that depend on the machine; the criteria's history
    last. Every count is vd.tally's (judged findings are the denominator)."""
    about = about or machine(results)
    foreign = foreign_cpu(results)
    table = ["| study | findings | judged | reproduced | no | inconclusive | not judged | at the original setting "
             "| at a scaled setting | checks (yes / no / inconclusive) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    total_findings, total_checks = [], []
    sections = []
    spreads = spread_lines(results)

    def table_row(name, findings, checks):
        f, c = vd.tally(findings), vd.tally(checks)
        return (f"| {name} | {f['total']} | {f['judged']} | {f['yes']} | {f['no']} | {f['inconclusive']} | "
                f"{f[vd.NOT_JUDGED]} | {_at(findings, 'original')} | {_at(findings, 'scaled')} | "
                f"{c['yes']} / {c['no']} / {c['inconclusive']} |")

    for study, title in STUDIES.items():
        path = claims_paths.get(study)
        if path is None or not Path(path).is_file():
            continue
        findings, checks = vd.split_roles(pd.read_csv(path, keep_default_na=False))
        total_findings.append(findings)
        total_checks.append(checks)
        table.append(table_row(study, findings, checks))
        f, c = vd.tally(findings), vd.tally(checks)
        sections += ["", f"## {title}", ""]
        sections += [f"- {line}" for line in HEADLINES[study](results)]
        sections += [f"- findings: {f['yes']} of {f['judged']} judged reproduced, {f['no']} no, {f['inconclusive']} "
                     f"inconclusive, {f[vd.NOT_JUDGED]} not judged by this profile; checks: {c['yes']} yes, {c['no']} no, "
                     f"{c['inconclusive']} inconclusive ({results.as_posix()}/tables/{study}/findings.csv, checks.csv, "
                     "claims.md)"]
        load = _foreign_load_line(results, study)
        if load:
            sections.append(f"- {load}")
        if study in spreads:
            sections.append(f"- {spreads[study]}")
    top = ["# dbrepro: summary of this run", ""]
    if total_findings:
        findings, checks = pd.concat(total_findings), pd.concat(total_checks)
        table.append(table_row("all", findings, checks))
        top += [headline(findings, checks), ""]
    top += [*kind_lines(about), "", *table, ""]
    produced = [
        f"- profile: `{profile}`" + (f", varied: `{variation}` (this run's settings differ from the profile's, "
                                     "so its verdicts are not the profile's; where the profile had the "
                                     "original's setting, this run does not)" if variation else ""),
        f"- commit: `{about['commit']}`" + (" (with uncommitted changes)" if about.get("dirty") else ""),
        "- foreign CPU during the timed cells (what other processes used, steal included, as the foreign-load "
        "gate measures it, `workflows/claims/foreign_load.yaml`): "
        + (f"median {pd.Series(foreign).median():.3f} cores, max {max(foreign):.3f} over {len(foreign)} cells or "
           "groups" if foreign else "not recorded"),
        f"- written {datetime.now(timezone.utc).isoformat(timespec='seconds')} by the workflow "
        "(rule summary, workflows/scripts/summary.py)",
        "",
        "The headline counts the original studies' findings only, each judged once, at the original's setting "
        "or at a stated smaller one (`scaled`: the original's is beyond this machine, so `no` there is not a "
        "refutation of the original); our own hypotheses and mechanism checks are beside it, never added in; a "
        "finding this profile does not judge is counted apart, never in a denominator. `yes`: the rerun interval "
        "(the repeats' paired within-run CI widened by the spread between runs of this kind of machine) or the "
        "exact count lies inside the criterion; `no`: outside; `inconclusive`: the interval straddles it, or "
        "there were fewer repeats than the criterion needs. Where the profile takes extra looks at findings "
        "still open (`workflows/claims/sequential.yaml`), every look's interval is a 100 (1 - alpha_per_look)% "
        "one, the 5% split over the looks, and each claims.csv row says its look (`looks`, `alpha_per_look`).",
    ]
    history = [
        "", "## When the criteria were written", "",
        f"The first claims were computed at {FIRST_RESULTS[0]} ({FIRST_RESULTS[1]}) with thresholds in the "
        f"scripts; the criteria files were first written at {CRITERIA_FIRST[0]} ({CRITERIA_FIRST[1]}), after those "
        "results, by people who had seen them. Each later change is a commit of its own, listed here, newest first; "
        "`workflows/claims/HISTORY.md` says which were made before the data they judge and what each flipped (E3's "
        "optimistic access was moved to a scan after it failed on the join, 8f44b19; it is judged on the join "
        "again).", "",
        *[f"- {line}" for line in criteria_changes()],
    ]
    return "\n".join(top + produced + sections + machine_dependent_lines(results, about) + history) + "\n"


def headline(findings: pd.DataFrame, checks: pd.DataFrame) -> str:
    """The run's one line: the originals' judged findings reproduced, those this profile does not
    judge counted apart (docs/verdicts.md, "Not judged here"); or, where the run judged none yes
    or no (a profile too small to judge), that it judged none and why."""
    f, c = vd.counts(findings), vd.counts(checks)
    judged = vd.judged(findings)
    beside = (f"our {len(checks)} checks beside: {c['yes']} yes, {c['no']} no, "
              f"{c['inconclusive']} inconclusive.")
    apart = (f"; {f[vd.NOT_JUDGED]} of {len(findings)} not judged by this profile (docs/verdicts.md, "
             f"\"Not judged here\")" if f[vd.NOT_JUDGED] else "")
    if len(findings) and f["yes"] + f["no"] == 0:
        small = int(judged["reason"].map(vd.too_small_to_judge).sum()) if "reason" in judged else 0
        parts = []
        if f[vd.NOT_JUDGED]:
            parts.append(f"{f[vd.NOT_JUDGED]} not judged by this profile (it plans fewer repeats or cells than "
                         "their criteria need; each row names the profile that judges it)")
        if small:
            parts.append(f"{small} inconclusive because the run has fewer repeats or seeds than the criterion needs")
        rest = f["inconclusive"] - small
        if rest:
            parts.append(f"{rest} inconclusive for the reasons each study's claims.md gives")
        return (f"**This run judged none of the originals' {len(findings)} findings**: {'; '.join(parts)}. "
                "It shows that the workflow runs, not whether the findings hold; " + beside)
    return (f"**{f['yes']} of {len(judged)} judged findings of the originals reproduced** ({f['no']} no, "
            f"{f['inconclusive']} inconclusive; at the original setting {_at(judged, 'original')}, "
            f"at a scaled one {_at(judged, 'scaled')}){apart}; " + beside)


def markdown_to_html(text: str) -> str:
    """The summary as a standalone HTML page, rendered by Python-Markdown (lists, tables, emphasis
    and code as Markdown means them)."""
    import markdown

    body = markdown.markdown(text, extensions=["tables"], output_format="html")
    return ("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>dbrepro summary</title></head><body>\n"
            + body + "\n</body></html>\n")


def main(results_dir, profile, out_md, out_html, claims_paths: dict[str, str] | None = None,
         variation: str = "") -> str:
    results = Path(results_dir)
    paths = {study: Path(p) for study, p in (claims_paths or {}).items()} or {
        study: results / "tables" / study / "claims.csv" for study in STUDIES}
    text = summary_markdown(results, profile, paths, variation=variation)
    Path(out_md).write_text(text, encoding="utf-8")
    Path(out_html).write_text(markdown_to_html(text), encoding="utf-8")
    return text


if "snakemake" in globals():
    with open(snakemake.log[0], "w") as log:  # noqa: F821 (defined by Snakemake)
        sys.stderr = log
        inputs = snakemake.input  # noqa: F821
        main(str(Path(snakemake.output.md).parent), snakemake.config.get("profile", ""),  # noqa: F821
             snakemake.output.md, snakemake.output.html,  # noqa: F821
             {study: getattr(inputs, study) for study in STUDIES if hasattr(inputs, study)},
             snakemake.config.get("variation", ""))  # noqa: F821
elif __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    print(main(*sys.argv[1:5]))
