# One rule judges every study's claims: the inputs its .smk registered
# (register_claims in common.smk), the criteria fixed before the data in
# workflows/claims/<study>.yaml, and its script workflows/scripts/<study>_claims.py.


def planned_repeats(profile_config, study):
    """The fewest repeats any timed grid of `study` plans in a profile's config: each
    `repeats` in the study's section (null: the top-level `repeats`)."""
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "repeats":
                    found.append(profile_config["repeats"] if value is None else value)
                else:
                    walk(value)

    walk(profile_config.get(study, {}))
    return min(found) if found else profile_config["repeats"]


def profile_configs():
    """Every profile's config as the workflow reads it: a file of config/ is a run's whole config."""
    import pathlib

    import yaml

    return {path.stem: yaml.safe_load(path.read_text(encoding="utf-8"))
            for path in sorted(pathlib.Path(repo_file("config")).glob("*.yaml"))}


def judging(study):
    """What this run can judge (dbrepro.verdicts.Context.from_judging): the repeats it plans for the
    study's timed grids, and which profiles plan the five a timed criterion needs."""
    enough = [name for name, found in profile_configs().items() if planned_repeats(found, study) >= 5]
    return {"profile": config.get("profile", ""), "planned_repeats": planned_repeats(config, study),
            "judged_by": " or ".join(enough), "machine": MACHINE_START}


def claims_inputs(wildcards):
    """The study's registered inputs but its timed grids' records, its criteria, and where it took
    them, the makeups' and the last look's records (workflows/sequential.smk)."""
    study = wildcards.study
    return {**{name: value for name, value in CLAIMS[study]["input"].items() if not isinstance(value, GridRuns)},
            "criteria": claims_criteria(study), "foreign_load": claims_criteria("foreign_load"),
            "machine": MACHINE_START,  # the run's kind: whose between-run spread widens it
            **sequential_final_inputs(study)}


def claims_grid_inputs(wildcards):
    """Its timed grids' records over the repeats the checkpoints decided: apart, so that the other
    inputs are known (and made) before the checkpoints have run."""
    return {name: value() for name, value in CLAIMS[wildcards.study]["input"].items() if isinstance(value, GridRuns)}


rule claims:
    """A study's findings against the original's, each with its criterion (claims.md says which)."""
    input:
        unpack(claims_inputs),
        unpack(claims_grid_inputs),
    output:
        csv=f"{RESULTS}/tables/{{study}}/claims.csv",
        md=f"{RESULTS}/tables/{{study}}/claims.md",
        # Written beside claims.csv by dbrepro.verdicts.write_claims: the original's findings
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
        judging=lambda wildcards: {**judging(wildcards.study), **sequential_judging(wildcards.study)},
    wildcard_constraints:
        study="|".join(CLAIMS),
    localrule: True
    script:
        "scripts/{wildcards.study}_claims.py"
