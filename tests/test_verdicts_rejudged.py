"""Nothing judged differently by accident: every committed run (reference/runs/*) re-judged with
the current criteria (`dbrepro verdicts rejudge`) gives exactly the claims.csv, findings.csv and
checks.csv whose digests tests/data/rejudged_digests.json holds.

The digests were first written by the code before the verdict package was split out of
workflows/scripts/claims_common.py (issue 53), so the split is shown to judge every committed
row as before. A criteria commit that changes how a row is judged (between-run estimates, a
band) writes them again in that same commit, its effect in workflows/claims/HISTORY.md:

    python tests/test_verdicts_rejudged.py --write
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from dbrepro import studies

REPO = Path(__file__).resolve().parents[1]
DIGESTS = REPO / "tests" / "data" / "rejudged_digests.json"


def rejudged_digests() -> dict[str, str]:
    from dbrepro.verdicts import rejudge

    found = {}
    for run in sorted(p for p in (REPO / "reference" / "runs").iterdir() if p.is_dir()):
        for study, frame in rejudge.rejudged_tables(run).items():
            for name, text in rejudge.table_texts(frame).items():
                found[f"{run.name}/{study}/{name}"] = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return found


def test_every_committed_run_rejudged_gives_the_same_tables():
    expected = json.loads(DIGESTS.read_text(encoding="utf-8"))
    found = rejudged_digests()
    assert sorted(found) == sorted(expected), "the committed runs' tables changed: write the digests again"
    moved = sorted(key for key in expected if found[key] != expected[key])
    assert not moved, (f"{len(moved)} re-judged tables differ, first {moved[:3]}: a change in how rows are "
                       "judged belongs in a criteria commit that writes tests/data/rejudged_digests.json again")


def test_the_digests_cover_every_study_of_the_latest_runs():
    expected = json.loads(DIGESTS.read_text(encoding="utf-8"))
    found = {key.split("/")[1] for key in expected if key.startswith("quick-v/")}
    assert found == set(studies.names(judged=True))


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit(__doc__)
    DIGESTS.write_text(json.dumps(rejudged_digests(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {DIGESTS}")
