# `snakemake --report report.html`: every figure's PNG goes into the report
# with its caption (workflows/report/<study>/<name>.rst; a rule with a
# {name} wildcard has one Jinja caption, <study>/figure.rst) under its study.
# The paper reads the same captions (workflows/scripts/paper_captions.py).

# The summary comes first (Snakemake lists categories in the order they appear).
REPORT_SUMMARY_CATEGORY = "0 Summary: claims and headline numbers"
REPORT_CATEGORIES = {
    "tpcc": "tpcc: TPC-C baseline",
    "looking_glass": "E1 looking_glass: OLTP through the looking glass",
    "key_cache": "E2 key_cache: segmented key cache",
    "openedge": "E3 openedge: OpenEdge 12 server features",
    "quantum": "E4 quantum: scheduler time quantum",
    "fifo_cache": "E5 fifo_cache: FIFO page cache",
}


def report_caption(study, name):
    """The caption file of figure `name` of `study` (absolute, so any .smk can use it)."""
    return repo_file("workflows", "report", study, f"{name}.rst")


def reported_figure_paths(study, name, caption=None):
    """figure_paths() with the PNG marked for the report, captioned and categorised."""
    paths = figure_paths(study, name)
    paths["png"] = report(
        paths["png"],
        caption=caption or report_caption(study, name),
        category=REPORT_CATEGORIES.get(study, study),
    )
    return paths


# The report's front page.
report: "report/workflow.rst"
