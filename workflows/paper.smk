# The paper (paper/): its tables generated from every study's tables, its
# figures the studies' own, built with latexmk.
#
#   snakemake paper            results/paper/paper.pdf (runs every study first)
#
#   results/paper/tables/<study>_<table>.tex   LaTeX of the results tables
#   results/paper/generated/<study>.tex         a study's figures and tables, or
#                                               "not yet produced" placeholders
#   results/paper/generated/produced.tex        what this build contains
#   results/paper/paper.pdf

import glob

PAPER_DIR = f"{RESULTS}/paper"


rule paper:
    """The paper, from every study's tables and figures: `snakemake paper`."""
    input:
        f"{PAPER_DIR}/paper.pdf",
    localrule: True


rule paper_pdf:
    """Generates the paper's tables and study sections from whatever the
    studies produced (a placeholder for what they have not), then latexmk."""
    input:
        # A function: studies included after this file add to STUDY_TARGETS too.
        studies=lambda wildcards: STUDY_TARGETS,
        sources=sorted(glob.glob(repo_file("paper", "**", "*.tex"), recursive=True)),
        contents=repo_file("paper", "contents.yaml"),
        captions=sorted(glob.glob(repo_file("workflows", "report", "**", "*.rst"), recursive=True)),
        code=repo_file("workflows", "scripts", "paper_build.py"),
        helpers=[repo_file("workflows", "scripts", f"paper_{name}.py") for name in ("tables", "captions")],
    output:
        pdf=f"{PAPER_DIR}/paper.pdf",
    log:
        f"{RESULTS}/logs/paper/paper.log",
    params:
        profile=config["profile"],
        # Figures this profile does not produce the data of (register_figure's drawn_when): no placeholder.
        left_out=" ".join(f"--left-out {study}/{name}" for study, figures in FIGURES_LEFT_OUT.items()
                          for name in figures),
    localrule: True
    shell:
        "{PYTHON} {input.code:q} --results {RESULTS:q} --paper {REPO:q}/paper --out {PAPER_DIR}"
        " --profile {params.profile:q} {params.left_out} > {log:q} 2>&1"
