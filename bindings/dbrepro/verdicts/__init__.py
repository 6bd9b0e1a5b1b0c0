"""Verdicts: what this project produces. Each study's claims judged against
criteria written before the data, one outcome each: `yes`, `no`,
`inconclusive` (or `not judged` where the profile did not run for it).

A chain with no way back, each module reading only those before it:

    context   what the run can judge (profile, planned repeats, looks, machine kind): frozen, passed in
    criteria  workflows/claims/<study>.yaml, the originals' numbers, between-run estimates
    stats     effect scales, effects, samples paired by repeat, the bootstrap interval
    outcome   a quantity judged against its band (counts exactly, timed effects by interval)
    judge     rows, seeds, rerun widening, looks: `judge_all`, the step that makes verdicts final
    tables    claims.csv, findings.csv, checks.csv, claims.md and the counts: writes, never judges

Every study's claims script takes the same three steps:

    context = verdicts.Context.from_params(snakemake.params)    # what this run can judge
    results = claims(tables, criteria, context)                 # 1. the quantities, each evaluated
    judged = verdicts.judge_all(results, criteria, context)     # 2. made final
    verdicts.write_claims(judged, criteria, csv, md, context)   # 3. written

Beside the chain: `compare` (two runs' verdicts side by side), `estimate`
(the between-run spread from committed runs: `dbrepro verdicts
estimate-reruns`) and `rejudge` (committed runs under today's criteria:
`dbrepro verdicts rejudge`).
"""
from __future__ import annotations

from .context import CONFIDENCE, DEFAULT, Context, level_text
from .criteria import (BETWEEN_RUNS_FILE, CRITERIA_DIR, EFFECT_SCALES, REPO, ROLES, SCALES, SETTINGS, Criteria,
                       Criterion, band_text, criteria_path, criterion_digest, effect_scale, load_criteria,
                       resolve_setting_note, resolve_theirs)
from .judge import (ClaimResult, across_seeds, count_result, judge_all, judge_on_seeds, keep_decided, row_id,
                    seeds_of, widen_for_reruns)
from .outcome import (NOT_JUDGED, OUTCOMES, TOO_FEW_REPEATS, TOO_FEW_SEEDS, VERDICTS, Outcome, combine_counts, evaluate_cells, evaluate_count,
                      evaluate_medians, evaluate_statistic, far_beyond, inconclusive, interval, judge_interval,
                      missing_columns, not_judged, number, precision_note, too_small_to_judge)
from .stats import Samples, align, bootstrap_interval, by_repeat, from_scale, median_effect, to_scale, z_of
from .tables import (CLAIM_COLUMNS, ROLE_FILES, claims_frame, claims_markdown, counts, headline, judged,
                     load_account, outcome_record, role_counts, row_of, share_text, split_roles, tally, write_claims,
                     write_outcomes)

__all__ = [name for name in dir() if not name.startswith("_") and name != "annotations"]
