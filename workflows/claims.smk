# One rule judges every study's claims: the inputs its .smk registered
# (register_claims in common.smk), the criteria fixed before the data in
# workflows/claims/<study>.yaml, and its script workflows/scripts/<study>_claims.py.


rule claims:
    """A study's findings against the original's, each with its criterion (claims.md says which)."""
    input:
        unpack(lambda wildcards: {**CLAIMS[wildcards.study]["input"], "criteria": claims_criteria(wildcards.study),
                                  "foreign_load": claims_criteria("foreign_load")}),
    output:
        csv=f"{RESULTS}/tables/{{study}}/claims.csv",
        md=f"{RESULTS}/tables/{{study}}/claims.md",
        # Written beside claims.csv by claims_common.write_claims: the original's findings
        # (the headline counts these) and our own checks.
        # Both in the report, beside the study's figures (the summary is its first page).
        findings=report(
            f"{RESULTS}/tables/{{study}}/findings.csv",
            caption=repo_file("workflows", "report", "findings.rst"),
            category=lambda wildcards: REPORT_CATEGORIES.get(wildcards.study, wildcards.study),
        ),
        checks=report(
            f"{RESULTS}/tables/{{study}}/checks.csv",
            caption=repo_file("workflows", "report", "checks.rst"),
            category=lambda wildcards: REPORT_CATEGORIES.get(wildcards.study, wildcards.study),
        ),
    log:
        f"{RESULTS}/logs/{{study}}/claims.log",
    params:
        settings=lambda wildcards: CLAIMS[wildcards.study]["settings"],
    wildcard_constraints:
        study="|".join(CLAIMS),
    localrule: True
    script:
        "scripts/{wildcards.study}_claims.py"
