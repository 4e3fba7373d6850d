#!/usr/bin/env python3
"""The built-in jones2006 experiment end to end at a small scale: the sweep runs
ICS, ICS+B and No Share on the three grids, draws Figs. 4-6 and the fixed
cluster's benefit, and writes reproduction.md with a verdict for every claim.
Checks what must hold at any scale: No Share on FC does not depend on the other
clusters' rates (FC's jobs are its own stream), and at the lowest rate, where
nothing waits, ICS and ICS+B place alike.

usage: jones2006_check.py GRIDSIM WORK_DIR
"""
import os
import shutil
import subprocess
import sys

import pandas as pd

gridsim, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
out = os.path.join(work, "jones2006")
subprocess.run([gridsim, "sweep", "jones2006", "--out", out, "--set", "weeks=1", "--seeds", "1", "--threads", "2"],
               check=True, timeout=600)

results = pd.read_csv(os.path.join(out, "results.csv"))
assert len(results) == 3 * 10 * 4, f"{len(results)} runs, expected 120"
for grid, rows in results[results["scheduler"] == "no-share"].groupby("grid"):
    assert rows["fixed_cluster_turnaround_s"].nunique() == 1, f"{grid}: No Share on FC moved with the others' rate"
low = results[results["rate"] == "r570"]
for grid, rows in low.groupby("grid"):
    ics = rows[rows["scheduler"] == "ics"]["avg_turnaround_s"].iloc[0]
    fcfs = rows[rows["scheduler"] == "no-share-fcfs"]["avg_turnaround_s"].iloc[0]
    cons = rows[rows["scheduler"] == "no-share"]["avg_turnaround_s"].iloc[0]
    assert ics <= cons <= fcfs, f"{grid}: sharing should beat No Share, backfilling FCFS ({ics}, {cons}, {fcfs})"
assert (results[results["scheduler"].str.startswith("no-share")]["fraction_local"] == 1).all(), "No Share moves nothing"

report = open(os.path.join(out, "reproduction.md")).read()
for needed in ("ICS+B keeps FC close to No Share", "every cluster benefits", "ICS+B on OC is slightly worse",
               "Under ICS the clusters' turnarounds are roughly equal", "| equal | 4400 |"):
    assert needed in report, f"reproduction.md lacks '{needed}'"
verdicts = [line for line in report.splitlines()
            if any(f"| {verdict} |" in line for verdict in ("holds", "partly", "does not hold"))]
assert len(verdicts) == 4, f"{len(verdicts)} claims have a verdict, expected 4"
for figure in ("fig4_equal.png", "fig5_small-fc.png", "fig6_mixed.png", "fc_benefit.png"):
    path = os.path.join(out, "figures", figure)
    assert os.path.getsize(path) > 10_000, f"{path} is missing or empty"
shutil.rmtree(work)
print("jones2006 sweep, figures and claims: ok")
