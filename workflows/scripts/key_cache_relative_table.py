"""The article's table: throughput with N segments relative to segments off,
(N/off - 1) in percent, one row per (cache size, P, segments, source) and one
column per thread count; the article's pitbull and perro rows beside ours at
its cache size (index_fraction 1: the whole index fits), ours alone at the
smaller caches (the article ran none).

Run by Snakemake (rule key_cache_relative_table), or by hand:
    python workflows/scripts/key_cache_relative_table.py throughput.csv paper.yaml relative.csv
"""

import argparse

import pandas as pd

import key_cache_common as common


def relative_table(throughput: pd.DataFrame, paper: dict) -> pd.DataFrame:
    ours = common.relative_gains(common.with_fraction(throughput)).assign(source="ours")
    theirs = common.paper_relative(paper).rename(columns={"machine": "source"})
    long = pd.concat([ours, theirs], ignore_index=True)
    wide = long.pivot_table(index=["distribution", "index_fraction", "points", "segments", "source"],
                            columns="threads", values="percent")
    wide.columns = [str(threads) for threads in wide.columns]
    order = {"ours": 0, **{machine: i + 1 for i, machine in enumerate(common.MACHINES)}}
    wide = wide.reset_index()
    wide["_order"] = wide["source"].map(order)
    wide = wide.sort_values(["distribution", "index_fraction", "points", "segments", "_order"],
                            ascending=[True, False, True, True, True])
    wide = wide.drop(columns="_order")
    return wide.reset_index(drop=True)


def main(throughput_path, paper_path, out_path) -> pd.DataFrame:
    table = relative_table(pd.read_csv(throughput_path), common.load_paper(paper_path))
    # Percentages to 0.1; the cache size as it was given (0.25 is not 0.2).
    table.assign(index_fraction=table["index_fraction"].map("{:g}".format)).to_csv(
        out_path, index=False, float_format="%.1f")
    return table


if "snakemake" in globals():
    inputs = snakemake.input  # noqa: F821
    common.run_logged(snakemake.log[0], main, inputs.throughput, inputs.paper, snakemake.output[0])  # noqa: F821
elif __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("throughput", help="results/tables/key_cache/throughput.csv")
    parser.add_argument("paper", help="workflows/data/key_cache_paper.yaml")
    parser.add_argument("out", help="CSV to write")
    args = parser.parse_args()
    print(main(args.throughput, args.paper, args.out).to_string(index=False))
