# `snakemake --report report.html`: every figure's PNG goes into the report
# with its caption (workflows/report/<study>/<name>.rst, handed to the one
# figure rule's report/figure.rst) under its study.
# The paper reads the same captions (workflows/scripts/paper_captions.py).

# The summary comes first (Snakemake lists categories in the order they appear).
REPORT_SUMMARY_CATEGORY = "0 Summary: claims and headline numbers"
REPORT_CATEGORIES = {study.name: study.heading for study in STUDIES}  # dbrepro.studies


def report_caption_text(study, name):
    """The caption of figure `name` of `study` (workflows/report/<study>/<name>.rst)."""
    with open(repo_file("workflows", "report", study, f"{name}.rst"), encoding="utf-8") as caption:
        return caption.read().strip()


# The report's front page.
report: "report/workflow.rst"
