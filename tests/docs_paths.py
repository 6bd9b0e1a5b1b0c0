"""The paths and commands that the README, docs/, ARTIFACT.md and a run's own
summary.md and claims.md print, found and checked (tests/test_docs_paths.py).

A path in backticks is checked where a reader would look for it:

- a repository path (its first part a top-level file or folder of the repository)
  must exist in the repository;
- a run's path (`results/...`: `results/<run>/`, `results/quick/`, `results/latest/`,
  `results/` alone) must exist in a real run folder, the smoke run's, or be an output
  of the quick profile's workflow (a file smoke does not make; the test lists those);
- a fragment (`btree/node.hpp`, `tables/<study>/findings.csv`) is looked for under
  engine/src/ and in the run folder.

Placeholders are expanded: `<study>` over the five studies (and tpcc), `<profile>`
over the profiles, `{a,b}` over its words; any other `<...>` and `*` match any
name. Words that are not paths (options, URLs, instruments such as
`wait/io/file/myisam/dfile`, `/proc`) are left alone.
"""
from __future__ import annotations

import glob
import itertools
import re
from pathlib import Path

from dbrepro import studies

REPO = Path(__file__).resolve().parents[1]
STUDIES = studies.names()  # dbrepro.studies
PROFILES = tuple(sorted(p.stem for p in (REPO / "config").glob("*.yaml")))
DOCS = (REPO / "README.md", REPO / "ARTIFACT.md", *sorted((REPO / "docs").glob("*.md")))
RUN_PREFIX = re.compile(r"^results/(?:(?:<[^>/]+>|quick|smoke|full|latest|[a-z]+\+<[^>]+>)/)?")
RUN_PARTS = ("tables", "figures", "raw", "logs", "settings", "summary.md", "summary.html", "report.html", "paper",
             "variation.yaml", "tmp", "claims.md")
# Paths a document names that are not ours to check, each with why.
NOT_OURS = {
    "tests/db/select_random_points.lua": "sysbench 0.5's own file, named as the article's benchmark",
    "sched/base_slice_ns": "the kernel's debugfs knob (/sys/kernel/debug/sched/base_slice_ns)",
    "sysbench/run-sysbench.sh": "MariaDB's own benchmark runner (the mariadb.org-tools repository), which the article used",
}
# A run's files that a later command writes, not the workflow: the command that writes them.
WRITTEN_LATER = {"paper": "make paper", "report.html": "make report"}
# A run's working files that a job makes inside its folder, not a rule's output: the file that names them.
WORKING_FILES = {"tmp/key_cache/mariadb/datadir": "workflows/key_cache.smk",
                 "tmp/foreign_load_streak": "workflows/common.smk"}
# Folders `make repro` makes around a run (the Makefile makes them): the run's own, the last run's
# link and a variation's folder and its config.
MADE_BY_MAKE = re.compile(r"^results/(?:latest|<profile>\+<settings>|[a-z]+\+<[^>]+>)/?$|(?:^|/)variation\.yaml$"
                          r"|(?:^|/)logs/workflow-<time>\.log$")
RUN_FOLDER = re.compile(r"^results/(?:<run>|<profile>|quick|smoke|full|latest)/?$")
BACKTICKS = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"```(?:sh|bash|console)?\n(.*?)```", re.S)


def top_level() -> set[str]:
    return {p.name for p in REPO.iterdir() if not p.name.startswith(".git")} | {".ci"}


def spans(text: str) -> list[str]:
    """Every backticked span outside fenced blocks, and every line of a fenced shell block."""
    fenced = [line.strip() for block in FENCE.findall(text) for line in block.splitlines() if line.strip()]
    return BACKTICKS.findall(FENCE.sub("", text)) + fenced


def is_path(word: str) -> bool:
    if " " in word or "/" not in word or "://" in word or word.startswith(("-", "/", "$", "~")):
        return False
    if re.search(r"[=:;|'\"()\[\]]", word) or "..." in word:
        return False
    first = word.split("/")[0]
    return bool(first) and (first in top_level() or first == "results" or first in RUN_PARTS or first.startswith("<")
                            or (REPO / "engine" / "src" / first).is_dir() or first in ("src",))


def expansions(word: str) -> list[str]:
    """The word with its placeholders expanded to globs."""
    options = [word]
    for pattern, values in (("<study>", STUDIES), ("<profile>", PROFILES)):
        options = [o.replace(pattern, v) for o in options for v in values] if any(pattern in o for o in options) \
            else options
    braced = []
    for option in options:
        match = re.search(r"\{([^{}]+)\}", option)
        if match:
            braced += [option[:match.start()] + part + option[match.end():] for part in match.group(1).split(",")]
        else:
            braced.append(option)
    return [re.sub(r"<[^>]+>", "*", option) for option in braced]


