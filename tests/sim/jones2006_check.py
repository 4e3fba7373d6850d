#!/usr/bin/env python3
"""The built-in jones2006 experiments end to end at a small scale: the sweep runs
ICS, ICS+B and No Share on the three grids, draws Figs. 4-6 and the fixed
cluster's benefit, and writes reproduction.md with a verdict for every claim;
jones2006-fc-load does the same at five loads of the fixed cluster's own.
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
# Up to 4,400 every scheduler; beyond, ICS and ICS+B up to each grid's departure rate.
assert len(results) == 3 * 10 * 4 + (5 + 3 + 2) * 2, f"{len(results)} runs, expected 140"
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
for needed in ("no worse than it would be if it were not participating", "every cluster benefits",
               "ICS+B on OC is slightly worse", "Under ICS the clusters' turnarounds are roughly equal",
               "extremely close to the departure rate", "| equal | 4400 |", "| equal | 5600 |", "| mixed | 4850 |"):
    assert needed in report, f"reproduction.md lacks '{needed}'"
assert "| mixed | 5000 |" not in report, "mixed run past its departure rate"
verdicts = [line for line in report.splitlines()
            if any(f"| {verdict} |" in line for verdict in ("holds", "partly", "does not hold"))]
assert len(verdicts) == 5, f"{len(verdicts)} claims have a verdict, expected 5"
for figure in ("fig4_equal.png", "fig5_small-fc.png", "fig6_mixed.png", "fc_benefit.png"):
    path = os.path.join(out, "figures", figure)
    assert os.path.getsize(path) > 10_000, f"{path} is missing or empty"

# The fixed cluster's load as an axis: No Share once per load and grid, and
# alone a busier FC waits longer; every grid and load judged.
out = os.path.join(work, "fc-load")
subprocess.run([gridsim, "sweep", "jones2006-fc-load", "--out", out, "--set", "weeks=1", "--seeds", "1",
                "--threads", "2"], check=True, timeout=600)
results = pd.read_csv(os.path.join(out, "results.csv"))
assert len(results) == 3 * 5 * (4 * 2 + 1), f"{len(results)} runs, expected 135"
alone = results[results["scheduler"] == "no-share"]
for grid, rows in alone.groupby("grid"):
    by_load = rows.sort_values("fc-load")  # fc0.13 ... fc0.78
    turnaround = by_load["fixed_cluster_turnaround_s"].tolist()
    assert turnaround == sorted(turnaround), f"{grid}: FC alone waits less at a higher load: {turnaround}"
report = open(os.path.join(out, "reproduction.md")).read()
rows = [line for line in report.splitlines() if line.startswith(("| equal |", "| small-fc |", "| mixed |"))]
assert len(rows) == 15, f"{len(rows)} rows in the fc-load table, expected 15"
assert all(any(f"| {v} |" in row for v in ("holds", "partly", "does not hold")) for row in rows), report
assert os.path.getsize(os.path.join(out, "figures", "fc_load_excess.png")) > 10_000
shutil.rmtree(work)
print("jones2006 sweeps, figures and claims: ok")
