#!/usr/bin/env python3
"""The built-in jones2004 experiment end to end at a small scale: the sweep runs,
draws Jones et al.'s figures, and writes reproduction.md with both baselines
beside the paper's and a verdict for every claim.

usage: jones2004_check.py GRIDSIM WORK_DIR
"""
import os
import shutil
import subprocess
import sys

import pandas as pd

gridsim, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)
out = os.path.join(work, "jones2004")
subprocess.run([gridsim, "sweep", "jones2004", "--out", out, "--set", "jobs-per-cluster=400", "--seeds", "1",
                "--threads", "2"], check=True, timeout=600)

results = pd.read_csv(os.path.join(out, "results.csv"))
assert len(results) == 12 * 8 * 9, f"{len(results)} runs, expected 864"
migration = results[results["method"] == "migration-only"]["avg_turnaround_s"]
assert migration.nunique() == 1, "Migration Only reads neither BSBW nor LSLT: one run under every name"
initial = results[results["method"] == "initial"]
assert initial.groupby("bsbw")["avg_turnaround_s"].nunique().max() == 1, "Initial reads BSBW only"
fractions = results["fraction_local"] + results["fraction_migrated"] + results["fraction_coallocated"]
assert (abs(fractions - 1) < 1e-9).all(), "every job is local, migrated or split"
assert (results[results["method"] == "migration-only"]["fraction_coallocated"] == 0).all()

report = open(os.path.join(out, "reproduction.md")).read()
for needed in ("| Migration Only | 1087 s |", "| Ideal | 735 s |", "B4 is the worst", "An 85% chunk is best",
               "A1 is stable in BSBW"):
    assert needed in report, f"reproduction.md lacks '{needed}'"
verdicts = [line for line in report.splitlines()
            if any(f"| {verdict} |" in line for verdict in ("holds", "partly", "does not hold", "not examined"))]
assert len(verdicts) >= 10, f"only {len(verdicts)} claims have a verdict"
for figure in ("fig07-12_surfaces.png", "heatmaps_turnaround.png", "fig13_lslt100.png", "fig14_b3_lslt100.png",
               "fig15_bsbw300.png", "fig16_bsbw800.png", "fig17_b3_bsbw300.png", "fig18_b3_bsbw800.png",
               "link_saturation_bsbw800.png"):
    path = os.path.join(out, "figures", figure)
    assert os.path.getsize(path) > 10_000, f"{path} is missing or empty"
shutil.rmtree(work)
print("jones2004 sweep, figures and claims: ok")
