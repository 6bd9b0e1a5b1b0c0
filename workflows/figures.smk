# One rule draws every study's figures: the tables each .smk registered with
# register_figure (common.smk), plotted by its script in figures/ with the
# shared style; the caption is workflows/report/<study>/<name>.rst, the one
# the paper prints too.


def figure_inputs(wildcards):
    figure = FIGURES[wildcards.study][wildcards.name]
    return {
        "tables": figure["tables"],
        # Listed so that editing the figure's code or the style re-makes it.
        "code": repo_file("figures", figure["script"]),
        "style": repo_file("figures", "style.py"),
        "mplstyle": repo_file("figures", "dbrepro.mplstyle"),
    }


def figure_argv(wildcards, input):
    words = FIGURES[wildcards.study][wildcards.name]["args"] + list(input.tables)
    return " ".join(shlex.quote(word) for word in words)


rule figure:
    """A study's figure from its tables (register_figure in the study's .smk)."""
    input:
        unpack(figure_inputs),
    output:
        png=report(
            f"{RESULTS}/figures/{{study}}/{{name}}.png",
            caption=repo_file("workflows", "report", "figure.rst"),
            category=lambda wildcards: REPORT_CATEGORIES.get(wildcards.study, wildcards.study),
        ),
        pdf=f"{RESULTS}/figures/{{study}}/{{name}}.pdf",
    log:
        f"{RESULTS}/logs/{{study}}/figure_{{name}}.log",
    params:
        argv=figure_argv,
        caption=lambda wildcards: report_caption_text(wildcards.study, wildcards.name),
    wildcard_constraints:
        study="|".join(FIGURES),
        name="|".join(sorted({name for figures in FIGURES.values() for name in figures})),
    localrule: True
    shell:
        "{PYTHON} {input.code:q} {params.argv} {output.png:q} {output.pdf:q} > {log:q} 2>&1"