def exists_under(root: Path, word: str) -> bool:
    """Every expansion of `word` matches something under root (a study placeholder: at least one study)."""
    found = [bool(glob.glob(str(root / e.rstrip("/")))) for e in expansions(word)]
    return any(found) if "<study>" in word or "<profile>" in word else all(found)


def doc_paths(paths=DOCS) -> list[tuple[str, str]]:
    """(document, path) for every path a document prints."""
    out = []
    for doc in paths:
        text = Path(doc).read_text(encoding="utf-8")
        for span in spans(text):
            for word in span.split():
                word = word.strip(".,;:")
                if is_path(word):
                    out.append((Path(doc).name, word))
    return sorted(set(out))


def run_relative(word: str) -> str | None:
    """The part of a run's path below the run folder, or None when the word is not a run's path."""
    if word.startswith("results/"):
        rest = RUN_PREFIX.sub("", word)
        return rest if rest != word else None
    if word.split("/")[0] in RUN_PARTS or word.split("/")[0] in STUDIES:
        return word  # tpcc/throughput.csv: a table or figure named below its folder
    return None


def ignored(word: str) -> bool:
    """A path the repository's .gitignore leaves out (build/, env/cache/, .venv/): made by a command."""
    first = word.split("/")[0]
    return first in ("build", ".venv") or word.startswith("env/cache")


def check_path(word: str, run: Path, quick_outputs: set[str] = frozenset()) -> str:
    """'' when the path resolves, else why not."""
    if word in NOT_OURS or ignored(word) or MADE_BY_MAKE.search(word) or RUN_FOLDER.match(word):
        return ""
    if re.match(r"^results/(?:" + "|".join(map(re.escape, RUN_PARTS)) + r")(?:/|$)", word):
        return (f"{word}: a run's files are in its own folder, results/<run>/ (make repro: results/quick/), "
                "not in results/")
    rest = run_relative(word)
    if rest is not None and not word.startswith("results/") and exists_under(REPO, word):
        return ""  # paper/, figures/: a folder of the repository as well as of a run
    if rest is not None and rest.split("/")[0] in WRITTEN_LATER:
        return ""  # checked against its command by test_docs_paths
    if rest is not None and rest.split("/")[0] in STUDIES:
        return "" if any(exists_under(run / part, rest) for part in ("tables", "figures", "raw")) else \
            f"{word}: in no study folder of the run's tables/, figures/ or raw/ ({run})"
    if rest is not None:
        if rest in ("", "/") or exists_under(run, rest) or exists_under(run, rest.rstrip("/") + ".*"):
            return ""
        if rest.rstrip("/") in WORKING_FILES:
            return ""  # test_docs_paths checks the file that makes it names it
        candidates = [e.rstrip("/") for e in expansions(rest)]
        if candidates and all(any(re.fullmatch(_glob_re(c), o) or re.fullmatch(_glob_re(c) + r"\..*", o)
                                  or o.startswith(c.rstrip("*") + "/") for o in quick_outputs) for c in candidates):
            return ""
        return f"{word}: not in the smoke run ({run}) and not an output of the quick profile"
    if exists_under(REPO, word) or exists_under(REPO / "engine" / "src", word) or \
            exists_under(REPO / "engine", word):
        return ""
    if any(exists_under(run / part, word) for part in ("tables", "figures", "raw")):
        return ""  # tpcc/throughput.csv: a table or figure named below its folder
    return f"{word}: no such file or folder in the repository"


def _glob_re(pattern: str) -> str:
    return "".join(".*" if ch == "*" else re.escape(ch) for ch in pattern)


def commands(paths=DOCS) -> list[tuple[str, str]]:
    """(document, command line) for each `dbrepro ...`, `make ...` or `python benchmarks/...` a document prints."""
    out = []
    for doc in paths:
        for span in spans(Path(doc).read_text(encoding="utf-8")):
            line = re.sub(r"^\.venv/bin/", "", span.strip().lstrip("$ ").strip())
            if re.match(r"^(dbrepro|make|python3? benchmarks/|\.venv/bin/python benchmarks/)\b", line):
                out.append((Path(doc).name, line))
    return sorted(set(out))


def flatten(items):
    return list(itertools.chain.from_iterable(items))
