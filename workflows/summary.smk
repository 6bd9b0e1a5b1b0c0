# The run's summary: results/summary.md and .html (the report's first page).
# Per study: claims yes / no / inconclusive and the headline numbers, with the
# machine, its load average, the profile and the commit; every number read from
# the tables this run wrote. Included after every study, so STUDY_TARGETS is
# complete: the summary waits for all of them.

SUMMARY_STUDIES = [study.name for study in STUDIES if study.judged]  # dbrepro.studies
SUMMARY_INPUTS = list(STUDY_TARGETS)
# The machine's fingerprint at the end waits for every study's results (workflows/machine.smk).
MACHINE_END_AFTER = list(STUDY_TARGETS)


rule summary:
    """Claims per study and the headline numbers, with machine, load average, profile and commit."""
    input:
        SUMMARY_INPUTS,
        **{study: table_path(study, "claims") for study in SUMMARY_STUDIES},
        machine=MACHINE_RECORD,
    output:
        md=f"{RESULTS}/summary.md",
        html=report(
            f"{RESULTS}/summary.html",
            caption=repo_file("workflows", "report", "summary.rst"),
            category=REPORT_SUMMARY_CATEGORY,
        ),
    log:
        log_path("summary", "summary"),
    params:
        # For the report's caption (report/summary.rst): the figures this run leaves out.
        figures_left_out=figures_left_out_text(),
    localrule: True
    script:
        "scripts/summary.py"


STUDY_TARGETS.extend([f"{RESULTS}/summary.md", f"{RESULTS}/summary.html"])
